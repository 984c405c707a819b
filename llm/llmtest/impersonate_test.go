package llmtest

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/devagent/dev/llm"
	"github.com/devagent/dev/parser"
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
		{SGLang, llm.ServerInfo{Kind: llm.ServerSGLang, Window: 8192, Source: "GET /v1/models max_model_len", Version: "0.5.4"},
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

// The mock records the shape a request carried and the field it came in,
// applies the fields the server it impersonates reads (a shape that allows
// one string is answered with it) and ignores the others, and rejects a
// grammar or a schema when told to.
func TestShapesRecordedAppliedAndRejected(t *testing.T) {
	t.Parallel()
	const nonce = "zq7Kx3Vb"
	grammar := `root ::= "` + nonce + `"`
	schema := json.RawMessage(`{"type":"object","properties":{"nonce":{"type":"string","const":"` + nonce + `"}},"required":["nonce"],"additionalProperties":false}`)
	for _, tc := range []struct {
		kind    Kind
		field   string
		applied bool
	}{
		{LlamaCpp, "grammar", true}, {VLLM, "structured_outputs.grammar", true}, {VLLM, "guided_grammar", false},
		{VLLMOld, "guided_grammar", true}, {SGLang, "ebnf", true}, {Ollama, "grammar", false}, {LMStudio, "grammar", false},
		{Generic, "grammar", false}, {Ollama, "response_format", true}, {LMStudio, "response_format", true},
		{LlamaCpp, "response_format", true}, {Generic, "response_format", true},
	} {
		s := New("m")
		t.Cleanup(s.Close)
		s.Impersonate(tc.kind, 8192)
		s.Script(Response{Content: "hi"})
		c := llm.New(llm.Config{BaseURL: s.BaseURL()})
		p := llm.Params{Model: "m", Grammar: grammar, GrammarField: tc.field}
		want := nonce
		if tc.field == "response_format" {
			p = llm.Params{Model: "m", Schema: &llm.Schema{Name: "probe", Schema: schema}}
			want = `{"nonce":"` + nonce + `"}`
		}
		if !tc.applied {
			want = "hi"
		}
		if tc.kind == Ollama {
			p.Model = "m:latest"
		}
		reply, err := c.Stream(context.Background(), llm.Request{Params: p, Messages: []llm.Message{{Role: "user", Content: "x"}}}, nil)
		if err != nil || reply.Content != want {
			t.Errorf("%s, %s: reply %q (%v), want %q", tc.kind, tc.field, reply.Content, err, want)
		}
		r := s.Requests()[0]
		if tc.field == "response_format" {
			if r.Schema != string(schema) || r.SchemaName != "probe" || r.Grammar != "" {
				t.Errorf("%s: recorded schema %q named %q", tc.kind, r.Schema, r.SchemaName)
			}
		} else if r.Grammar != grammar || r.GrammarField != tc.field {
			t.Errorf("%s: recorded grammar %q in %q, want %q", tc.kind, r.Grammar, r.GrammarField, tc.field)
		}
		if got := len(r.Applied) == 1 && r.Applied[0] == tc.field; got != tc.applied {
			t.Errorf("%s, %s: applied %q, want applied %v", tc.kind, tc.field, r.Applied, tc.applied)
		}
	}
	for _, reject := range []struct {
		set func(*Server)
		p   llm.Params
	}{{(*Server).RejectGrammar, llm.Params{Model: "m", Grammar: "root ::= x"}}, {(*Server).RejectSchema, llm.Params{Model: "m", Schema: &llm.Schema{Name: "r", Schema: schema}}}} {
		s := New("m")
		t.Cleanup(s.Close)
		reject.set(s)
		s.Script(Response{Content: "hi"})
		c := llm.New(llm.Config{BaseURL: s.BaseURL()})
		reply, err := c.Stream(context.Background(), llm.Request{Params: reject.p, Messages: []llm.Message{{Role: "user", Content: "x"}}}, nil)
		if err != nil || reply.ShapeRejected != llm.ShapeOf(reject.p) || reply.Shaped != llm.ShapeNone || reply.Content != "hi" {
			t.Errorf("Stream = %+v, %v; want the reply of the request sent again without the shape", reply, err)
		}
	}
}

// Asked for the reply's JSON form, a server that applies it answers the
// scripted template in it: dev's conversion gives the template back.
func TestAnswersInTheJSONForm(t *testing.T) {
	t.Parallel()
	offered := []parser.GrammarTool{{Name: "READ_FILE", Input: parser.InputFileRange}, {Name: "WRITE_FILE", Input: parser.InputFileBlock},
		{Name: "COMMAND", Input: parser.InputCommand}, {Name: "DONE", Input: parser.InputText}}
	form := parser.ReplyJSON(offered)
	for _, template := range []string{
		Template("Read it first.", "[ ] read a.go\n[x] look", Call{"READ_FILE", "a.go 3-9"}),
		Reply("Write it.", "WRITE_FILE", "hello.txt\n```\nhello\n```"),
		Reply("Run it.", "COMMAND", "```bash\ngo test ./...\n```"),
		Reply("Done.", "DONE", "All done."),
	} {
		s := New("m")
		t.Cleanup(s.Close)
		s.Impersonate(Ollama, 8192)
		s.Script(Response{Content: template})
		c := llm.New(llm.Config{BaseURL: s.BaseURL()})
		reply, err := c.Stream(context.Background(), llm.Request{Params: llm.Params{Model: "m:latest", Schema: &llm.Schema{Name: "agent_response", Schema: form.Schema()}},
			Messages: []llm.Message{{Role: "user", Content: "x"}}}, nil)
		if err != nil || !strings.HasPrefix(reply.Content, `{"thoughts": `) {
			t.Fatalf("reply %q, %v", reply.Content, err)
		}
		back, err := form.Template(reply.Content)
		if err != nil {
			t.Fatalf("%v: %s", err, reply.Content)
		}
		want, err1 := parser.Parse(template, []string{"READ_FILE", "WRITE_FILE", "COMMAND", "DONE"})
		got, err2 := parser.Parse(back, []string{"READ_FILE", "WRITE_FILE", "COMMAND", "DONE"})
		if err1 != nil || err2 != nil || got.Thoughts != want.Thoughts || len(got.Tools) != 1 || got.Tools[0].Name != want.Tools[0].Name ||
			len(got.Tasks) != len(want.Tasks) {
			t.Errorf("%q\nbecame %s\nand %q (%v, %v)", template, reply.Content, back, err1, err2)
		}
	}
}
