// Package llmtest is a scripted OpenAI-compatible chat server for tests and
// benchmarks: it streams the replies it is given, in order (or those a
// responder function picks for each request), records every request it
// receives, answers extra endpoints (/props, /api/ps, ...) as told, and can
// impersonate llama.cpp, vLLM, SGLang, Ollama and LM Studio (see
// Impersonate), applying the shapes of replies each of them applies and
// ignoring the others (see shape.go).
package llmtest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/devagent/dev/llm"
)

// Response is one scripted answer to a chat completion request.
type Response struct {
	Content string // streamed in small chunks
	// ChunkSize is the bytes of Content and Reasoning per chunk (whole
	// characters); 0 is 16, a few words as servers stream tokens.
	ChunkSize int
	// Rate, when not 0, is how many chunks a second the stream sends at
	// most, as a model generates tokens; 0 sends them as fast as the
	// client reads.
	Rate      int
	Reasoning string // streamed first, in the server's reasoning field
	// ReasoningField names the field Reasoning streams in; "" uses the
	// server's (reasoning_content unless Impersonate chose another).
	ReasoningField string
	FinishReason   string // default "stop"
	// Usage is sent in a last chunk when the request asked for it
	// (stream_options.include_usage), as servers do.
	Usage *llm.Usage
	// Timings is llama.cpp's `timings` object (cache_n, prompt_n, …),
	// sent in the usage chunk, or alone in a last chunk without usage.
	Timings map[string]any

	// Status, when not 0, answers with this HTTP status, Body and Header
	// instead of a stream.
	Status int
	Body   string
	Header map[string]string

	// Hang sends the first chunk, then waits for the client to go away.
	Hang bool

	// Respond, when set, builds this scripted answer from the request when
	// its turn comes (e.g. to echo an id the client was just given). Unlike
	// Server.Respond it runs outside the server's lock, so it may wait for a
	// condition; it must give up when ctx (the request's) ends. The
	// Respond of what it returns is ignored.
	Respond func(ctx context.Context, req Request) Response
}

// Request is a request the server received.
type Request struct {
	Model    string
	Messages []llm.Message
	Raw      map[string]any // the whole JSON body
	Header   http.Header
	// Arrived is when the request reached the server (its headers were
	// read); Replied is when the server finished writing its answer, zero
	// until then. Benchmarks measure dev's share of a step between them.
	Arrived, Replied time.Time
	// Abandoned: the client closed the request before the streamed reply
	// ended (the server stopped generating); Chunks counts the chunks it
	// was sent.
	Abandoned bool
	Chunks    int
	// Grammar is the grammar the request carried, and GrammarField the
	// field it came in: "grammar" (llama.cpp), "structured_outputs.grammar"
	// (vLLM from 0.10.2), "guided_grammar" (older vLLM) or "ebnf"
	// (SGLang); "" for none.
	Grammar, GrammarField string
	// Schema is the JSON schema of the request's response_format
	// (json_schema), as JSON, and SchemaName its name; "" for none.
	Schema, SchemaName string
	// Applied are the shape fields the server applied (those the server
	// it impersonates reads); the others it ignored.
	Applied []string
	// MaxTokens is the request's max_tokens, 0 when it sent none.
	MaxTokens int
}

// grammarOf finds the grammar of a request body, in any server's field.
func grammarOf(raw map[string]any) (grammar, field string) {
	if g, ok := raw["grammar"].(string); ok {
		return g, "grammar"
	}
	if so, ok := raw["structured_outputs"].(map[string]any); ok {
		if g, ok := so["grammar"].(string); ok {
			return g, "structured_outputs.grammar"
		}
	}
	if g, ok := raw["guided_grammar"].(string); ok {
		return g, "guided_grammar"
	}
	if g, ok := raw["ebnf"].(string); ok {
		return g, "ebnf"
	}
	return "", ""
}

// Server is the mock. Create it with New and Close it when done.
type Server struct {
	*httptest.Server
	mu       sync.Mutex
	script   []Response
	requests []Request
	models   []string
	hanging  chan struct{}
	// replied is closed, and replaced, each time a reply ends.
	replied chan struct{}
	respond func(Request) (Response, bool)
	routes  map[string]route

	reasoningField      string // default reasoning field of streams
	kind                Kind   // the server impersonated: the shape fields it applies
	rejectStreamOptions bool
	rejectGrammar       bool
	rejectSchema        bool
	// unknownModel, when set, answers a chat request for a model the
	// server does not serve (status and body); serves decides.
	unknownModel func(model string) (int, string)
	serves       func(model string) bool
}

type route struct {
	status int
	body   string
}

// New starts a server offering models (GET /v1/models).
func New(models ...string) *Server {
	s := &Server{models: models, hanging: make(chan struct{}, 16), replied: make(chan struct{}), routes: map[string]route{}, reasoningField: llm.FieldReasoningContent,
		kind: Generic}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", s.chat)
	mux.HandleFunc("GET /v1/models", s.listModels)
	mux.HandleFunc("/", s.route)
	s.Server = httptest.NewServer(mux)
	return s
}

// BaseURL is the apiUrl to configure: the server's URL plus /v1.
func (s *Server) BaseURL() string { return s.URL + "/v1" }

// Script appends responses to the queue.
func (s *Server) Script(rs ...Response) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.script = append(s.script, rs...)
}

// Respond makes f answer chat requests before the script: when f returns
// false, the next scripted response answers. f runs on the server's
// goroutines, one request at a time, under the server's lock: it must not
// call the server's methods.
func (s *Server) Respond(f func(Request) (Response, bool)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.respond = f
}

// Route answers requests to pattern, "METHOD /path" (e.g. "GET /props"),
// with status and a JSON body. It may replace GET /v1/models.
func (s *Server) Route(pattern string, status int, body string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.routes[pattern] = route{status, body}
}

func (s *Server) serveRoute(w http.ResponseWriter, r *http.Request) bool {
	s.mu.Lock()
	rt, ok := s.routes[r.Method+" "+r.URL.Path]
	s.mu.Unlock()
	if !ok {
		return false
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(rt.status)
	io.WriteString(w, rt.body)
	return true
}

func (s *Server) route(w http.ResponseWriter, r *http.Request) {
	if !s.serveRoute(w, r) {
		http.NotFound(w, r)
	}
}

// Requests returns the chat requests received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// AwaitReplied waits until n requests have had their whole reply (or the
// client left), and returns all requests; false when ctx ended first.
func (s *Server) AwaitReplied(ctx context.Context, n int) ([]Request, bool) {
	for {
		s.mu.Lock()
		done := 0
		for _, r := range s.requests {
			if !r.Replied.IsZero() {
				done++
			}
		}
		changed := s.replied
		s.mu.Unlock()
		if done >= n {
			return s.Requests(), true
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return nil, false
		}
	}
}

// Hanging receives a value each time a Hang response has sent its first chunk.
func (s *Server) Hanging() <-chan struct{} { return s.hanging }

// RejectStreamOptions makes the server answer a chat request that carries
// stream_options with a 400, as Azure OpenAI did before API version
// 2024-09-01-preview. Such requests are recorded too.
func (s *Server) RejectStreamOptions() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rejectStreamOptions = true
}

// GrammarRejection is llama.cpp's answer to a grammar it cannot parse
// (llm/testdata/servers/llamacpp-b11434/grammar-invalid-400.txt).
const GrammarRejection = `{"error":{"code":400,"message":"Failed to initialize samplers: failed to parse grammar","type":"invalid_request_error"}}`

// RejectGrammar makes the server answer a chat request that carries a
// grammar (in any server's field) with llama.cpp's 400 for a grammar it
// cannot parse. Such requests are recorded too.
func (s *Server) RejectGrammar() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rejectGrammar = true
}

// SchemaRejection is a server's answer to a JSON schema it cannot use
// (OpenAI's wording for a keyword it does not take).
const SchemaRejection = `{"error":{"message":"Invalid schema for response_format 'agent_response': In context=('properties', 'thoughts'), 'minLength' is not permitted.","type":"invalid_request_error","param":"response_format","code":null}}`

// RejectSchema makes the server answer a chat request that carries a JSON
// schema in response_format with a 400 that names it. Such requests are
// recorded too.
func (s *Server) RejectSchema() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rejectSchema = true
}

func (s *Server) listModels(w http.ResponseWriter, r *http.Request) {
	if s.serveRoute(w, r) {
		return
	}
	s.mu.Lock()
	models := append([]string(nil), s.models...)
	s.mu.Unlock()
	type model struct {
		ID     string `json:"id"`
		Object string `json:"object"`
	}
	list := struct {
		Object string  `json:"object"`
		Data   []model `json:"data"`
	}{Object: "list", Data: []model{}}
	for _, m := range models {
		list.Data = append(list.Data, model{m, "model"})
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(list)
}

func (s *Server) chat(w http.ResponseWriter, r *http.Request) {
	arrived := time.Now()
	body, _ := io.ReadAll(r.Body)
	var req struct {
		Model         string        `json:"model"`
		Messages      []llm.Message `json:"messages"`
		StreamOptions *struct {
			IncludeUsage bool `json:"include_usage"`
		} `json:"stream_options"`
	}
	var raw map[string]any
	_ = json.Unmarshal(body, &req)
	_ = json.Unmarshal(body, &raw)
	s.mu.Lock()
	got := Request{Model: req.Model, Messages: req.Messages, Raw: raw, Header: r.Header.Clone(), Arrived: arrived}
	got.Grammar, got.GrammarField = grammarOf(raw)
	got.Schema, got.SchemaName = schemaOf(body)
	for _, f := range applies[s.kind] {
		if (f == got.GrammarField && got.Grammar != "") || (f == "response_format" && got.Schema != "") {
			got.Applied = append(got.Applied, f)
		}
	}
	if n, ok := raw["max_tokens"].(float64); ok {
		got.MaxTokens = int(n)
	}
	// The shape the server applies: a grammar or a schema that allows one
	// string forces it; the JSON form of the reply is how the reply comes.
	appliedGrammar, appliedSchema := "", ""
	for _, f := range got.Applied {
		if f == "response_format" {
			appliedSchema = got.Schema
		} else {
			appliedGrammar = got.Grammar
		}
	}
	forced, isForced := only(appliedGrammar, appliedSchema)
	index := len(s.requests)
	s.requests = append(s.requests, got)
	var streamed streamed
	defer func() {
		now := time.Now()
		s.mu.Lock()
		s.requests[index].Replied = now
		s.requests[index].Abandoned, s.requests[index].Chunks = streamed.abandoned, streamed.chunks
		close(s.replied)
		s.replied = make(chan struct{})
		s.mu.Unlock()
	}()
	var resp Response
	ok := false
	switch {
	case s.rejectGrammar && got.Grammar != "":
		resp, ok = Response{Status: http.StatusBadRequest, Body: GrammarRejection}, true
	case s.rejectSchema && got.Schema != "":
		resp, ok = Response{Status: http.StatusBadRequest, Body: SchemaRejection}, true
	case isForced:
		resp, ok = Response{Content: forced, Usage: &llm.Usage{PromptTokens: 12, CompletionTokens: 8, TotalTokens: 20}}, true
	case s.rejectStreamOptions && req.StreamOptions != nil:
		resp, ok = Response{Status: http.StatusBadRequest,
			Body: `{"error":{"code":null,"message":"Unrecognized request argument supplied: stream_options","param":null,"type":"invalid_request_error"}}`}, true
	case s.unknownModel != nil && !s.serves(req.Model):
		status, body := s.unknownModel(req.Model)
		resp, ok = Response{Status: status, Body: body}, true
	case s.respond != nil:
		resp, ok = s.respond(got)
	}
	if !ok && len(s.script) > 0 {
		resp, s.script, ok = s.script[0], s.script[1:], true
	}
	s.mu.Unlock()
	if resp.Respond != nil {
		resp = resp.Respond(r.Context(), got)
	}
	if appliedSchema != "" && !isForced && resp.Status == 0 {
		resp.Content = inJSON(resp.Content, appliedSchema)
	}
	if !ok {
		resp = Response{Status: http.StatusBadRequest,
			Body: `{"error":{"message":"llmtest: no scripted reply left","type":"invalid_request_error"}}`}
	}
	if resp.Status != 0 {
		for k, v := range resp.Header {
			w.Header().Set(k, v)
		}
		if w.Header().Get("Content-Type") == "" {
			w.Header().Set("Content-Type", "application/json")
		}
		w.WriteHeader(resp.Status)
		io.WriteString(w, resp.Body)
		return
	}
	if req.StreamOptions == nil || !req.StreamOptions.IncludeUsage {
		resp.Usage = nil
	}
	if resp.ReasoningField == "" {
		s.mu.Lock()
		resp.ReasoningField = s.reasoningField
		s.mu.Unlock()
	}
	streamed = s.stream(w, r, req.Model, resp)
}

// streamed is how a stream went: the chunks sent, and whether the client
// left before its end.
type streamed struct {
	chunks    int
	abandoned bool
}

func (s *Server) stream(w http.ResponseWriter, r *http.Request, model string, resp Response) (out streamed) {
	w.Header().Set("Content-Type", "text/event-stream")
	flusher, _ := w.(http.Flusher)
	start := time.Now()
	send := func(v any) {
		if out.abandoned = r.Context().Err() != nil; out.abandoned {
			return // a server stops generating when the client goes away
		}
		if resp.Rate > 0 {
			// Ahead of the rate by a millisecond or more: wait.
			if ahead := time.Duration(out.chunks)*time.Second/time.Duration(resp.Rate) - time.Since(start); ahead >= time.Millisecond {
				select {
				case <-time.After(ahead):
				case <-r.Context().Done():
					out.abandoned = true
					return
				}
			}
		}
		out.chunks++
		data, _ := json.Marshal(v)
		fmt.Fprintf(w, "data: %s\n\n", data)
		if flusher != nil {
			flusher.Flush()
		}
	}
	chunk := func(delta map[string]any, finish any) map[string]any {
		return map[string]any{
			"id": "chatcmpl-mock", "object": "chat.completion.chunk", "model": model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}},
		}
	}
	for _, piece := range pieces(resp.Reasoning, resp.ChunkSize) {
		send(chunk(map[string]any{resp.ReasoningField: piece}, nil))
	}
	parts := pieces(resp.Content, resp.ChunkSize)
	if resp.Hang {
		if len(parts) > 0 {
			send(chunk(map[string]any{"role": "assistant", "content": parts[0]}, nil))
		}
		s.hanging <- struct{}{}
		<-r.Context().Done()
		out.abandoned = true
		return out
	}
	for _, piece := range parts {
		if r.Context().Err() != nil {
			out.abandoned = true // the client went away (e.g. it cut a long reply)
			return out
		}
		send(chunk(map[string]any{"content": piece}, nil))
	}
	finish := resp.FinishReason
	if finish == "" {
		finish = "stop"
	}
	send(chunk(map[string]any{}, finish))
	if resp.Usage != nil || resp.Timings != nil {
		last := map[string]any{"id": "chatcmpl-mock", "object": "chat.completion.chunk", "model": model, "choices": []any{}}
		if resp.Usage != nil {
			last["usage"] = resp.Usage
		}
		if resp.Timings != nil {
			last["timings"] = resp.Timings
		}
		send(last)
	}
	if out.abandoned {
		return out
	}
	io.WriteString(w, "data: [DONE]\n\n")
	if flusher != nil {
		flusher.Flush() // the reply ends here, not when the handler returns
	}
	return out
}

// pieces splits text into chunks of size bytes (16 when 0: a few words, as
// servers stream tokens).
func pieces(text string, size int) []string {
	if size <= 0 {
		size = 16
	}
	var out []string
	for len(text) > 0 {
		n := min(len(text), size)
		for n < len(text) && !utf8.RuneStart(text[n]) {
			n++ // never split a character: JSON would mangle it
		}
		out = append(out, text[:n])
		text = text[n:]
	}
	return out
}

// Reply builds a reply in the protocol's template with one tool.
func Reply(thoughts, tool, input string) string {
	return Template(thoughts, "", Call{tool, input})
}

// Call is one tool call of a Template.
type Call struct {
	Tool, Input string
}

// Template builds a reply with a task list (may be empty) and several tools.
func Template(thoughts, tasks string, calls ...Call) string {
	var b strings.Builder
	b.WriteString("# Agent Response\n\n## Thoughts\n" + thoughts + "\n\n")
	if tasks != "" {
		b.WriteString("## Task List\n" + tasks + "\n\n")
	}
	for _, c := range calls {
		b.WriteString("## Tool Choice\n" + c.Tool + "\n\n## Tool Input\n" + c.Input + "\n\n")
	}
	return strings.TrimRight(b.String(), "\n") + "\n"
}
