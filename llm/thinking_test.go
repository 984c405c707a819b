package llm_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/devagent/dev/llm"
	"github.com/devagent/dev/llm/llmtest"
)

// sent streams one request with the thinking level and extra body to a
// server impersonating kind, and returns the JSON fields it received
// besides model, messages and stream options.
func sent(t *testing.T, kind llmtest.Kind, req llm.Request) map[string]any {
	t.Helper()
	srv := llmtest.New("m")
	t.Cleanup(srv.Close)
	if kind != "" {
		srv.Impersonate(kind, 8192)
	}
	srv.Script(llmtest.Response{Content: "ok"})
	c := llm.New(llm.Config{BaseURL: srv.BaseURL()})
	c.Discover(context.Background(), "m")
	req.Model, req.Messages = "m", []llm.Message{{Role: llm.RoleUser, Content: "hi"}}
	if _, err := c.Stream(context.Background(), req, nil); err != nil {
		t.Fatal(err)
	}
	raw := srv.Requests()[0].Raw
	for _, k := range []string{"model", "messages", "stream", "stream_options"} {
		delete(raw, k)
	}
	return raw
}

func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestThinkingDialects(t *testing.T) {
	t.Parallel()
	tests := []struct {
		kind                     llmtest.Kind
		off, low, high, lessAuto string
	}{
		{llmtest.VLLM, `{"chat_template_kwargs":{"enable_thinking":false}}`, `{"chat_template_kwargs":{"enable_thinking":true}}`,
			`{"chat_template_kwargs":{"enable_thinking":true}}`, `{"chat_template_kwargs":{"enable_thinking":false}}`},
		{llmtest.LlamaCpp, `{"chat_template_kwargs":{"enable_thinking":false}}`, `{"chat_template_kwargs":{"enable_thinking":true}}`,
			`{"chat_template_kwargs":{"enable_thinking":true}}`, `{"chat_template_kwargs":{"enable_thinking":false}}`},
		{llmtest.Ollama, `{"reasoning_effort":"none"}`, `{"reasoning_effort":"low"}`, `{"reasoning_effort":"high"}`, `{"reasoning_effort":"low"}`},
		{llmtest.LMStudio, `{"reasoning_effort":"none"}`, `{"reasoning_effort":"low"}`, `{"reasoning_effort":"high"}`, `{"reasoning_effort":"low"}`},
		{llmtest.OpenRouter, `{"reasoning":{"effort":"none"}}`, `{"reasoning":{"effort":"low"}}`, `{"reasoning":{"effort":"high"}}`, `{"reasoning":{"effort":"low"}}`},
		{llmtest.Generic, `{"reasoning_effort":"none"}`, `{"reasoning_effort":"low"}`, `{"reasoning_effort":"high"}`, `{"reasoning_effort":"low"}`},
	}
	for _, tt := range tests {
		t.Run(string(tt.kind), func(t *testing.T) {
			t.Parallel()
			for _, c := range []struct {
				req  llm.Request
				want string
			}{
				{llm.Request{}, `{}`},
				{llm.Request{Params: llm.Params{Thinking: llm.ThinkingOff}}, tt.off},
				{llm.Request{Params: llm.Params{Thinking: llm.ThinkingLow}}, tt.low},
				{llm.Request{Params: llm.Params{Thinking: llm.ThinkingHigh}}, tt.high},
				{llm.Request{LessThinking: true}, tt.lessAuto},
				{llm.Request{Params: llm.Params{Thinking: llm.ThinkingOff}, LessThinking: true}, tt.off},
			} {
				if got := jsonOf(sent(t, tt.kind, c.req)); got != c.want {
					t.Errorf("thinking %q less %v: sent %s, want %s", c.req.Thinking, c.req.LessThinking, got, c.want)
				}
			}
		})
	}
}

func TestLessThinkingAfterLowIsOff(t *testing.T) {
	t.Parallel()
	if got := jsonOf(sent(t, llmtest.Ollama, llm.Request{Params: llm.Params{Thinking: llm.ThinkingLow}, LessThinking: true})); got != `{"reasoning_effort":"none"}` {
		t.Errorf("sent %s", got)
	}
}

func TestExtraBodyIsMerged(t *testing.T) {
	t.Parallel()
	temperature, maxTokens := 0.2, 512
	req := llm.Request{
		Params: llm.Params{Thinking: llm.ThinkingOff, Temperature: &temperature, MaxTokens: &maxTokens,
			Extra: map[string]any{"top_k": 20, "min_p": 0.05, "temperature": 0.6, "chat_template_kwargs": map[string]any{"custom": "x"}}},
	}
	got := jsonOf(sent(t, llmtest.LlamaCpp, req))
	want := `{"chat_template_kwargs":{"custom":"x","enable_thinking":false},"max_tokens":512,"min_p":0.05,"temperature":0.6,"top_k":20}`
	if got != want {
		t.Errorf("sent %s\nwant %s", got, want)
	}
	// extraBody's own enable_thinking wins over the thinking level.
	req.Extra = map[string]any{"chat_template_kwargs": map[string]any{"enable_thinking": true}}
	if got := jsonOf(sent(t, llmtest.LlamaCpp, req)); !strings.Contains(got, `"chat_template_kwargs":{"enable_thinking":true}`) {
		t.Errorf("sent %s", got)
	}
}

// Stop closes the request where it says: the reply holds what came, the
// server sees the client leave before it finished.
func TestStopClosesTheRequest(t *testing.T) {
	t.Parallel()
	srv := llmtest.New("m")
	t.Cleanup(srv.Close)
	content := strings.Repeat("word ", 200) + "STOP" + strings.Repeat(" more", 400)
	srv.Script(llmtest.Response{Content: content, ChunkSize: 10, Rate: 300})
	c := llm.New(llm.Config{BaseURL: srv.BaseURL()})
	var seen strings.Builder
	reply, err := c.Stream(context.Background(), llm.Request{Params: llm.Params{Model: "m"}, Messages: []llm.Message{{Role: "user", Content: "go"}}, Stop: func(d llm.Delta) bool {
		seen.WriteString(d.Content)
		return strings.Contains(seen.String(), "STOP")
	}}, nil)
	if err != nil || !reply.Stopped {
		t.Fatalf("reply %+v err %v", reply, err)
	}
	if !strings.Contains(reply.Content, "STOP") || strings.Contains(reply.Content, "more more more") {
		t.Errorf("content %d bytes: %q…", len(reply.Content), reply.Content[max(0, len(reply.Content)-40):])
	}
	total := (len(content) + 9) / 10
	req := awaitReplied(t, srv)
	if !req.Abandoned || req.Chunks >= total {
		t.Errorf("server: abandoned %v after %d of %d chunks", req.Abandoned, req.Chunks, total)
	}
}

func awaitReplied(t *testing.T, srv *llmtest.Server) llmtest.Request {
	t.Helper()
	reqs, ok := srv.AwaitReplied(t.Context(), 1)
	if !ok {
		t.Fatal("the server never finished")
	}
	return reqs[0]
}
