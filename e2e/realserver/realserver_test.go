package realserver

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/devagent/dev/llm"
	"github.com/devagent/dev/llm/llmtest"
	"github.com/devagent/dev/sessions"
)

// The tests share servers and the machine's two cores: they run one at a
// time (no t.Parallel), each server used by one test at a time, so that a
// slot's prompt cache belongs to one conversation.

// dev doctor against the real server: what it reads from /props and sees of
// streaming, usage and the protocol probe.
func TestDoctorOnLlamaCpp(t *testing.T) {
	// Two slots: the per-slot window is half of -c, which only /props says.
	srv := server(t, "gemma3", 8192, 2)
	w := newWorld(t, map[string]any{"apiUrl": srv.BaseURL(), "model": "gemma3", "temperature": 0, "maxTokens": 64})
	rep := w.doctor()
	f := rep.Facts
	if f["server"] != "llama.cpp" || !strings.HasPrefix(fmt.Sprint(f["version"]), "b11434") {
		t.Errorf("server %v version %v, want llama.cpp b11434", f["server"], f["version"])
	}
	if f["contextWindow"] != 4096.0 || !strings.Contains(fmt.Sprint(f["contextWindowSource"]), "/props") {
		t.Errorf("window %v from %v, want the slot's 4096 from /props", f["contextWindow"], f["contextWindowSource"])
	}
	if f["usage"] != true || f["streamOptionsAccepted"] != true {
		t.Errorf("usage %v, stream_options accepted %v: llama.cpp reports usage when asked", f["usage"], f["streamOptionsAccepted"])
	}
	checks := map[string]string{}
	details := map[string]string{}
	for _, c := range rep.Checks {
		checks[c.Name], details[c.Name] = c.Status, c.Detail
		t.Logf("%-9s %-4s %s %s", c.Name, c.Status, c.Detail, c.Fix)
	}
	for _, name := range []string{"reachable", "server", "model", "roles", "grammar"} {
		if checks[name] != "ok" {
			t.Errorf("check %s: %q, want ok", name, checks[name])
		}
	}
	// llama.cpp applies the grammar and the JSON form (the probes' nonce
	// came back exactly), and the protocol probe goes shaped by the
	// grammar, as a run would (SPEC §18).
	if f["grammar"] != "applied" || f["jsonForm"] != "applied" || f["grammarField"] != "grammar" || f["protocolShape"] != "grammar" {
		t.Errorf("shape facts: %v", f)
	}
	if checks["json"] != "ok" {
		t.Errorf("check json: %q, want ok", checks["json"])
	}
	// The protocol probe ran; on a loaded CPU it may not finish in the
	// probe's time, and then it says so.
	if s := checks["protocol"]; s != "ok" && s != "warn" && s != "fail" {
		t.Errorf("protocol check %q: the probe did not run", s)
	}
	if _, parsed := f["protocolParsed"]; !strings.HasPrefix(details["protocol"], "no complete reply within") && !parsed {
		t.Errorf("the protocol probe got a whole reply but says nothing of whether it parsed: %v", f)
	}
	if want := map[bool]string{true: "ok", false: "fail"}[f["protocolParsed"] == true]; checks["protocol"] != want && checks["protocol"] != "warn" {
		t.Errorf("protocol check %q with protocolParsed %v: a probe without a parseable reply fails", checks["protocol"], f["protocolParsed"])
	}
}

// Gemma 3's chat template raises an error unless the roles after the system
// message alternate user/assistant. Every request dev sends in a session
// that goes through a format error, tools, a compression, an audit, and a
// resumed interactive turn with an ASK_USER answer must pass it.
func TestStrictTemplateAcceptsEveryRequestShape(t *testing.T) {
	g := newGate(t, server(t, "gemma3", 8192, 1), "gemma3")
	// constrain on: the gate is no llama.cpp to discovery, but every
	// request reaches the real one with its grammar (the worker's, the
	// auditor's), which must be accepted in every shape too.
	conf := map[string]any{"apiUrl": g.BaseURL(), "model": "gemma3", "maxContextTokens": 4000,
		"temperature": 0, "maxRetriesAutomated": 2, "requestTimeout": 600, "constrain": "on"}
	w := newWorld(t, conf)
	var notes strings.Builder
	for i := range 400 {
		fmt.Fprintf(&notes, "note %03d: the build step copies files into place\n", i)
	}
	w.write("notes.txt", notes.String())
	// The format errors are replies cut at their cap: one outside the
	// template would show a server that ignored the grammar, and dev would
	// send no more (SPEC §18).
	cut := llmtest.Response{Content: "# Agent Response\n\n## Thoughts\nI will read the notes", FinishReason: "length"}
	g.Script(
		cut, // a format error
		cut, // a second one: the example is shown
		reply("Read the notes.", "READ_FILE", "notes.txt"),
		llmtest.Response{Content: "The notes list 400 build steps; the user wants a one-line summary in summary.txt."}, // the summary
		reply("Write the summary.", "WRITE_FILE", "\"summary.txt\"\n```\n400 notes about the build step.\n```"),
		reply("Check it.", "COMMAND", "cat summary.txt"),
		reply("Done.", "DONE", "Wrote summary.txt."),
		reply("Checked.", "DONE", "summary.txt exists with one line.\n\nOverall: PASS"), // the audit
	)
	r := w.run("", "-p", "Summarise notes.txt in one line into summary.txt", "--json")
	if r.code != 0 {
		t.Fatalf("first run: exit %d\n%s", r.code, r.stderr)
	}
	evs := events(t, r.stdout)
	if n := len(ofType(evs, "format_error")); n != 2 {
		t.Errorf("%d format errors, want 2", n)
	}
	if n := len(ofType(evs, "compression")); n != 1 {
		t.Errorf("%d compressions, want 1 (the notes outgrow 85%% of 4,000 tokens)", n)
	}

	// A resumed session, interactive: stdin is not a terminal, so each line
	// is a message; the second answers ASK_USER.
	g.Script(
		reply("Ask.", "ASK_USER", "Which title should the summary have?"),
		reply("Add it.", "WRITE_FILE", "\"summary.txt\"\n```\n# Build\n400 notes about the build step.\n```"),
		reply("Done.", "DONE", "Added the title."),
		reply("Checked.", "DONE", "The title is there.\n\nOverall: PASS"),
	)
	r = w.run("Add a title to summary.txt\nBuild\n", "--resume")
	if r.code != 0 {
		t.Errorf("resumed run: exit %d\n%s", r.code, r.stderr)
	}

	// A run that stops at maxLoops leaves the history ending in a tool
	// result; the next message resumes it with two user turns in a row,
	// which only dev's normalisation makes acceptable.
	conf["maxLoops"] = 1
	w.writeConfig(conf)
	g.Script(reply("Count them.", "COMMAND", "wc -l notes.txt"))
	if r = w.run("", "--no-audit", "--resume", "-p", "How many notes are there?"); r.code != 4 {
		t.Errorf("run stopped by maxLoops: exit %d, want 4\n%s", r.code, r.stderr)
	}
	conf["maxLoops"] = 10
	w.writeConfig(conf)
	g.Script(reply("Done.", "DONE", "There are 400 notes."))
	if r = w.run("", "--no-audit", "--resume", "-p", "Go on."); r.code != 0 {
		t.Errorf("resumed after maxLoops: exit %d\n%s", r.code, r.stderr)
	}

	// Each shape, by what marks it; every request must have been accepted.
	shapes := []struct {
		name string
		is   func(e exchange) bool
	}{
		{"first request", func(e exchange) bool { return purpose(e.messages) == "worker" && len(e.messages) == 2 }},
		{"after a format error", func(e exchange) bool { return strings.HasPrefix(lastUser(e), "Your reply could not be used") }},
		{"the example exchange, after two format errors", func(e exchange) bool {
			return purpose(e.messages) == "worker" && len(e.messages) > 2 && strings.Contains(e.messages[1].Content, "Make greet.py print Hello")
		}},
		{"a tool result, the format error cleaned up", func(e exchange) bool {
			return strings.HasPrefix(lastUser(e), "<tool_result") && !strings.Contains(fmt.Sprint(e.messages), "Your reply could not be used")
		}},
		{"the summary request", func(e exchange) bool { return purpose(e.messages) == "compress" }},
		{"after compression", func(e exchange) bool {
			return purpose(e.messages) == "worker" && slices.ContainsFunc(e.messages[1:], func(m llm.Message) bool {
				return strings.HasPrefix(m.Content, "[CONTEXT SUMMARY]")
			})
		}},
		{"an ASK_USER answer in a resumed session", func(e exchange) bool { return strings.Contains(lastUser(e), `tool="ASK_USER"`) }},
		{"the audit", func(e exchange) bool { return purpose(e.messages) == "audit" }},
		{"a message after a run stopped by maxLoops", func(e exchange) bool { return strings.Contains(lastUser(e), "Go on.") }},
	}
	all := g.rec.all()
	for i, e := range all {
		if e.status != 200 {
			t.Errorf("request %d (%s, roles %s) rejected by llama-server: %d %s", i, purpose(e.messages), roles(e.messages), e.status, e.body)
		}
		if p := purpose(e.messages); (p == "worker" || p == "audit") && !e.grammar {
			t.Errorf("request %d (%s) carried no grammar with constrain on", i, p)
		}
	}
	for _, s := range shapes {
		n := 0
		for _, e := range all {
			if s.is(e) {
				n++
			}
		}
		t.Logf("%-45s %d request(s)", s.name, n)
		if n == 0 {
			t.Errorf("no request of the shape %q reached the real template", s.name)
		}
	}
	if c, ok := w.read("summary.txt"); !ok || !strings.HasPrefix(c, "# Build") {
		t.Errorf("summary.txt = %q", c)
	}
	w.sessions()
}

func lastUser(e exchange) string {
	for i := len(e.messages) - 1; i >= 0; i-- {
		if e.messages[i].Role == "user" {
			return e.messages[i].Content
		}
	}
	return ""
}

func roles(msgs []llm.Message) string {
	var b strings.Builder
	for i, m := range msgs {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(m.Role)
	}
	return b.String()
}

// The prompt cache works for dev: each worker request of a run reuses at
// least 90% of the previous request's prompt from llama.cpp's slot cache
// (timings.cache_n against the previous cache_n + prompt_n).
func TestPromptCacheReuse(t *testing.T) {
	g := newGate(t, server(t, "smollm2", 8192, 1), "smollm2")
	w := newWorld(t, map[string]any{"apiUrl": g.BaseURL(), "model": "smollm2", "temperature": 0, "requestTimeout": 600})
	w.write("a.txt", strings.Repeat("alpha line\n", 40))
	w.write("b.txt", strings.Repeat("beta line\n", 40))
	g.Script(
		reply("Look around.", "LIST_DIRECTORY", ""),
		reply("Read a.", "READ_FILE", "a.txt"),
		reply("Read b.", "READ_FILE", "b.txt"),
		reply("Join them.", "COMMAND", "cat a.txt b.txt > c.txt && wc -l c.txt"),
		reply("Check.", "READ_FILE", "c.txt 1-5"),
		reply("Done.", "DONE", "c.txt joins a.txt and b.txt."),
	)
	r := w.run("", "--no-audit", "-p", "Join a.txt and b.txt into c.txt")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	ss := w.sessions()
	if len(ss) != 1 {
		t.Fatalf("%d sessions, want 1", len(ss))
	}
	checkCacheReuse(t, ss[0].Requests, 6)
}

// checkCacheReuse checks, from dev's own request records (cachedTokens,
// SPEC §16), that each worker request after the first took at least 90% of
// the previous one's prompt from the cache; want is the number of worker
// requests expected (at least 5).
func checkCacheReuse(t *testing.T, records []record, want int) {
	t.Helper()
	for i, r := range records {
		cached := "no cachedTokens"
		if r.CachedTokens != nil {
			cached = fmt.Sprintf("%d cached", *r.CachedTokens)
		}
		t.Logf("request %d (%s): %d prompt tokens, %s", i, r.Purpose, r.PromptTokens, cached)
		if r.Purpose == "worker" && r.CachedTokens == nil {
			t.Errorf("worker request %d has no cachedTokens in its record", i)
		}
	}
	least, n := minReuse(records)
	if n < want {
		t.Errorf("%d worker requests, want %d", n, want)
	}
	if least < 0.9 {
		t.Errorf("a worker request reused %.1f%% of the previous prompt, want at least 90%%", 100*least)
	}
}

// A real context overflow: dev does not know the window (the gate hides
// /props), the history outgrows llama-server's -c 2048, the server rejects
// the request with its real error body, and dev adopts the window it names,
// compresses below it and goes on, or fails with exit 1. Never a loop.
func TestRealOverflowIsRecognised(t *testing.T) {
	real := server(t, "gemma3", 2048, 1)
	g := newGate(t, real, "gemma3")
	g.Route("GET /props", 404, `{"error":"hidden"}`)
	w := newWorld(t, map[string]any{"apiUrl": g.BaseURL(), "model": "gemma3", "maxContextTokens": 32768,
		"temperature": 0, "maxRetriesAutomated": 2, "requestTimeout": 600})
	var log strings.Builder
	for i := range 150 {
		fmt.Fprintf(&log, "step %03d: copied the build output into place\n", i)
	}
	w.write("build.log", log.String()) // ~7 KB: past 2,048 tokens with the system prompt
	g.Script(
		reply("Read the log.", "READ_FILE", "build.log"),
		llmtest.Response{Content: "The user wants the number of steps in build.log; it was read and has 150 steps."}, // the summary
		reply("Done.", "DONE", "build.log has 150 steps."),
		reply("Done.", "DONE", "build.log has 150 steps."),
	)
	r := w.run("", "--no-audit", "-p", "How many steps does build.log have?", "--json")
	t.Logf("exit %d", r.code)
	if r.code != 0 && r.code != 1 {
		t.Fatalf("exit %d, want 0 (went on) or 1 (a second overflow)\n%s", r.code, r.stderr)
	}
	overflows := 0
	for _, e := range g.rec.all() {
		t.Logf("%-8s %d: %.160s", purpose(e.messages), e.status, e.body)
		if e.status == 400 && strings.Contains(string(e.body), "exceed_context_size_error") {
			overflows++
		}
	}
	if overflows < 1 || overflows > 2 {
		t.Errorf("%d overflows from the real server, want 1 or 2 (a retry after compression, never a loop)", overflows)
	}
	comps := ofType(events(t, r.stdout), "compression")
	if len(comps) == 0 || comps[0]["reason"] != "overflow" || comps[0]["window"] != 2048.0 {
		t.Errorf("compression events %v, want one for the overflow with the server's window 2048", comps)
	}
	if r.code == 1 && !strings.Contains(strings.ToLower(r.stderr), "context") {
		t.Errorf("exit 1 without saying it was the context:\n%s", r.stderr)
	}
	w.sessions()
}

// task is one small job for a real model.
type task struct {
	name, prompt string
	setup        map[string]string
}

var tasks = []task{
	{name: "create a file", prompt: "Create a file named hello.txt containing exactly: hello world"},
	{name: "fix a one-line bug", prompt: "calc.py has a bug: add(a, b) must return the sum of a and b. Fix it.",
		setup: map[string]string{"calc.py": "def add(a, b):\n    return a - b\n"}},
	{name: "answer about a file", prompt: "Which port does server.conf set? Read it, then answer with DONE.",
		setup: map[string]string{"server.conf": "# server settings\nhost = 127.0.0.1\nport = 8431\n"}},
}

// outcome is what one real run did, for the assertions and the log.
type outcome struct {
	model, task           string
	mode                  string // constrain: auto (its default), json or off
	exit, steps           int
	replies, formatErrors int
	// From the session's request records: the worker's requests, and how
	// many carried each form of shape.
	workerRequests int
	shapedAs       map[sessions.Constrained]int
}

// offMaxTokens caps the replies of the constrain-off runs: unconstrained, a
// small model rambles to whatever cap it gets, and the default (a quarter
// of the window, 2,048 tokens here) would make the suite take many minutes
// more.
const offMaxTokens = 256

// Real models end to end on small tasks, with a small maxLoops: whatever the
// model does, dev ends with a documented exit code, leaves a valid session
// and never panics or hangs. With constrain at its default (auto: llama.cpp
// shapes the replies with the grammar) and with json (the JSON form),
// every reply is well-formed and every worker request is recorded in its
// form (SPEC §18); the same tasks with constrain off are run beside them,
// and only their exit codes and sessions asserted. Each run's projects have
// the paths of the last run's (newRepeatableWorld), so that it repeats it.
// (What the models do on dev bench's suite is docs/real-models.md, written
// by scripts/real-models.sh.)
func TestRealModels(t *testing.T) {
	lockRepeatable(t)
	for _, model := range []string{"smollm2", "gemma3"} {
		srv := server(t, model, 8192, 1)
		for _, tk := range tasks {
			for _, mode := range []string{"auto", "json", "off"} {
				conf := map[string]any{"apiUrl": srv.BaseURL(), "model": model, "maxLoops": 5,
					"temperature": 0, "maxRetriesAutomated": 3, "requestTimeout": 600, "constrain": mode}
				if mode == "off" {
					conf["maxTokens"] = offMaxTokens
				}
				t.Run(model+"/"+tk.name+"/"+mode, func(t *testing.T) {
					w := newRepeatableWorld(t, conf)
					for name, content := range tk.setup {
						w.write(name, content)
					}
					r := w.run("", "--no-audit", "-p", tk.prompt, "--json")
					o := summarise(t, model, tk, w, r)
					o.mode = mode
					t.Logf("%+v", o)
					switch r.code {
					case 0, 1, 3, 4, 5:
					default:
						t.Errorf("exit %d is not a documented exit code\n%s", r.code, r.stderr)
					}
					if r.code == 1 {
						t.Errorf("exit 1 (a server or runtime failure) from a running server:\n%s", r.stderr)
					}
					if ss := w.sessions(); len(ss) != 1 {
						t.Errorf("%d session files, want 1", len(ss))
					}
					if mode == "off" {
						return
					}
					// Shaped, in the grammar (auto on llama.cpp) or the
					// JSON form: every reply parses, every worker request is
					// recorded in its form.
					if o.formatErrors != 0 {
						t.Errorf("%d format errors with the server shaping the replies, want 0:\n%s", o.formatErrors, r.stderr)
					}
					want := map[string]sessions.Constrained{"auto": sessions.ConstrainedGrammar, "json": sessions.ConstrainedJSON}[mode]
					if o.workerRequests == 0 || o.shapedAs[want] != o.workerRequests {
						t.Errorf("%d of %d worker requests recorded %s, want all", o.shapedAs[want], o.workerRequests, want)
					}
				})
			}
		}
	}
}

// summarise reads what a run did from its --json events and its session.
func summarise(t *testing.T, model string, tk task, w *world, r result) outcome {
	t.Helper()
	o := outcome{model: model, task: tk.name, exit: r.code}
	for _, ev := range events(t, r.stdout) {
		switch ev["type"] {
		case "response":
			o.replies++
		case "format_error":
			o.replies++
			o.formatErrors++
		case "result":
			o.steps = int(num(ev["loops"]))
		}
	}
	if ss := w.sessions(); len(ss) == 1 {
		for _, rec := range ss[0].Requests {
			if rec.Purpose != "worker" {
				continue
			}
			o.workerRequests++
			if o.shapedAs == nil {
				o.shapedAs = map[sessions.Constrained]int{}
			}
			o.shapedAs[rec.Constrained]++
		}
	}
	return o
}

func num(v any) float64 {
	f, _ := v.(float64)
	return f
}
