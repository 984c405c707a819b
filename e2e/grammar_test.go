package e2e

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/devagent/dev/llm/llmtest"
	"github.com/devagent/dev/sessions"
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

// constrain auto sends the grammar to llama.cpp, vLLM and SGLang, each in
// its field (vLLM's chosen by the version GET /version gives), and no
// shape to a server whose replies all parse, unless it takes the JSON form
// after a miss (Ollama); every request records the form it carried.
func TestConstrainAutoByServer(t *testing.T) {
	for _, tc := range []struct {
		kind  llmtest.Kind
		field string
	}{
		{llmtest.LlamaCpp, "grammar"},
		{llmtest.VLLM, "structured_outputs.grammar"},
		{llmtest.VLLMOld, "guided_grammar"},
		{llmtest.SGLang, "ebnf"},
		{llmtest.Ollama, ""},
		{llmtest.LMStudio, ""},
		{llmtest.Generic, ""},
	} {
		t.Run(string(tc.kind), func(t *testing.T) {
			w := newWorld(t, nil)
			w.srv.Impersonate(tc.kind, 32768)
			if tc.kind == llmtest.Ollama {
				w.writeConfig(map[string]any{"apiUrl": w.srv.BaseURL(), "model": "mock-model:latest"})
			}
			worker, auditor, _ := grammarRun(t, w)
			for i, req := range append(worker, auditor...) {
				if req.GrammarField != tc.field || req.Schema != "" {
					t.Errorf("request %d: grammar in %q, schema %v; want grammar in %q", i, req.GrammarField, req.Schema != "", tc.field)
				}
			}
			s := w.onlySession()
			want := sessions.NotConstrained
			if tc.field != "" {
				want = sessions.ConstrainedGrammar
			}
			for i, rec := range s.Requests {
				if rec.Constrained != want {
					t.Errorf("record %d (%s): constrained %q, want %q", i, rec.Purpose, rec.Constrained, want)
				}
			}
			raw := w.readHome(filepath.Join("sessions", s.ID+".json"))
			if tc.field == "" && !strings.Contains(raw, `"constrained":false`) || tc.field != "" && !strings.Contains(raw, `"constrained":"grammar"`) {
				t.Errorf("the session file writes constrained otherwise:\n%s", raw)
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
			// nothing of it) is offered no <think> block.
			if strings.Contains(g, `"<think>"`) {
				t.Errorf("a model not known to reason is offered a think block:\n%s", g)
			}
			// The auditor's grammar: its own read-only tools.
			a := auditor[0].Grammar
			if !strings.Contains(a, `"READ_FILE\n\n## Tool Input\n"`) || strings.Contains(a, `"WRITE_FILE\n`) {
				t.Errorf("audit grammar:\n%s", a)
			}
		})
	}
}

// constrain on sends the grammar to any server, in llama.cpp's field, and
// to Ollama the JSON form; constrain off no shape; --constrain wins over
// the file.
func TestConstrainOnAndOff(t *testing.T) {
	w := newWorld(t, map[string]any{"constrain": "on"})
	worker, _, _ := grammarRun(t, w)
	if worker[0].GrammarField != "grammar" {
		t.Errorf("constrain on, generic server: grammar in %q", worker[0].GrammarField)
	}

	w = setUpWorld(t, map[string]any{"constrain": "on"})
	w.srv.Impersonate(llmtest.Ollama, 32768)
	w.writeConfig(map[string]any{"apiUrl": w.srv.BaseURL(), "model": "mock-model:latest", "constrain": "on"})
	worker, auditor, _ := grammarRun(t, w)
	for i, req := range append(worker, auditor...) {
		if req.Grammar != "" || req.Schema == "" || req.SchemaName != "agent_response" {
			t.Errorf("constrain on, Ollama: request %d carried grammar %q, schema %v", i, req.Grammar, req.Schema != "")
		}
	}

	w = setUpWorld(t, map[string]any{"constrain": "off"})
	w.srv.Impersonate(llmtest.LlamaCpp, 32768)
	worker, auditor, _ = grammarRun(t, w)
	if worker[0].Grammar != "" || auditor[0].Grammar != "" || worker[0].Schema != "" {
		t.Errorf("constrain off: a shape was sent")
	}

	w = setUpWorld(t, map[string]any{"constrain": "off"})
	w.srv.Impersonate(llmtest.LlamaCpp, 32768)
	worker, _, _ = grammarRun(t, w, "--constrain", "on")
	if worker[0].GrammarField != "grammar" {
		t.Errorf("--constrain on over constrain off: grammar in %q", worker[0].GrammarField)
	}
	if r := w.run("--constrain", "sometimes", "-p", "x"); r.code != 2 || !strings.Contains(r.stderr, "--constrain") || !strings.Contains(r.stderr, "json") {
		t.Errorf("--constrain sometimes: exit %d\n%s", r.code, r.stderr)
	}
	if r := w.run("config", "show"); !strings.Contains(r.stdout, "constrain") || !strings.Contains(r.stdout, "off") {
		t.Errorf("config show lacks constrain:\n%s", r.stdout)
	}
}

// constrain json sends the JSON form to any server, every request, the
// model told so in the messages from the start (after the system prompt,
// which stays as it is, so that the prompt prefix stays cached); a reply
// in the JSON form is the template before the history, the session,
// --json and the transcript see it (SPEC §18).
func TestConstrainJSON(t *testing.T) {
	w := newWorld(t, map[string]any{"constrain": "json"})
	w.srv.Script(
		llmtest.Response{Content: llmtest.Template("Look first.", "[~] look\n[ ] answer", llmtest.Call{Tool: "COMMAND", Input: "ls"})},
		done("Looked."),
		verdict("ls ran.\n\nOverall: PASS"),
	)
	r := w.run("-p", "look around", "--json")
	r.expect(t, 0)
	reqs := w.srv.Requests()
	var worker []llmtest.Request
	for i, req := range reqs {
		if req.Schema == "" || req.Grammar != "" {
			t.Errorf("request %d carried no JSON form", i)
		}
		if len(req.Messages) < 2 || !strings.HasPrefix(req.Messages[1].Content, "Answer with one JSON object and nothing else") {
			t.Errorf("request %d does not tell the model of the JSON form after the system prompt:\n%+v", i, req.Messages)
		}
		if !isAudit(req) {
			worker = append(worker, req)
		}
	}
	if worker[0].Messages[0].Content != worker[1].Messages[0].Content || strings.Contains(worker[0].Messages[0].Content, "JSON object") {
		t.Error("the system prompt changed, or holds the JSON form")
	}
	// Each request's prompt is the last one's and more: the server's
	// prompt cache keeps it all, the note included.
	for i, m := range worker[0].Messages {
		if worker[1].Messages[i] != m {
			t.Errorf("message %d of the first request changed in the second: %q", i, m.Content)
		}
	}
	s := w.onlySession()
	for i, rec := range s.Requests {
		if rec.Constrained != sessions.ConstrainedJSON {
			t.Errorf("record %d: constrained %q", i, rec.Constrained)
		}
	}
	for _, m := range s.History {
		if m.Role == "assistant" && !strings.HasPrefix(m.Content, "# Agent Response\n\n## Thoughts\n") {
			t.Errorf("the history holds a reply that is not the template: %q", m.Content)
		}
	}
	// The history, and so the next request, holds the template.
	if !strings.Contains(allContent(worker[1]), "## Tool Choice\nCOMMAND\n\n## Tool Input\nls") {
		t.Errorf("the second request does not show the first reply as the template:\n%s", allContent(worker[1]))
	}
	evs := eventsOfType(jsonEvents(t, r.stdout), "response")
	if len(evs) == 0 || evs[0]["thoughts"] != "Look first." || len(evs[0]["tasks"].([]any)) != 2 {
		t.Errorf("--json response events %v", evs)
	}
	show := w.run("sessions", "show", s.ID)
	if !strings.Contains(show.stdout, "Look first.") || strings.Contains(show.stdout, `"thoughts"`) {
		t.Errorf("the transcript:\n%s", show.stdout)
	}
	if st := w.run("stats", "--json"); !strings.Contains(st.stdout, `"jsonReplies": 3`) {
		t.Errorf("dev stats --json:\n%s", st.stdout)
	}
}

// With constrain auto, Ollama gets the JSON form on the retry after a
// format error and on every later request of the run, the auditor's too;
// the model is told so in the messages from the format error on, the
// system prompt unchanged.
func TestOllamaTurnsToJSONAfterAMiss(t *testing.T) {
	w := newWorld(t, nil)
	w.srv.Impersonate(llmtest.Ollama, 32768)
	w.writeConfig(map[string]any{"apiUrl": w.srv.BaseURL(), "model": "mock-model:latest"})
	w.srv.Script(
		llmtest.Response{Content: "Sure! Here is a script:\n```python\nprint('hi')\n```"},
		reply("Look.", "COMMAND", "ls"),
		done("Looked."),
		verdict("ls ran.\n\nOverall: PASS"),
	)
	r := w.run("-p", "look around")
	r.expect(t, 0)
	reqs := w.srv.Requests()
	if len(reqs) != 4 || reqs[0].Schema != "" {
		t.Fatalf("%d requests, the first with a schema %v", len(reqs), reqs[0].Schema != "")
	}
	for i, req := range reqs[1:] {
		if req.Schema == "" || len(req.Messages) < 2 || !strings.HasPrefix(req.Messages[1].Content, "Answer with one JSON object") {
			t.Errorf("request %d after the miss lacks the JSON form or its note", i+1)
		}
		if req.Messages[0].Content != reqs[0].Messages[0].Content && !isAudit(req) {
			t.Errorf("request %d: the system prompt changed", i+1)
		}
	}
	if retry := lastUser(reqs[1]); !strings.HasPrefix(retry, "Your reply could not be used") || strings.Contains(retry, "Answer with the template only") {
		t.Errorf("the retry's message:\n%s", retry)
	}
	var forms []sessions.Constrained
	for _, rec := range w.onlySession().Requests {
		forms = append(forms, rec.Constrained)
	}
	if !slices.Equal(forms, []sessions.Constrained{"", "json", "json", "json"}) {
		t.Errorf("records constrained %q", forms)
	}
}

// A server that takes the grammar and ignores it is found out: one
// warning, the request recorded as not shaped, and the JSON form from then
// on where the server takes it. Here a vLLM that says 0.10.1 (so dev sends
// guided_grammar) but reads only structured_outputs, as vLLM 0.12 does.
func TestIgnoredGrammarFoundOut(t *testing.T) {
	w := newWorld(t, nil)
	w.srv.Impersonate(llmtest.VLLM, 32768)
	w.srv.Route("GET /version", 200, `{"version":"0.10.1"}`)
	w.srv.Script(
		llmtest.Response{Content: "Sure! Here is a script:\n```python\nprint('hi')\n```"},
		done("Hello."),
	)
	r := w.run("--no-audit", "-p", "say hello")
	r.expect(t, 0)
	if n := strings.Count(r.stderr, "the server ignored the reply grammar (sent in guided_grammar)"); n != 1 {
		t.Errorf("%d warnings that the grammar was ignored, want 1:\n%s", n, r.stderr)
	}
	reqs := w.srv.Requests()
	if len(reqs) != 2 || reqs[0].GrammarField != "guided_grammar" || reqs[1].Grammar != "" || reqs[1].Schema == "" {
		t.Fatalf("requests: %d, the second with grammar %q and schema %v", len(reqs), reqs[1].Grammar, reqs[1].Schema != "")
	}
	var forms []sessions.Constrained
	for _, rec := range w.onlySession().Requests {
		forms = append(forms, rec.Constrained)
	}
	if !slices.Equal(forms, []sessions.Constrained{"", "json"}) {
		t.Errorf("records constrained %q", forms)
	}
}

// The grammar offers a <think> block only to a model known to reason:
// asked to think, or with thinking auto one whose chat template reasons;
// with thinking off, or a model that shows no reasoning, none (SPEC §18).
func TestConstrainThinkBlock(t *testing.T) {
	for _, tc := range []struct {
		thinking string
		template string
		think    bool
	}{{"high", "", true}, {"auto", "", false}, {"auto", "{% if enable_thinking %}<think>{% endif %}", true}, {"off", "<think>", false}} {
		t.Run(tc.thinking+"/"+tc.template, func(t *testing.T) {
			w := newWorld(t, map[string]any{"thinking": tc.thinking})
			w.srv.Impersonate(llmtest.LlamaCpp, 32768)
			if tc.template != "" {
				props, _ := json.Marshal(map[string]any{"default_generation_settings": map[string]any{"n_ctx": 32768}, "total_slots": 1, "chat_template": tc.template})
				w.srv.Route("GET /props", 200, string(props))
			}
			worker, auditor, _ := grammarRun(t, w)
			for who, g := range map[string]string{"worker": worker[0].Grammar, "auditor": auditor[0].Grammar} {
				if strings.Contains(g, `"<think>"`) != tc.think {
					t.Errorf("thinking %s, template %q: the %s's grammar offers a think block %v, want %v", tc.thinking, tc.template, who, !tc.think, tc.think)
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
// without it; dev warns once and sends no shape for the rest of the run.
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
		if req.Grammar != "" || req.Schema != "" {
			t.Errorf("request %d after the rejection carried a shape", i+1)
		}
	}
	for i, rec := range w.onlySession().Requests {
		if rec.Constrained != sessions.NotConstrained {
			t.Errorf("record %d says constrained %q after the rejection", i, rec.Constrained)
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
