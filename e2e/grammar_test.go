package e2e

import (
	"fmt"
	"github.com/devagent/dev/llm"
	"strings"
	"testing"

	"github.com/devagent/dev/llm/llmtest"
)

// SPEC §18 through the binary, against mock servers that answer like
// llama.cpp and vLLM (old and new) as the fixtures record them.

// grammarRun runs a small audited task (a command, so that the audit runs)
// and returns the worker's and the auditor's requests.
func grammarRun(t *testing.T, w *world, args ...string) (worker, auditor []llmtest.Request, r result) {
	t.Helper()
	w.srv.Script(
		reply("Look.", "COMMAND", "ls"),
		done("Looked."),
		verdict("ls ran.\n\nOverall: PASS"),
	)
	r = w.run(append([]string{"-p", "look around"}, args...)...)
	r.expect(t, 0)
	for _, req := range w.srv.Requests() {
		if isAudit(req) {
			auditor = append(auditor, req)
		} else {
			worker = append(worker, req)
		}
	}
	if len(worker) < 2 || len(auditor) != 1 {
		t.Fatalf("%d worker and %d audit requests, want 2 (3 with a rejected one) and 1", len(worker), len(auditor))
	}
	return worker, auditor, r
}

// constrain auto sends the grammar to llama.cpp and vLLM, each in its
// field (vLLM's chosen by the version GET /version gives), and to no other
// server; every request records whether it was constrained.
func TestConstrainAutoByServer(t *testing.T) {
	for _, tc := range []struct {
		kind  llmtest.Kind
		field string
	}{
		{llmtest.LlamaCpp, "grammar"},
		{llmtest.VLLM, "structured_outputs.grammar"},
		{llmtest.VLLMOld, "guided_grammar"},
		{llmtest.Ollama, ""},
		{llmtest.Generic, ""},
	} {
		t.Run(string(tc.kind), func(t *testing.T) {
			w := newWorld(t, nil)
			w.srv.Impersonate(tc.kind, 32768)
			if tc.kind == llmtest.Ollama {
				w.writeConfig(map[string]any{"apiUrl": w.srv.BaseURL(), "model": "mock-model:latest"})
			}
			worker, auditor, _ := grammarRun(t, w)
			for i, req := range worker {
				if req.GrammarField != tc.field {
					t.Errorf("worker request %d: grammar in %q, want %q", i, req.GrammarField, tc.field)
				}
			}
			if auditor[0].GrammarField != tc.field {
				t.Errorf("audit request: grammar in %q, want %q", auditor[0].GrammarField, tc.field)
			}
			s := w.onlySession()
			for i, rec := range s.Requests {
				if rec.Constrained != (tc.field != "") {
					t.Errorf("record %d (%s): constrained %v", i, rec.Purpose, rec.Constrained)
				}
			}
			if tc.field == "" {
				return
			}
			// The worker's grammar: its tools, no ASK_USER in -p, and the
			// same bytes in every request (the prompt cache is untouched).
			g := worker[0].Grammar
			if !strings.HasPrefix(g, "root ::= ") || !strings.Contains(g, `"WRITE_FILE\n\n## Tool Input\n"`) || strings.Contains(g, `"ASK_USER\n`) {
				t.Errorf("worker grammar:\n%s", g)
			}
			if worker[1].Grammar != g {
				t.Error("the worker's grammar differs between requests")
			}
			// A model not known to reason (the mock's template says
			// nothing of it) is offered only a short <think> block.
			if !strings.Contains(g, fmt.Sprintf(`"<think>" think-char{0,%d}`, llm.ShortThinkChars)) {
				t.Errorf("a model not known to reason is not offered a short think block:\n%s", g)
			}
			// The auditor's grammar: its own read-only tools.
			a := auditor[0].Grammar
			if !strings.Contains(a, `"READ_FILE\n\n## Tool Input\n"`) || strings.Contains(a, `"WRITE_FILE\n`) {
				t.Errorf("audit grammar:\n%s", a)
			}
		})
	}
}

// constrain on sends the grammar to any server, in llama.cpp's field;
// constrain off to none; --constrain wins over the file.
func TestConstrainOnAndOff(t *testing.T) {
	w := newWorld(t, map[string]any{"constrain": "on"})
	worker, _, _ := grammarRun(t, w)
	if worker[0].GrammarField != "grammar" {
		t.Errorf("constrain on, generic server: grammar in %q", worker[0].GrammarField)
	}

	w = setUpWorld(t, map[string]any{"constrain": "off"})
	w.srv.Impersonate(llmtest.LlamaCpp, 32768)
	worker, auditor, _ := grammarRun(t, w)
	if worker[0].Grammar != "" || auditor[0].Grammar != "" {
		t.Errorf("constrain off: a grammar was sent")
	}

	w = setUpWorld(t, map[string]any{"constrain": "off"})
	w.srv.Impersonate(llmtest.LlamaCpp, 32768)
	worker, _, _ = grammarRun(t, w, "--constrain", "on")
	if worker[0].GrammarField != "grammar" {
		t.Errorf("--constrain on over constrain off: grammar in %q", worker[0].GrammarField)
	}
	if r := w.run("--constrain", "sometimes", "-p", "x"); r.code != 2 || !strings.Contains(r.stderr, "--constrain") {
		t.Errorf("--constrain sometimes: exit %d\n%s", r.code, r.stderr)
	}
	if r := w.run("config", "show"); !strings.Contains(r.stdout, "constrain") || !strings.Contains(r.stdout, "off") {
		t.Errorf("config show lacks constrain:\n%s", r.stdout)
	}
}

// Unless thinking is off, the model may start with a <think> block
// (llama.cpp applies the grammar to the reasoning too): of any length when
// asked to think, short (llm.ShortThinkChars) for a model not known to
// reason with thinking auto; with thinking off, none.
func TestConstrainThinkBlock(t *testing.T) {
	bound := fmt.Sprintf("{0,%d}", llm.ShortThinkChars)
	for _, tc := range []struct {
		thinking     string
		think, short bool
	}{{"high", true, false}, {"auto", true, true}, {"off", false, false}} {
		t.Run(tc.thinking, func(t *testing.T) {
			w := newWorld(t, map[string]any{"thinking": tc.thinking})
			w.srv.Impersonate(llmtest.LlamaCpp, 32768)
			worker, auditor, _ := grammarRun(t, w)
			for who, g := range map[string]string{"worker": worker[0].Grammar, "auditor": auditor[0].Grammar} {
				if strings.Contains(g, `"<think>"`) != tc.think || strings.Contains(g, bound) != tc.short {
					t.Errorf("thinking %s: the %s's grammar has a think block %v (want %v), bounded %v (want %v):\n%s",
						tc.thinking, who, strings.Contains(g, `"<think>"`), tc.think, strings.Contains(g, bound), tc.short, g)
				}
			}
		})
	}
}

// Interactive runs offer ASK_USER, and so does their grammar.
func TestConstrainInteractiveOffersAskUser(t *testing.T) {
	w := newWorld(t, nil)
	w.srv.Impersonate(llmtest.LlamaCpp, 32768)
	w.srv.Script(done("Hello."))
	w.runInput("say hello\n", "--no-audit").expect(t, 0)
	reqs := w.srv.Requests()
	if len(reqs) != 1 || !strings.Contains(reqs[0].Grammar, `"ASK_USER\n\n## Tool Input\n"`) {
		t.Errorf("interactive grammar lacks ASK_USER:\n%s", reqs[0].Grammar)
	}
}

// A server that rejects the grammar (llama.cpp's 400) is asked again
// without it; dev warns once and sends none for the rest of the run.
func TestGrammarRejectedWarnsOnce(t *testing.T) {
	w := newWorld(t, nil)
	w.srv.Impersonate(llmtest.LlamaCpp, 32768)
	w.srv.RejectGrammar()
	_, _, r := grammarRun(t, w)
	if n := strings.Count(r.stderr, "rejected the reply grammar"); n != 1 || !strings.Contains(r.stderr, "failed to parse grammar") {
		t.Errorf("%d warnings about the rejected grammar, want 1:\n%s", n, r.stderr)
	}
	all := w.srv.Requests()
	if len(all) != 4 || all[0].Grammar == "" {
		t.Fatalf("%d requests, the first with grammar %v: want the rejected one and three more", len(all), all[0].Grammar != "")
	}
	for i, req := range all[1:] {
		if req.Grammar != "" {
			t.Errorf("request %d after the rejection carried a grammar", i+1)
		}
	}
	for i, rec := range w.onlySession().Requests {
		if rec.Constrained {
			t.Errorf("record %d says constrained after the rejection", i)
		}
	}
}

// Without maxTokens every request carries max_tokens of a quarter of the
// context window, at most 16,384; maxTokens wins when set.
func TestDefaultMaxTokens(t *testing.T) {
	for _, tc := range []struct {
		name   string
		kind   llmtest.Kind
		window int
		cfg    map[string]any
		want   int
	}{
		{"llama.cpp window", llmtest.LlamaCpp, 8192, nil, 2048},
		{"the configured window", llmtest.Generic, 0, nil, 16384},
		{"a small configured window", llmtest.Generic, 0, map[string]any{"maxContextTokens": 12000}, 3000},
		{"maxTokens", llmtest.LlamaCpp, 8192, map[string]any{"maxTokens": 300}, 300},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t, tc.cfg)
			w.srv.Impersonate(tc.kind, tc.window)
			w.srv.Script(done("Hi."))
			w.run("--no-audit", "-p", "hi").expect(t, 0)
			if got := w.srv.Requests()[0].MaxTokens; got != tc.want {
				t.Errorf("max_tokens %d, want %d", got, tc.want)
			}
			if got := w.onlySession().Requests[0].MaxTokens; got != tc.want {
				t.Errorf("the record says maxTokens %d, want %d", got, tc.want)
			}
		})
	}
}

// A reply cut by the cap says so and names maxTokens, to the model and to
// the user, not "does not follow the template"; and the retry counter
// never shows more than its limit.
func TestReplyCutByTheCap(t *testing.T) {
	w := newWorld(t, map[string]any{"maxRetriesAutomated": 2})
	w.srv.Impersonate(llmtest.LlamaCpp, 8192)
	cut := llmtest.Response{Content: "# Agent Response\n\n## Thoughts\nI will think about this for a very long", FinishReason: "length"}
	w.srv.Script(cut, cut, cut)
	r := w.run("--no-audit", "-p", "write a long file")
	r.expect(t, 5)
	for _, want := range []string{"reply cut off at the default maxTokens (2,048 tokens) (1/2)", "(2/2, giving up)", "│ # Agent Response",
		"cut off at the output limit of 2,048 tokens", "set maxTokens in " + w.home} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	if strings.Contains(r.stderr, "(3/2") || strings.Contains(r.stderr, "does not follow the template") {
		t.Errorf("stderr:\n%s", r.stderr)
	}
	reqs := w.srv.Requests()
	if got := lastUser(reqs[1]); !strings.Contains(got, "cut off at the output limit of 2048 tokens (maxTokens)") {
		t.Errorf("the model was told %q", got)
	}
}

// What the model wrote stays visible: a rejected reply's first and last
// lines show on the terminal and in --json, are kept with the request that
// got it (never in the history), and dev sessions show shows them.
func TestRejectedReplyKeptAndShown(t *testing.T) {
	w := newWorld(t, nil)
	garbage := "Sure! Here is a script:\n\n```python\nimport os\n" + strings.Repeat("print('x')\n", 30) + "```\nHope this helps!"
	w.srv.Script(llmtest.Response{Content: garbage}, done("Done now."))
	r := w.run("--no-audit", "-p", "do it")
	r.expect(t, 0)
	for _, want := range []string{"reply not in the expected format (1/3)", "│ Sure! Here is a script:", "│ Hope this helps!", "lines in all"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	s := w.onlySession()
	rec := s.Requests[0]
	if rec.Rejected == nil || rec.Rejected.Head[0] != "Sure! Here is a script:" || rec.Rejected.Tail[len(rec.Rejected.Tail)-1] != "Hope this helps!" ||
		!strings.Contains(rec.Rejected.Problem, "Tool Choice") || s.Requests[1].Rejected != nil {
		t.Errorf("records %+v", s.Requests)
	}
	for _, m := range s.History {
		if strings.Contains(m.Content, "Hope this helps") {
			t.Errorf("the rejected reply is in the history: %q", m.Content)
		}
	}
	show := w.run("sessions", "show", s.ID)
	show.expect(t, 0)
	for _, want := range []string{"reply not in the expected format: ", "│ Sure! Here is a script:", "│ Hope this helps!"} {
		if !strings.Contains(show.stdout, want) {
			t.Errorf("sessions show lacks %q:\n%s", want, show.stdout)
		}
	}
	if i, j := strings.Index(show.stdout, "Sure! Here"), strings.Index(show.stdout, "Done now."); i < 0 || j < i {
		t.Errorf("the rejected reply is not before the answer that followed it:\n%s", show.stdout)
	}

	w.srv.Script(llmtest.Response{Content: "no template here"}, done("Fine."))
	r = w.run("--no-audit", "-p", "again", "--json")
	r.expect(t, 0)
	evs := eventsOfType(jsonEvents(t, r.stdout), "format_error")
	if len(evs) != 1 || evs[0]["head"].([]any)[0] != "no template here" || evs[0]["final"] != false || evs[0]["cut"] != false {
		t.Errorf("format_error events %v", evs)
	}
}
