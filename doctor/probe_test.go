package doctor_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/devagent/dev/doctor"
	"github.com/devagent/dev/llm"
	"github.com/devagent/dev/llm/llmtest"
	"github.com/devagent/dev/parser"
	"github.com/devagent/dev/shape"
)

func check(t *testing.T, r doctor.Report, name string) doctor.Check {
	t.Helper()
	c, ok := r.Check(name)
	if !ok {
		t.Fatalf("no %s check in %+v", name, r.Checks)
	}
	return c
}

func TestFacts(t *testing.T) {
	t.Parallel()
	s := server(t, llmtest.LlamaCpp, 8192, model)
	s.Respond(answer(thinking))
	r := doctor.Run(context.Background(), config(s))
	f := r.Facts
	if f.Server != "llama.cpp" || f.Version != "b7120-3f9a0e1c2" || f.ContextWindow != 8192 || f.WorkingWindow != 8192 ||
		f.ContextWindowSource != "GET /props default_generation_settings.n_ctx" || !reflect.DeepEqual(f.Models, []string{model}) {
		t.Errorf("server facts = %+v", f)
	}
	if f.Usage == nil || !*f.Usage || f.StreamOptions == nil || !*f.StreamOptions || f.FirstTokenSeconds == nil || f.ModelsSeconds == nil {
		t.Errorf("streaming facts = %+v", f)
	}
	if f.ReasoningField != llm.FieldReasoningContent || f.ProtocolParsed == nil || !*f.ProtocolParsed ||
		f.ProtocolTokens != 31 || f.ProtocolEstimate || f.ProtocolSeconds == nil {
		t.Errorf("protocol facts = %+v", f)
	}
	if f.Grammar != "applied" || f.JSONForm != "applied" || f.GrammarAccepted == nil || !*f.GrammarAccepted || f.GrammarApplied == nil ||
		!*f.GrammarApplied || f.GrammarField != "grammar" || !f.ProtocolConstrained || f.ProtocolShape != "grammar" || f.ProtocolMaxTokens != 2048 {
		t.Errorf("shape facts = %+v", f)
	}
	if !r.OK || r.Count(doctor.Warn) != 1 || r.Count(doctor.OK) != 12 {
		t.Errorf("report OK %v, %d ok, %d warnings", r.OK, r.Count(doctor.OK), r.Count(doctor.Warn))
	}
}

// The probes send what a run sends: no tools, the run's temperature; the
// shape probes allow the nonce alone, the grammar in the field a run uses;
// the protocol probe goes as a run's request, its shape, reply cap,
// thinking and extraBody from shape.Plan.
func TestProbeRequests(t *testing.T) {
	t.Parallel()
	s := server(t, llmtest.VLLM, 32768, model)
	s.Respond(answer(""))
	cfg := config(s)
	cfg.Sends.Params.Temperature, cfg.Sends.Params.MaxTokens = ptr(0.2), ptr(4096)
	cfg.Sends.Params.Extra = map[string]any{"top_k": 20}
	doctor.Run(context.Background(), cfg)
	reqs := s.Requests()
	if len(reqs) != 5 {
		t.Fatalf("%d chat requests, want 5 (streaming, roles, grammar, JSON form, protocol)", len(reqs))
	}
	roles := func(r llmtest.Request) string {
		var rs []string
		for _, m := range r.Messages {
			rs = append(rs, m.Role)
		}
		return strings.Join(rs, ",")
	}
	want := []struct {
		roles     string
		maxTokens float64
	}{{"user", 1}, {"system,user,assistant,user", 1}, {"user", 48}, {"user", 48}, {"system,user", 4096}}
	for i, r := range reqs {
		if got := roles(r); got != want[i].roles {
			t.Errorf("request %d roles %s, want %s", i, got, want[i].roles)
		}
		if got, _ := r.Raw["max_tokens"].(float64); got != want[i].maxTokens {
			t.Errorf("request %d max_tokens %v, want %v", i, got, want[i].maxTokens)
		}
		if temp, _ := r.Raw["temperature"].(float64); temp < 0.19 || temp > 0.21 {
			t.Errorf("request %d temperature %v, want 0.2", i, r.Raw["temperature"])
		}
		for _, key := range []string{"tools", "tool_choice"} {
			if _, ok := r.Raw[key]; ok {
				t.Errorf("request %d sends %s", i, key)
			}
		}
		if r.Model != model {
			t.Errorf("request %d for model %q", i, r.Model)
		}
	}
	if !strings.Contains(reqs[4].Messages[0].Content, "# Agent Response") || !strings.Contains(reqs[4].Messages[1].Content, "tool DONE, input OK") {
		t.Errorf("the protocol probe does not ask for the template:\n%+v", reqs[4].Messages)
	}
	if reqs[2].Grammar != `root ::= "`+nonce+`"` || reqs[2].GrammarField != "structured_outputs.grammar" {
		t.Errorf("the grammar probe sent %q in %q", reqs[2].Grammar, reqs[2].GrammarField)
	}
	if !strings.Contains(reqs[3].Schema, `"const":"`+nonce+`"`) || reqs[3].Grammar != "" {
		t.Errorf("the JSON form's probe sent %q", reqs[3].Schema)
	}
	// On vLLM with constrain auto the protocol probe carries the grammar
	// of DONE alone, in vLLM's field, with the run's extraBody.
	if g := reqs[4].Grammar; !strings.Contains(g, `"DONE\n\n## Tool Input\n"`) || strings.Contains(g, "READ_FILE") || reqs[4].GrammarField != "structured_outputs.grammar" {
		t.Errorf("the protocol probe's grammar is not DONE's alone:\n%s", g)
	}
	if reqs[4].Raw["top_k"] != 20.0 || reqs[2].Raw["top_k"] != 20.0 {
		t.Errorf("extraBody did not go with the probes a run's requests stand for")
	}
}

// With maxTokens unset the protocol probe is capped as a run would be (a
// quarter of the window), and with constrain off it carries no shape; the
// shape probes are sent all the same.
func TestProtocolProbeAsARun(t *testing.T) {
	t.Parallel()
	s := server(t, llmtest.LlamaCpp, 8192, model)
	s.Respond(answer(""))
	cfg := config(s)
	cfg.Sends.Constrain = shape.Off
	r := doctor.Run(context.Background(), cfg)
	reqs := s.Requests()
	if len(reqs) != 5 || reqs[2].Grammar == "" || reqs[3].Schema == "" || reqs[4].Grammar != "" || reqs[4].Schema != "" || reqs[4].MaxTokens != 2048 {
		t.Fatalf("requests: protocol probe grammar %q schema %q max_tokens %d", reqs[4].Grammar, reqs[4].Schema, reqs[4].MaxTokens)
	}
	if r.Facts.ProtocolConstrained || r.Facts.ProtocolMaxTokens != 2048 {
		t.Errorf("facts %+v", r.Facts)
	}
	if c := check(t, r, doctor.CheckGrammar); c.Status != doctor.OK || !strings.Contains(c.Detail, "applied in grammar") || !strings.Contains(c.Detail, "runs send no shape (constrain off)") {
		t.Errorf("grammar = %+v", c)
	}
}

// What doctor says a run sends comes from shape.Plan, the code a run
// uses: on llama.cpp the grammar of DONE, capped at a quarter of the
// window; a model not known to reason is offered no <think> block, one
// whose template reasons is.
func TestProtocolProbeIsPlanned(t *testing.T) {
	t.Parallel()
	for _, reasons := range []bool{false, true} {
		s := server(t, llmtest.LlamaCpp, 8192, model)
		if reasons {
			s.Route("GET /props", 200, `{"default_generation_settings":{"n_ctx":8192},"total_slots":1,"chat_template":"{% if enable_thinking %}<think>{% endif %}"}`)
		}
		s.Respond(answer(""))
		cfg := config(s)
		doctor.Run(context.Background(), cfg)
		reqs := s.Requests()
		want := shape.Plan(cfg.Sends, []parser.GrammarTool{{Name: "DONE", Input: parser.InputText}},
			shape.Known{Server: llm.ServerInfo{Kind: llm.ServerLlamaCpp, Window: 8192, Reasoning: reasons}})
		last := reqs[len(reqs)-1]
		if last.Grammar != want.Grammar || last.MaxTokens != want.ReplyCap || strings.Contains(last.Grammar, `"<think>"`) != reasons {
			t.Errorf("template reasons %v: the protocol probe sent max_tokens %d and\n%s\nwant %d and\n%s", reasons, last.MaxTokens, last.Grammar, want.ReplyCap, want.Grammar)
		}
	}
}

// A server that accepts connections and never answers costs the reach
// timeout, and nothing else is tried.
func TestHungServer(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	t.Cleanup(func() { close(release); srv.Close() })
	cfg := doctor.Config{APIURL: srv.URL + "/v1", Sends: sends(), File: configFile, FileFound: true,
		Timeouts: doctor.Timeouts{Reach: 100 * time.Millisecond}}
	r := doctor.Run(context.Background(), cfg)
	c := check(t, r, doctor.CheckReachable)
	if c.Status != doctor.Fail || c.Detail != "no answer to GET /v1/models within 100 ms" || !strings.Contains(c.Fix, "not stuck") {
		t.Errorf("reachable = %+v", c)
	}
	if n := r.Count(doctor.Skip); n != 9 || check(t, r, doctor.CheckProtocol).Detail != "not checked: the server did not answer" {
		t.Errorf("%d skipped, protocol %+v", n, check(t, r, doctor.CheckProtocol))
	}
}

func TestInterruptedBeforeStart(t *testing.T) {
	t.Parallel()
	s := server(t, llmtest.VLLM, 32768, model)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r := doctor.Run(ctx, config(s))
	if c := check(t, r, doctor.CheckSafety); c.Status != doctor.OK {
		t.Errorf("the safety check needs no server, yet %+v", c)
	}
	if c := check(t, r, doctor.CheckCheckpoints); c.Status != doctor.OK {
		t.Errorf("the checkpoints check needs no server, yet %+v", c)
	}
	for _, c := range r.Checks[1 : len(r.Checks)-2] {
		if c.Status != doctor.Skip || c.Detail != "not checked: interrupted" {
			t.Errorf("%s = %+v, want skipped as interrupted", c.Name, c)
		}
	}
	if len(s.Requests()) != 0 {
		t.Errorf("%d chat requests after an interruption", len(s.Requests()))
	}
}

// Ctrl+C during a probe ends it at once: the rest is skipped.
func TestInterruptedMidRequest(t *testing.T) {
	t.Parallel()
	s := server(t, llmtest.Ollama, 32768, model)
	s.Respond(func(req llmtest.Request) (llmtest.Response, bool) {
		return llmtest.Response{Content: "O", Hang: true}, true
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		<-s.Hanging()
		cancel()
	}()
	r := doctor.Run(ctx, config(s))
	if c := check(t, r, doctor.CheckReachable); c.Status != doctor.OK {
		t.Errorf("reachable = %+v", c)
	}
	for _, name := range []string{doctor.CheckStreaming, doctor.CheckRoles, doctor.CheckProtocol} {
		if c := check(t, r, name); c.Status != doctor.Skip || c.Detail != "not checked: interrupted" {
			t.Errorf("%s = %+v, want skipped as interrupted", name, c)
		}
	}
	if len(s.Requests()) != 1 {
		t.Errorf("%d chat requests, want the one interrupted", len(s.Requests()))
	}
}

func TestLlamaCppAnswersAnyName(t *testing.T) {
	t.Parallel()
	s := server(t, llmtest.LlamaCpp, 32768, "/models/Qwen3-Coder-30B-A3B-Q4_K_M.gguf")
	s.Respond(answer(""))
	r := doctor.Run(context.Background(), config(s))
	c := check(t, r, doctor.CheckModel)
	if c.Status != doctor.OK || c.Detail != "llama.cpp answers any model name with its loaded model (/models/Qwen3-Coder-30B-A3B-Q4_K_M.gguf)" {
		t.Errorf("model = %+v", c)
	}
}

func TestUnlistedModelThatAnswers(t *testing.T) {
	t.Parallel()
	s := server(t, "", 0, "gpt-4.1")
	s.Respond(answer(""))
	r := doctor.Run(context.Background(), config(s))
	c := check(t, r, doctor.CheckModel)
	if c.Status != doctor.Warn || !strings.Contains(c.Detail, `"qwen3-coder" is not in the server's list (gpt-4.1), but the server answered it`) {
		t.Errorf("model = %+v", c)
	}
}

func TestManyModelsClosestFirst(t *testing.T) {
	t.Parallel()
	models := []string{"a/one", "b/two", "c/three", "d/four", "e/five", "f/six", "g/seven", "h/eight", "i/nine", "qwen/qwen3-coder-plus", "qwen/qwen3-coder"}
	s := server(t, llmtest.Generic, 0, models...)
	r := doctor.Run(context.Background(), config(s))
	c := check(t, r, doctor.CheckModel)
	if c.Status != doctor.Fail || !strings.HasPrefix(c.Detail, `the server has no model "qwen3-coder"; it serves qwen/qwen3-coder, qwen/qwen3-coder-plus, `) ||
		!strings.HasSuffix(c.Detail, " and 3 more") {
		t.Errorf("model = %+v", c)
	}
}
