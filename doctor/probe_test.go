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
	if f.GrammarAccepted == nil || !*f.GrammarAccepted || f.GrammarApplied == nil || !*f.GrammarApplied || f.GrammarField != "grammar" ||
		!f.ProtocolConstrained || f.ProtocolMaxTokens != 2048 {
		t.Errorf("grammar facts = %+v", f)
	}
	if !r.OK || r.Count(doctor.Warn) != 1 || r.Count(doctor.OK) != 11 {
		t.Errorf("report OK %v, %d ok, %d warnings", r.OK, r.Count(doctor.OK), r.Count(doctor.Warn))
	}
}

// The probes send what a run sends: no tools, the run's temperature, the
// shape of every request; and only the protocol probe is more than a token.
func TestProbeRequests(t *testing.T) {
	t.Parallel()
	s := server(t, llmtest.VLLM, 32768, model)
	s.Respond(answer(""))
	cfg := config(s)
	cfg.Temperature, cfg.MaxTokens = ptr(0.2), ptr(4096)
	doctor.Run(context.Background(), cfg)
	reqs := s.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d chat requests, want 4 (streaming, roles, grammar, protocol)", len(reqs))
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
	}{{"user", 1}, {"system,user,assistant,user", 1}, {"user", 8}, {"system,user", 4096}}
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
	if !strings.Contains(reqs[3].Messages[0].Content, "# Agent Response") || !strings.Contains(reqs[3].Messages[1].Content, "tool DONE, input OK") {
		t.Errorf("the protocol probe does not ask for the template:\n%+v", reqs[3].Messages)
	}
	// On vLLM with constrain auto, the grammar probe and the protocol
	// probe carry a grammar, in vLLM's field; the others none.
	for i, want := range []string{"", "", "structured_outputs.grammar", "structured_outputs.grammar"} {
		if reqs[i].GrammarField != want {
			t.Errorf("request %d carried a grammar in %q, want %q", i, reqs[i].GrammarField, want)
		}
	}
	if g := reqs[3].Grammar; !strings.Contains(g, `"DONE\n\n## Tool Input\n"`) || strings.Contains(g, "READ_FILE") {
		t.Errorf("the protocol probe's grammar is not DONE's alone:\n%s", g)
	}
}

// With maxTokens unset the protocol probe is capped as a run would be (a
// quarter of the window), and with constrain off it carries no grammar;
// the grammar probe sends the worker's grammar when given.
func TestProtocolProbeAsARun(t *testing.T) {
	t.Parallel()
	s := server(t, llmtest.LlamaCpp, 8192, model)
	s.Respond(answer(""))
	cfg := config(s)
	cfg.Constrain, cfg.Grammar = "off", "root ::= \"# Agent Response\\n\""
	r := doctor.Run(context.Background(), cfg)
	reqs := s.Requests()
	if len(reqs) != 4 || reqs[2].Grammar != cfg.Grammar || reqs[3].Grammar != "" || reqs[3].MaxTokens != 2048 {
		t.Fatalf("requests: grammar probe %q, protocol probe grammar %q max_tokens %d", reqs[2].Grammar, reqs[3].Grammar, reqs[3].MaxTokens)
	}
	if r.Facts.ProtocolConstrained || r.Facts.ProtocolMaxTokens != 2048 {
		t.Errorf("facts %+v", r.Facts)
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
	cfg := doctor.Config{APIURL: srv.URL + "/v1", Model: model, MaxContextTokens: 131072, File: configFile, FileFound: true,
		Timeouts: doctor.Timeouts{Reach: 100 * time.Millisecond}}
	r := doctor.Run(context.Background(), cfg)
	c := check(t, r, doctor.CheckReachable)
	if c.Status != doctor.Fail || c.Detail != "no answer to GET /v1/models within 100 ms" || !strings.Contains(c.Fix, "not stuck") {
		t.Errorf("reachable = %+v", c)
	}
	if n := r.Count(doctor.Skip); n != 8 || check(t, r, doctor.CheckProtocol).Detail != "not checked: the server did not answer" {
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
