package realserver

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/devagent/dev/llm"
	"github.com/devagent/dev/llm/llmtest"
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
	r := w.run("", "doctor", "--json")
	var rep struct {
		OK     bool `json:"ok"`
		Checks []struct {
			Name, Status, Detail, Fix string
		} `json:"checks"`
		Facts map[string]any `json:"facts"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("doctor --json: %v\n%s\nstderr:\n%s", err, r.stdout, r.stderr)
	}
	t.Logf("doctor: exit %d, facts %v", r.code, rep.Facts)
	if want := map[bool]int{true: 0, false: 1}[rep.OK]; r.code != want {
		t.Errorf("exit %d with ok=%v", r.code, rep.OK)
	}
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
	for _, c := range rep.Checks {
		checks[c.Name] = c.Status
		t.Logf("%-9s %-4s %s %s", c.Name, c.Status, c.Detail, c.Fix)
	}
	for _, name := range []string{"reachable", "server", "model", "roles"} {
		if checks[name] != "ok" {
			t.Errorf("check %s: %q, want ok", name, checks[name])
		}
	}
	// The base model rarely answers in the template, and a loaded CPU may
	// not finish in the probe's time: the probe must say which it was.
	if s := checks["protocol"]; s != "ok" && s != "warn" && s != "fail" {
		t.Errorf("protocol check %q: the probe did not run", s)
	}
	if _, parsed := f["protocolParsed"]; checks["protocol"] != "warn" && !parsed {
		t.Errorf("the protocol probe got a whole reply but says nothing of whether it parsed: %v", f)
	}
}

// Gemma 3's chat template raises an error unless the roles after the system
// message alternate user/assistant. Every request dev sends in a session
// that goes through a format error, tools, a compression, an audit, and a
// resumed interactive turn with an ASK_USER answer must pass it.
func TestStrictTemplateAcceptsEveryRequestShape(t *testing.T) {
	g := newGate(t, server(t, "gemma3", 8192, 1), "gemma3")
	w := newWorld(t, map[string]any{"apiUrl": g.BaseURL(), "model": "gemma3", "maxContextTokens": 4000,
		"temperature": 0, "maxRetriesAutomated": 2, "requestTimeout": 600})
	var notes strings.Builder
	for i := range 400 {
		fmt.Fprintf(&notes, "note %03d: the build step copies files into place\n", i)
	}
	w.write("notes.txt", notes.String())
	g.Script(
		llmtest.Response{Content: "Sure! I will read the notes first."}, // not the template: a format error
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
	if n := len(ofType(evs, "format_error")); n != 1 {
		t.Errorf("%d format errors, want 1", n)
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

	// Each shape, by what marks it; every request must have been accepted.
	shapes := []struct {
		name string
		is   func(e exchange) bool
	}{
		{"first request", func(e exchange) bool { return purpose(e.messages) == "worker" && len(e.messages) == 2 }},
		{"after a format error", func(e exchange) bool { return strings.HasPrefix(lastUser(e), "Your reply could not be used") }},
		{"a tool result, the format error cleaned up", func(e exchange) bool {
			return strings.HasPrefix(lastUser(e), "<tool_result") && !strings.Contains(fmt.Sprint(e.messages), "Your reply could not be used")
		}},
		{"the summary request", func(e exchange) bool { return purpose(e.messages) == "compress" }},
		{"after compression", func(e exchange) bool {
			return purpose(e.messages) == "worker" && len(e.messages) > 1 && strings.HasPrefix(e.messages[1].Content, "[CONTEXT SUMMARY]")
		}},
		{"an ASK_USER answer in a resumed session", func(e exchange) bool { return strings.Contains(lastUser(e), `tool="ASK_USER"`) }},
		{"the audit", func(e exchange) bool { return purpose(e.messages) == "audit" }},
	}
	all := g.rec.all()
	for i, e := range all {
		if e.status != 200 {
			t.Errorf("request %d (%s, roles %s) rejected by llama-server: %d %s", i, purpose(e.messages), roles(e.messages), e.status, e.body)
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
