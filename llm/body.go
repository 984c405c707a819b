package llm

import (
	"encoding/json"
	"reflect"
	"sync"

	openai "github.com/sashabaranov/go-openai"
)

// The body of a chat request is encoded here rather than by go-openai,
// whose ChatCompletionMessage.MarshalJSON encodes every message on its own
// and hands the result back to encoding/json, which checks and copies it
// again: three passes over a history that grows with every step, most of
// dev's time between two steps late in a long session. Here each message
// is encoded once, when it is new: a request repeats the history of the
// one before, so its body is mostly the previous messages' bytes, copied
// (BenchmarkRequestBody, 200 KB of history: 2.0 ms through go-openai).
//
// The bytes are the ones go-openai would send (TestRequestBodyIsGoOpenAIs):
// the same fields in the same order, HTML characters escaped alike, with
// one exception: a temperature of 0 is sent as 0, which go-openai's
// omitempty float cannot do (see chatRequest).
// go-openai still checks the parameters and builds the HTTP request around
// a body without the messages; the call's doer then sends this one.

// wireMessageOut is a message as go-openai's MarshalJSON writes one with
// only a role and a text content.
type wireMessageOut struct {
	Role    string `json:"role"`
	Content string `json:"content,omitempty"`
}

// wireTail is what follows the messages, in go-openai's order of the
// fields chatRequest sets.
type wireTail struct {
	MaxTokens     int                   `json:"max_tokens,omitempty"`
	Temperature   *float32              `json:"temperature,omitempty"`
	Stream        bool                  `json:"stream,omitempty"`
	StreamOptions *openai.StreamOptions `json:"stream_options,omitempty"`
}

// bodyEncoder encodes request bodies, keeping the messages of the last
// body and their encodings for the next. Safe for concurrent use.
type bodyEncoder struct {
	mu      sync.Mutex
	last    []Message
	encoded [][]byte // of last
}

// wireRequest is a chat request as chatRequest builds it: go-openai's
// parameters (without the messages) and the normalised messages.
type wireRequest struct {
	params openai.ChatCompletionRequest
	// zeroTemperature: send "temperature":0, which params cannot carry
	// (go-openai omits a zero float).
	zeroTemperature bool
	msgs            []Message
}

// encode returns the JSON body of r. Parameters the encoder does not know
// (anything chatRequest does not set) are encoded by go-openai's own code
// instead, so nothing is ever left out.
func (e *bodyEncoder) encode(r wireRequest) ([]byte, error) {
	params, msgs := r.params, r.msgs
	known := params
	//lint:ignore SA1019 max_tokens is what local servers read (see chatRequest)
	known.Model, known.MaxTokens, known.Temperature, known.Stream, known.StreamOptions = "", 0, 0, false, nil
	if !reflect.ValueOf(known).IsZero() {
		return goOpenAIBody(params, msgs)
	}
	head, err := json.Marshal(struct {
		Model string `json:"model"`
	}{params.Model})
	if err != nil {
		return nil, err
	}
	//lint:ignore SA1019 max_tokens is what local servers read (see chatRequest)
	tail := wireTail{MaxTokens: params.MaxTokens, Stream: params.Stream, StreamOptions: params.StreamOptions}
	if params.Temperature != 0 || r.zeroTemperature {
		tail.Temperature = &params.Temperature
	}
	tailJSON, err := json.Marshal(tail)
	if err != nil {
		return nil, err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	encoded := make([][]byte, len(msgs))
	size := len(head) + len(tailJSON) + len(`,"messages":[],`)
	for i, m := range msgs {
		// The same message at the same place: a history that grew. Equal
		// strings that share their bytes compare in constant time.
		if i < len(e.last) && m == e.last[i] {
			encoded[i] = e.encoded[i]
		} else if encoded[i], err = json.Marshal(wireMessageOut(m)); err != nil {
			return nil, err
		}
		size += len(encoded[i]) + 1
	}
	body := make([]byte, 0, size)
	body = append(body, head[:len(head)-1]...) // {"model":"…"
	body = append(body, `,"messages":[`...)
	for i, enc := range encoded {
		if i > 0 {
			body = append(body, ',')
		}
		body = append(body, enc...)
	}
	body = append(body, ']')
	if len(tailJSON) > len("{}") {
		body = append(body, ',')
	}
	body = append(body, tailJSON[1:]...) // …}
	e.last, e.encoded = msgs, encoded
	return body, nil
}

// goOpenAIBody is the body go-openai encodes for params with msgs (a zero
// temperature left out).
func goOpenAIBody(params openai.ChatCompletionRequest, msgs []Message) ([]byte, error) {
	params.Messages = make([]openai.ChatCompletionMessage, len(msgs))
	for i, m := range msgs {
		params.Messages[i] = openai.ChatCompletionMessage{Role: m.Role, Content: m.Content}
	}
	return json.Marshal(params)
}
