package app

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/devagent/dev/config"
	"github.com/devagent/dev/event"
	"github.com/devagent/dev/llm"
	"github.com/devagent/dev/llm/llmtest"
	"github.com/devagent/dev/sessions"
)

func warnings(r *recorder) string {
	var b strings.Builder
	for _, w := range eventsOf[event.Warning](r) {
		b.WriteString(w.Message + "\n")
	}
	return b.String()
}

// Before the first prompt, interactive mode says what will make the first
// request fail, with the fix, and still opens.
func TestServerCheckedBeforeTheFirstPrompt(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name  string
		setup func(w *world)
		want  []string // in the warnings, URL standing for the server's; none when empty
	}{
		{"fine", func(*world) {}, nil},
		{"unreachable", func(w *world) { w.opts.Config.APIURL = "http://127.0.0.1:1/v1" },
			[]string{"cannot reach the model server at http://127.0.0.1:1/v1", "Fix: start it", "scripts/llama-server.sh", "or set apiUrl in", "dev doctor checks the setup"}},
		{"unknown model", func(w *world) { w.opts.Config.Model = "mock-modle" },
			[]string{`has no model "mock-modle"; it offers mock-model`, "Fix: set model in"}},
		{"missing /v1", func(w *world) { w.opts.Config.APIURL = w.srv.URL },
			[]string{"apiUrl lacks /v1", "Fix: set apiUrl to URL/v1"}},
		{"automated runs are not checked", func(w *world) { w.opts.Automated, w.opts.Config.Model = true, "mock-modle" }, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t)
			w.opts.Automated = false
			tt.setup(w)
			w.open()
			got := warnings(w.rec)
			if len(tt.want) == 0 && got != "" {
				t.Errorf("warnings:\n%s", got)
			}
			for _, want := range tt.want {
				if !strings.Contains(got, strings.ReplaceAll(want, "URL", w.srv.URL)) {
					t.Errorf("warnings lack %q:\n%s", want, got)
				}
			}
		})
	}
}

// A run that fails on a 404 because apiUrl lacks /v1 says so, as dev doctor would.
func TestMissingV1HintDuringARun(t *testing.T) {
	w := newWorld(t)
	w.opts.Config.APIURL = w.srv.URL
	a := w.open()
	if res := a.Run(context.Background(), "do it"); res.Code != ExitFailure {
		t.Fatalf("exit %d", res.Code)
	}
	fails := eventsOf[event.Failure](w.rec)
	if len(fails) != 1 || !strings.Contains(fails[0].Message, "apiUrl lacks /v1. Fix: set apiUrl to "+w.srv.URL+"/v1") {
		t.Errorf("failure %+v", fails)
	}
	// --resume tells how the last run ended, and why.
	a.Close()
	w.opts.Resume = true
	w.rec = &recorder{}
	w.opts.Sink = w.rec
	w.open()
	started := eventsOf[event.SessionStarted](w.rec)
	if len(started) != 1 || started[0].LastStatus != "failed" || !strings.Contains(started[0].LastReason, "apiUrl lacks /v1") {
		t.Errorf("session event %+v", started)
	}
}

// The result carries what the request used: the status line's figures.
func TestUsageOfARequest(t *testing.T) {
	w := newWorld(t)
	w.opts.Config.MaxContextTokens = 10000
	w.srv.Script(
		llmtest.Response{Content: llmtest.Reply("Look.", "LIST_DIRECTORY", "."), Usage: &llm.Usage{PromptTokens: 1000, CompletionTokens: 50, TotalTokens: 1050}},
		llmtest.Response{Content: llmtest.Reply("Done.", "DONE", "ok"), Usage: &llm.Usage{PromptTokens: 1200, CompletionTokens: 30, TotalTokens: 1230}},
	)
	a := w.open()
	a.Run(context.Background(), "do it")
	fin := eventsOf[event.Finished](w.rec)
	if len(fin) != 1 {
		t.Fatalf("%d results", len(fin))
	}
	u := fin[0].Usage
	if u.Model != "mock-model" || u.Steps != 2 || u.TokensIn != 2200 || u.TokensOut != 80 || u.Estimated ||
		u.ContextTokens != 1200 || u.ContextWindow != 10000 || u.Elapsed <= 0 || u.CostKnown {
		t.Errorf("usage %+v", u)
	}
	if fin[0].Audit != event.AuditOff {
		t.Errorf("audit %q with --no-audit", fin[0].Audit)
	}
	// Without the server's counts, the figures are estimates.
	w.srv.Script(reply("DONE", "again"))
	a.Run(context.Background(), "again")
	if u := eventsOf[event.Finished](w.rec)[1].Usage; !u.Estimated || u.TokensIn == 0 || u.TokensOut == 0 || u.Steps != 1 {
		t.Errorf("estimated usage %+v", u)
	}
}

// The audit policy "changes" (the default) skips the audit of a pure
// answer and says so; /audit changes it between requests.
func TestAuditPolicy(t *testing.T) {
	w := newWorld(t)
	w.opts.NoAudit = false
	w.srv.Script(reply("DONE", "42."))
	a := w.open()
	if a.AuditPolicy() != config.AuditChanges {
		t.Fatalf("policy %q", a.AuditPolicy())
	}
	res := a.Run(context.Background(), "what is 6*7?")
	if res.Code != ExitOK || res.Audits != 0 || eventsOf[event.Finished](w.rec)[0].Audit != event.AuditSkipped {
		t.Fatalf("pure answer: %+v", res)
	}
	if err := a.SetAudit("sometimes"); err == nil {
		t.Errorf("an unknown policy was taken")
	}
	if err := a.SetAudit(config.AuditAlways); err != nil {
		t.Fatal(err)
	}
	w.srv.Script(reply("DONE", "43."), reply("DONE", "Overall: PASS"))
	if res := a.Run(context.Background(), "and 43?"); res.Audits != 1 || eventsOf[event.Finished](w.rec)[1].Audit != event.AuditPassed {
		t.Errorf("always: %+v", res)
	}
}

func TestSetModel(t *testing.T) {
	w := newWorld(t)
	w.opts.Automated = false
	a := w.open()
	a.SetModel("mock-modle")
	if a.Model() != "mock-modle" || !strings.Contains(warnings(w.rec), `no model "mock-modle"`) {
		t.Errorf("model %q, warnings %q", a.Model(), warnings(w.rec))
	}
	a.SetModel("mock-model")
	w.srv.Script(reply("DONE", "ok"))
	a.Run(context.Background(), "x")
	if reqs := w.srv.Requests(); reqs[len(reqs)-1].Model != "mock-model" {
		t.Errorf("request went to %q", reqs[len(reqs)-1].Model)
	}
}

// /resume switches to another session of the directory, by a prefix of its id.
func TestResumeAnotherSession(t *testing.T) {
	w := newWorld(t)
	w.opts.Automated = false
	w.srv.Script(reply("DONE", "first"))
	a := w.open()
	a.Run(context.Background(), "first request")
	first := a.Session().ID
	if err := a.NewSession(); err != nil {
		t.Fatal(err)
	}
	if err := a.Resume(first[:8]); err != nil {
		t.Fatal(err)
	}
	if a.Session().ID != first || len(a.Session().History) != 2 {
		t.Fatalf("resumed %s with %d messages", a.Session().ID, len(a.Session().History))
	}
	started := eventsOf[event.SessionStarted](w.rec)
	if last := started[len(started)-1]; !last.Resumed || last.LastAnswer != "first" {
		t.Errorf("session event %+v", last)
	}
	list, err := a.DirSessions()
	if err != nil || len(list) != 1 { // the new session was never saved
		t.Errorf("sessions of the directory: %d, %v", len(list), err)
	}
	// A session of another directory is not switched to.
	elsewhere, err := a.Store().New("", t.TempDir(), "x", "mock-model")
	if err != nil || a.Store().Save(elsewhere) != nil {
		t.Fatal(err)
	}
	if err := a.Resume(elsewhere.ID); !errors.Is(err, ErrOtherDirectory) {
		t.Errorf("resume of another directory's session: %v", err)
	}
	if err := a.Resume("zzzzzz"); !errors.Is(err, sessions.ErrBadID) {
		t.Errorf("resume of nonsense: %v", err)
	}
}

// --session takes a unique prefix of a stored session's id.
func TestSessionIDPrefix(t *testing.T) {
	w := newWorld(t)
	w.srv.Script(reply("DONE", "ok"))
	a := w.open()
	a.Run(context.Background(), "x")
	id := a.Session().ID
	a.Close()
	w.opts.SessionID = id[:6]
	b := w.open()
	if b.Session().ID != id {
		t.Errorf("opened %s, want %s", b.Session().ID, id)
	}
	b.Close()
	w.opts.SessionID = "abcdef"
	if _, err := Open(w.opts); !errors.Is(err, sessions.ErrNotFound) {
		t.Errorf("unknown prefix: %v", err)
	}
}

func TestCompactNow(t *testing.T) {
	w := newWorld(t)
	w.srv.Script(reply("LIST_DIRECTORY", "."), reply("DONE", "ok"))
	a := w.open()
	if ok, err := a.Compact(context.Background()); ok || err != nil {
		t.Errorf("an empty history was compressed: %v %v", ok, err)
	}
	a.Run(context.Background(), "look")
	w.srv.Script(llmtest.Response{Content: "The user asked to look; the directory is empty."})
	ok, err := a.Compact(context.Background())
	if !ok || err != nil {
		t.Fatalf("compact: %v %v", ok, err)
	}
	stored, _ := a.Store().Load(a.Session().ID)
	if stored.CompressionCount != 1 || len(stored.History) >= 4 {
		t.Errorf("stored: %d compressions, %d messages", stored.CompressionCount, len(stored.History))
	}
	if c := eventsOf[event.Compressed](w.rec); len(c) != 1 || c[0].Reason != event.ReasonRequested {
		t.Errorf("compression events %+v", c)
	}
}

// A command's output reaches the renderers while it runs.
func TestLiveCommandOutput(t *testing.T) {
	w := newWorld(t)
	w.srv.Script(reply("COMMAND", "echo unseen"), reply("DONE", "ok"))
	a := w.open()
	a.Run(context.Background(), "x")
	if n := len(eventsOf[event.CommandOutput](w.rec)); n != 0 {
		t.Errorf("%d output events with nobody watching", n)
	}
	a.Close()
	w.opts.Live = true
	w.srv.Script(reply("COMMAND", "echo live-line"), reply("DONE", "ok"))
	a = w.open()
	a.Run(context.Background(), "x")
	var live strings.Builder
	for _, e := range eventsOf[event.CommandOutput](w.rec) {
		if e.Agent == event.Worker {
			live.WriteString(e.Output)
		}
	}
	if live.String() != "live-line\n" {
		var res []string
		for _, e := range eventsOf[event.ToolFinished](w.rec) {
			res = append(res, e.Result.Output)
		}
		t.Errorf("live output %q; results %q", live.String(), res)
	}
}
