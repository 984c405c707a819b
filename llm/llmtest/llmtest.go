// Package llmtest is a scripted OpenAI-compatible chat server for tests and
// benchmarks: it streams the replies it is given, in order, and records every
// request it receives.
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
	"unicode/utf8"

	"github.com/devagent/dev/llm"
)

// Response is one scripted answer to a chat completion request.
type Response struct {
	Content      string // streamed in small chunks
	Reasoning    string // streamed first, as reasoning_content
	FinishReason string // default "stop"
	Usage        *llm.Usage

	// Status, when not 0, answers with this HTTP status, Body and Header
	// instead of a stream.
	Status int
	Body   string
	Header map[string]string

	// Hang sends the first chunk, then waits for the client to go away.
	Hang bool

	// Respond, when set, decides the answer from the request (e.g. to echo
	// an id the client was given); it may wait for a condition, and must
	// give up when ctx (the request's) ends. Its own Respond is ignored.
	Respond func(ctx context.Context, req Request) Response
}

// Request is a request the server received.
type Request struct {
	Model    string
	Messages []llm.Message
	Raw      map[string]any // the whole JSON body
	Header   http.Header
}

// Server is the mock. Create it with New and Close it when done.
type Server struct {
	*httptest.Server
	mu       sync.Mutex
	script   []Response
	requests []Request
	models   []string
	hanging  chan struct{}
}

// New starts a server offering models (GET /v1/models).
func New(models ...string) *Server {
	s := &Server{models: models, hanging: make(chan struct{}, 16)}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", s.chat)
	mux.HandleFunc("GET /v1/models", s.listModels)
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

// Requests returns the chat requests received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Hanging receives a value each time a Hang response has sent its first chunk.
func (s *Server) Hanging() <-chan struct{} { return s.hanging }

func (s *Server) listModels(w http.ResponseWriter, _ *http.Request) {
	type model struct {
		ID     string `json:"id"`
		Object string `json:"object"`
	}
	list := struct {
		Object string  `json:"object"`
		Data   []model `json:"data"`
	}{Object: "list", Data: []model{}}
	for _, m := range s.models {
		list.Data = append(list.Data, model{m, "model"})
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(list)
}

func (s *Server) chat(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var req struct {
		Model    string        `json:"model"`
		Messages []llm.Message `json:"messages"`
	}
	var raw map[string]any
	_ = json.Unmarshal(body, &req)
	_ = json.Unmarshal(body, &raw)
	s.mu.Lock()
	request := Request{Model: req.Model, Messages: req.Messages, Raw: raw, Header: r.Header.Clone()}
	s.requests = append(s.requests, request)
	var resp Response
	ok := len(s.script) > 0
	if ok {
		resp, s.script = s.script[0], s.script[1:]
	}
	s.mu.Unlock()
	if resp.Respond != nil {
		resp = resp.Respond(r.Context(), request)
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
	s.stream(w, r, req.Model, resp)
}

func (s *Server) stream(w http.ResponseWriter, r *http.Request, model string, resp Response) {
	w.Header().Set("Content-Type", "text/event-stream")
	flusher, _ := w.(http.Flusher)
	send := func(v any) {
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
	for _, piece := range pieces(resp.Reasoning) {
		send(chunk(map[string]any{"reasoning_content": piece}, nil))
	}
	parts := pieces(resp.Content)
	if resp.Hang {
		if len(parts) > 0 {
			send(chunk(map[string]any{"role": "assistant", "content": parts[0]}, nil))
		}
		s.hanging <- struct{}{}
		<-r.Context().Done()
		return
	}
	for _, piece := range parts {
		send(chunk(map[string]any{"content": piece}, nil))
	}
	finish := resp.FinishReason
	if finish == "" {
		finish = "stop"
	}
	send(chunk(map[string]any{}, finish))
	if resp.Usage != nil {
		send(map[string]any{"id": "chatcmpl-mock", "object": "chat.completion.chunk", "model": model,
			"choices": []any{}, "usage": resp.Usage})
	}
	io.WriteString(w, "data: [DONE]\n\n")
}

// pieces splits text into chunks of a few words, as servers stream tokens.
func pieces(text string) []string {
	var out []string
	for len(text) > 0 {
		n := min(len(text), 16)
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
