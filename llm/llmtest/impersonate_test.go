package llmtest

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/devagent/dev/llm"
)

// Each impersonation is what llm's discovery and error classification make
// of the real server it imitates.
func TestImpersonate(t *testing.T) {
	t.Parallel()
	cases := []struct {
		kind   Kind
		want   llm.ServerInfo
		field  string
		models []string
		strict bool // an unknown model fails
	}{
		{Generic, llm.ServerInfo{}, llm.FieldReasoningContent, []string{"m", "other"}, true},
		{LlamaCpp, llm.ServerInfo{Kind: llm.ServerLlamaCpp, Window: 8192, Source: "GET /props default_generation_settings.n_ctx", Version: "b7120-3f9a0e1c2", Slots: 1},
			llm.FieldReasoningContent, []string{"m", "other"}, false},
		{VLLM, llm.ServerInfo{Kind: llm.ServerVLLM, Window: 8192, Source: "GET /v1/models max_model_len", Version: "0.11.0"}, llm.FieldReasoning, []string{"m", "other"}, true},
		{VLLMOld, llm.ServerInfo{Kind: llm.ServerVLLM, Window: 8192, Source: "GET /v1/models max_model_len", Version: "0.10.1"}, llm.FieldReasoning, []string{"m", "other"}, true},
		{Ollama, llm.ServerInfo{Kind: llm.ServerOllama, Window: 8192, Source: "GET /api/ps context_length", Version: "0.17.4"},
			llm.FieldReasoning, []string{"m:latest", "other:latest"}, true},
		{LMStudio, llm.ServerInfo{Kind: llm.ServerLMStudio, Window: 8192, Source: "GET /api/v1/models loaded_instances[].config.context_length"},
			llm.FieldReasoningContent, []string{"m", "other"}, true},
	}
	for _, tc := range cases {
		t.Run(string(tc.kind), func(t *testing.T) {
			t.Parallel()
			s := New("m", "other")
			t.Cleanup(s.Close)
			s.Impersonate(tc.kind, 8192)
			s.Script(Response{Content: "hi", Reasoning: "hmm"})
			c := llm.New(llm.Config{BaseURL: s.BaseURL()})
			ctx := context.Background()
			if got := c.Discover(ctx, "m"); got != tc.want {
				t.Errorf("Discover = %+v, want %+v", got, tc.want)
			}
			models, err := c.Models(ctx)
			if err != nil || !slices.Equal(models, tc.models) {
				t.Errorf("Models = %q, %v; want %q", models, err, tc.models)
			}
			reply, err := c.Stream(ctx, llm.Request{Params: llm.Params{Model: "m"}, Messages: []llm.Message{{Role: "user", Content: "x"}}}, nil)
			if err != nil || reply.Content != "hi" || reply.ReasoningField != tc.field {
				t.Errorf("Stream = %+v, %v; want content hi in field %s", reply, err, tc.field)
			}
			_, err = c.Stream(ctx, llm.Request{Params: llm.Params{Model: "nope"}, Messages: []llm.Message{{Role: "user", Content: "x"}}}, nil)
			var e *llm.Error
			switch {
			case tc.strict && (!errors.As(err, &e) || e.Kind != llm.KindModelNotFound || !slices.Equal(e.Models, tc.models)):
				t.Errorf("unknown model: %v; want a model-not-found error listing %q", err, tc.models)
			case !tc.strict && (!errors.As(err, &e) || e.Message != "llmtest: no scripted reply left"):
				t.Errorf("unknown model on llama.cpp: %v; want it served like any name", err)
			}
		})
	}
}

func TestRejectStreamOptions(t *testing.T) {
	t.Parallel()
	s := New("m")
	t.Cleanup(s.Close)
	s.RejectStreamOptions()
	s.Script(Response{Content: "hi", Usage: &llm.Usage{PromptTokens: 1, CompletionTokens: 1, TotalTokens: 2}})
	c := llm.New(llm.Config{BaseURL: s.BaseURL()})
	reply, err := c.Stream(context.Background(), llm.Request{Params: llm.Params{Model: "m"}, Messages: []llm.Message{{Role: "user", Content: "x"}}}, nil)
	if err != nil || reply.Content != "hi" {
		t.Fatalf("Stream = %+v, %v", reply, err)
	}
	if reply.Usage != nil {
		t.Errorf("usage %+v sent to a request that did not ask for it", reply.Usage)
	}
	if !c.StreamOptionsRejected() || len(s.Requests()) != 2 {
		t.Errorf("rejected %v after %d requests; want the rejection remembered after 2", c.StreamOptionsRejected(), len(s.Requests()))
	}
}

// The mock records the grammar a request carried and the field it came in,
// and rejects it like llama.cpp when told to.
func TestGrammarRecordedAndRejected(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		kind  Kind
		field string
	}{{LlamaCpp, "grammar"}, {VLLM, "structured_outputs.grammar"}, {VLLMOld, "guided_grammar"}} {
		s := New("m")
		t.Cleanup(s.Close)
		s.Impersonate(tc.kind, 8192)
		s.Script(Response{Content: "hi"})
		c := llm.New(llm.Config{BaseURL: s.BaseURL()})
		c.Discover(context.Background(), "m")
		if _, err := c.Stream(context.Background(), llm.Request{Params: llm.Params{Model: "m", Grammar: "root ::= x"}, Messages: []llm.Message{{Role: "user", Content: "x"}}}, nil); err != nil {
			t.Fatal(err)
		}
		if r := s.Requests()[0]; r.Grammar != "root ::= x" || r.GrammarField != tc.field {
			t.Errorf("%s: recorded grammar %q in %q, want %q", tc.kind, r.Grammar, r.GrammarField, tc.field)
		}
	}
	s := New("m")
	t.Cleanup(s.Close)
	s.RejectGrammar()
	s.Script(Response{Content: "hi"})
	c := llm.New(llm.Config{BaseURL: s.BaseURL()})
	reply, err := c.Stream(context.Background(), llm.Request{Params: llm.Params{Model: "m", Grammar: "root ::= x"}, Messages: []llm.Message{{Role: "user", Content: "x"}}}, nil)
	if err != nil || !reply.GrammarRejected || reply.Constrained {
		t.Errorf("Stream = %+v, %v; want the reply of the request sent again without the grammar", reply, err)
	}
	if rs := s.Requests(); len(rs) != 2 || rs[0].Grammar == "" || rs[1].Grammar != "" {
		t.Errorf("requests %+v, want one with the grammar, then one without", rs)
	}
}
