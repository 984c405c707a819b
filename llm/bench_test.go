package llm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"
)

// longHistory is a request late in a long session: a system prompt and
// steps alternating a reply and a tool result, about size bytes in all,
// full of the <tool_result> tags and quotes histories hold.
func longHistory(size int) Request {
	req := Request{Params: Params{Model: "devstral-small-2507"}, Messages: []Message{{Role: RoleSystem, Content: strings.Repeat("You are dev. ", 300)}}}
	for i := 0; ; i++ {
		reply := fmt.Sprintf("# Agent Response\n\n## Thoughts\nStep %d: read the next file.\n\n## Tool Choice\nREAD_FILE\n\n## Tool Input\n\"src/f%d.go\"\n", i, i)
		result := fmt.Sprintf("<tool_result tool=\"READ_FILE\" ok=\"true\" path=\"src/f%d.go\">\n", i) +
			strings.Repeat("\tif err != nil && x < 3 { return fmt.Errorf(\"read: %w\", err) }\n", 8) + "</tool_result>"
		req.Messages = append(req.Messages, Message{Role: RoleAssistant, Content: reply}, Message{Role: RoleUser, Content: result})
		n := 0
		for _, m := range req.Messages {
			n += len(m.Content)
		}
		if n >= size {
			return req
		}
	}
}

// BenchmarkRequestBody builds the body of a chat request with a 200 KB
// history, as every step of a long session does: normalise the history and
// encode it. step: after a request with the same history but its last step,
// as in a run; first: the first request of a process, or the first after a
// compression; go-openai: go-openai's encoding (see body.go).
func BenchmarkRequestBody(b *testing.B) {
	req := longHistory(200 << 10)
	var before bodyEncoder
	if _, err := before.encode(chatRequest(Request{Params: Params{Model: req.Model}, Messages: req.Messages[:len(req.Messages)-2]}, true, nil)); err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name   string
		encode func(wireRequest) ([]byte, error)
	}{
		{"step", func(r wireRequest) ([]byte, error) {
			e := bodyEncoder{last: before.last, encoded: before.encoded}
			return e.encode(r)
		}},
		{"first", func(r wireRequest) ([]byte, error) {
			return new(bodyEncoder).encode(r)
		}},
		{"go-openai", func(r wireRequest) ([]byte, error) { return goOpenAIBody(r.params, r.msgs) }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			body, err := bc.encode(chatRequest(req, true, nil))
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := bc.encode(chatRequest(req, true, nil)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// The body dev encodes is byte for byte the one go-openai would have sent.
func TestRequestBodyIsGoOpenAIs(t *testing.T) {
	t.Parallel()
	zero, warm, limit := 0.0, 0.7, 512
	msgs := []Message{
		{Role: RoleSystem, Content: "You are dev. <rules> & \"quotes\""},
		{Role: RoleUser, Content: "<user_request>fix a < b && c > d</user_request>"},
		{Role: RoleAssistant, Content: "# Agent Response\n\n## Thoughts\nhéllo wörld \u2028 \t tabs \x01 and invalid \xff utf-8"},
		{Role: RoleUser, Content: "   "},
		{Role: "tool", Content: "<tool_result tool=\"COMMAND\" ok=\"false\">exit 1</tool_result>"},
	}
	requests := map[string]Request{
		"plain":           {Params: Params{Model: "m"}, Messages: msgs},
		"temperature 0":   {Params: Params{Model: "m", Temperature: &zero}, Messages: msgs},
		"sampling":        {Params: Params{Model: "qwen3:8b", Temperature: &warm, MaxTokens: &limit}, Messages: msgs},
		"assistant first": {Params: Params{Model: "m"}, Messages: msgs[2:]},
		"no messages":     {Params: Params{Model: "m"}},
		"long history":    longHistory(64 << 10),
	}
	for name, req := range requests {
		for _, usage := range []bool{true, false} {
			checkBody(t, new(bodyEncoder), fmt.Sprintf("%s, usage %v", name, usage), chatRequest(req, usage, nil))
		}
	}
	// A parameter the encoder does not know is not lost: go-openai encodes it.
	r := chatRequest(requests["plain"], true, nil)
	r.params.TopP = 0.9
	body, err := new(bodyEncoder).encode(r)
	if err != nil || !bytes.Contains(body, []byte(`"top_p":0.9`)) {
		t.Errorf("a parameter dev never sets was left out: %s, %v", body, err)
	}
}

// One encoder through a session: messages encoded for a request are reused
// by the next, never in place of others.
func TestRequestBodyAcrossRequests(t *testing.T) {
	t.Parallel()
	var e bodyEncoder
	long := longHistory(16 << 10).Messages
	step := func(name, model string, msgs []Message, usage bool) {
		t.Helper()
		checkBody(t, &e, name, chatRequest(Request{Params: Params{Model: model}, Messages: msgs}, usage, nil))
	}
	for n := 1; n <= len(long); n++ {
		step(fmt.Sprintf("history of %d", n), "m", long[:n], n%3 != 0)
	}
	// A compressed history, a history that shrank, the same content in
	// another role, an auditor's request in between, a repeated message.
	step("compressed", "m", []Message{long[0], {Role: RoleUser, Content: "[CONTEXT SUMMARY]\n\nwork so far"}}, true)
	step("shrunk", "m", long[:3], true)
	step("roles swapped", "m", []Message{long[0], {Role: RoleUser, Content: long[1].Content}, {Role: RoleAssistant, Content: long[2].Content}}, true)
	step("auditor", "auditor", []Message{{Role: RoleSystem, Content: "You are the auditor"}, long[1]}, false)
	step("worker again", "m", long, true)
	step("repeated", "m", append(long[:5:5], long[2], long[3]), true)
}

func checkBody(t *testing.T, e *bodyEncoder, name string, r wireRequest) {
	t.Helper()
	got, err := e.encode(r)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	// What go-openai sent before body.go: its request type, marshalled. It
	// cannot send a temperature of 0: a stand-in value marks its place.
	params, msgs := r.params, r.msgs
	const standIn = 123.5
	if r.zeroTemperature {
		params.Temperature = standIn
	}
	params.Messages = make([]openai.ChatCompletionMessage, len(msgs))
	for i, m := range msgs {
		params.Messages[i] = openai.ChatCompletionMessage{Role: m.Role, Content: m.Content}
	}
	want, err := json.Marshal(params)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	want = bytes.Replace(want, []byte(`"temperature":123.5`), []byte(`"temperature":0`), 1)
	if !bytes.Equal(got, want) {
		t.Errorf("%s: body\n%s\nwant go-openai's\n%s", name, got, want)
	}
}

// BenchmarkStreamChunk decodes one streamed chunk of a token, as a reply
// of 100,000 tokens does 100,000 times (llama.cpp's shape).
func BenchmarkStreamChunk(b *testing.B) {
	chunk := []byte(`{"choices":[{"finish_reason":null,"index":0,"delta":{"content":" the"}}],"created":1735000000,"id":"chatcmpl-Yx2","model":"qwen3-coder","system_fingerprint":"b7120-3f9a0e1c2","object":"chat.completion.chunk"}`)
	acc := replyBuilder{onDelta: func(Delta) {}}
	b.SetBytes(int64(len(chunk)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := acc.add(chunk); err != nil {
			b.Fatal(err)
		}
	}
}
