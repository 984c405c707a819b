package app

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/devagent/dev/config"
	"github.com/devagent/dev/event"
	"github.com/devagent/dev/llm"
	"github.com/devagent/dev/llm/llmtest"
	"github.com/devagent/dev/sessions"
)

// recorder keeps the events of a run; background processes emit from
// their own goroutines.
type recorder struct {
	mu     sync.Mutex
	events []event.Event
}

func (r *recorder) Emit(e event.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, e)
}

func (r *recorder) names() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var n []string
	for _, e := range r.events {
		if e.Name() != "streaming" {
			n = append(n, e.Name())
		}
	}
	return n
}

func eventsOf[T event.Event](r *recorder) []T {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []T
	for _, e := range r.events {
		if x, ok := e.(T); ok {
			out = append(out, x)
		}
	}
	return out
}

// world is a config directory, a project directory and a scripted server.
type world struct {
	t    *testing.T
	srv  *llmtest.Server
	opts Options
	rec  *recorder
}

func newWorld(t *testing.T) *world {
	t.Helper()
	t.Parallel()
	srv := llmtest.New("mock-model")
	t.Cleanup(srv.Close)
	cfg := config.Default()
	cfg.APIURL, cfg.Model = srv.BaseURL(), "mock-model"
	cfg.MaxRetries, cfg.MaxRetriesAutomated = 2, 2
	cfg.CommandTimeout, cfg.RequestTimeout = 10, 20
	rec := &recorder{}
	return &world{t: t, srv: srv, rec: rec, opts: Options{
		Config: cfg, ConfigDir: t.TempDir(), Dir: t.TempDir(), Automated: true, Prompt: "do it", NoAudit: true, Sink: rec,
	}}
}

func (w *world) open() *App {
	w.t.Helper()
	a, err := Open(w.opts)
	if err != nil {
		w.t.Fatal(err)
	}
	w.t.Cleanup(a.Close)
	return a
}

func reply(tool, input string) llmtest.Response {
	return llmtest.Response{Content: llmtest.Reply("Next step.", tool, input)}
}

func TestOpenRunDone(t *testing.T) {
	w := newWorld(t)
	w.srv.Script(reply("WRITE_FILE", "a.txt\n```\nalpha\n```"), reply("DONE", "Wrote a.txt."))
	a := w.open()
	res := a.Run(context.Background(), "do it")
	if res.Code != ExitOK || res.Summary != "Wrote a.txt." || res.Loops != 2 {
		t.Fatalf("result %+v", res)
	}
	if data, err := os.ReadFile(filepath.Join(w.opts.Dir, "a.txt")); err != nil || string(data) != "alpha\n" {
		t.Errorf("a.txt: %q %v", data, err)
	}
	names := w.rec.names()
	if names[0] != "session" || names[1] != "context" || names[len(names)-1] != "result" {
		t.Errorf("events %v: want session and context first, result last", names)
	}
	if slices.Contains(names, "error") {
		t.Errorf("a run that ended well emitted an error: %v", names)
	}
	stored, err := a.Store().Load(a.Session().ID)
	if err != nil || stored.Status != sessions.Complete || stored.OriginalPrompt != "do it" || stored.TotalTokens == 0 {
		t.Fatalf("stored session %+v %v", stored, err)
	}
	if last, err := a.Store().Last(w.opts.Dir); err != nil || last != a.Session().ID {
		t.Errorf("directory map: %q %v, want %s", last, err, a.Session().ID)
	}
	// The session is locked while the app has it open.
	if _, err := a.Store().Lock(a.Session().ID); !errors.Is(err, sessions.ErrInUse) {
		t.Errorf("second lock: %v, want ErrInUse", err)
	}
}

// With SessionsDir, the session is kept there, with its checkpoints, and
// the configuration directory holds none: dev bench's runs stay apart from
// the user's sessions.
func TestSessionsDirApart(t *testing.T) {
	w := newWorld(t)
	w.opts.SessionsDir = t.TempDir()
	w.srv.Script(reply("WRITE_FILE", "a.txt\n```\nalpha\n```"), reply("DONE", "Wrote a.txt."))
	a := w.open()
	if res := a.Run(context.Background(), "do it"); res.Code != ExitOK {
		t.Fatalf("result %+v", res)
	}
	id := a.Session().ID
	if _, err := os.Stat(filepath.Join(w.opts.SessionsDir, "sessions", id+".json")); err != nil {
		t.Errorf("the session is not under SessionsDir: %v", err)
	}
	if _, err := os.Stat(filepath.Join(w.opts.SessionsDir, "sessions", id, "checkpoints")); err != nil {
		t.Errorf("its checkpoints are not under SessionsDir: %v", err)
	}
	if _, err := os.Stat(filepath.Join(w.opts.ConfigDir, "sessions")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the configuration directory has sessions: %v", err)
	}
}

// NoPrune leaves the sessions directory alone at start: a lock file no dev
// holds stays (without NoPrune, the sweep removes it).
func TestNoPrune(t *testing.T) {
	t.Parallel()
	for _, noPrune := range []bool{true, false} {
		t.Run(fmt.Sprint(noPrune), func(t *testing.T) { testNoPrune(t, noPrune) })
	}
}

func testNoPrune(t *testing.T, noPrune bool) {
	w := newWorld(t)
	w.opts.SessionsDir, w.opts.NoPrune = t.TempDir(), noPrune
	stale := filepath.Join(w.opts.SessionsDir, "sessions", "33333333-3333-4333-8333-333333333333.lock")
	if err := os.MkdirAll(filepath.Dir(stale), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(stale, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	// Older than a lock that a dev starting beside it may be taking.
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(stale, old, old); err != nil {
		t.Fatal(err)
	}
	w.open()
	_, err := os.Stat(stale)
	if kept := err == nil; kept != noPrune {
		t.Errorf("NoPrune %v: the stale lock file kept: %v", noPrune, kept)
	}
}

// TestExitCodes runs the app to each way a run ends.
func TestExitCodes(t *testing.T) {
	t.Parallel()
	loopForever := make([]llmtest.Response, 0, 10)
	for i := range 10 {
		loopForever = append(loopForever, reply("LIST_DIRECTORY", strings.Repeat(".", 1)+"/"+strings.Repeat("x", i)))
	}
	tests := []struct {
		name    string
		script  []llmtest.Response
		setup   func(*world)
		cancel  bool
		code    int
		failure string
	}{
		{name: "done", script: []llmtest.Response{reply("DONE", "ok")}, code: ExitOK},
		{name: "server failure", script: []llmtest.Response{{Status: 401, Body: `{"error":{"message":"bad key"}}`}}, code: ExitFailure, failure: "refused the request (HTTP 401"},
		{name: "audit failed", script: []llmtest.Response{reply("DONE", "ok"), reply("DONE", "Overall: FAIL\nno."), reply("DONE", "ok"), reply("DONE", "Overall: FAIL\nno.")},
			// A pure answer is audited only with the policy "always" (SPEC §17).
			setup: func(w *world) {
				w.opts.NoAudit, w.opts.Config.MaxAuditFailures, w.opts.Config.Audit = false, 2, config.AuditAlways
			}, code: ExitAudit, failure: "the audit failed 2 times in a row"},
		{name: "max loops", script: loopForever, setup: func(w *world) { w.opts.Config.MaxLoops = 3 }, code: ExitMaxLoops, failure: "stopped after 3 steps"},
		{name: "format", script: []llmtest.Response{{Content: "no"}, {Content: "no"}, {Content: "no"}}, code: ExitFormat, failure: "format dev cannot parse"},
		{name: "interrupted", script: []llmtest.Response{reply("DONE", "ok")}, cancel: true, code: ExitInterrupted},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t)
			if tt.setup != nil {
				tt.setup(w)
			}
			w.srv.Script(tt.script...)
			a := w.open()
			ctx, cancel := context.WithCancel(context.Background())
			if tt.cancel {
				cancel()
			}
			defer cancel()
			res := a.Run(ctx, "do it")
			if res.Code != tt.code {
				t.Fatalf("exit %d, want %d (%+v)", res.Code, tt.code, res.Outcome)
			}
			fin := eventsOf[event.Finished](w.rec)
			if len(fin) != 1 || fin[0].ExitCode != tt.code || fin[0].SessionID != a.Session().ID {
				t.Errorf("result events %+v", fin)
			}
			fails := eventsOf[event.Failure](w.rec)
			switch {
			case tt.failure == "" && len(fails) > 0:
				t.Errorf("unexpected failure %+v", fails)
			case tt.failure != "" && (len(fails) != 1 || !strings.Contains(fails[0].Message, tt.failure)):
				t.Errorf("failure %+v, want one with %q", fails, tt.failure)
			}
		})
	}
}

func TestResumeContinuesTheSession(t *testing.T) {
	w := newWorld(t)
	w.srv.Script(reply("DONE", "First done."))
	first := w.open()
	if res := first.Run(context.Background(), "first request"); res.Code != ExitOK {
		t.Fatalf("first run %+v", res)
	}
	id := first.Session().ID
	first.Close()

	w.srv.Script(reply("DONE", "Second done."))
	w.opts.Resume, w.opts.Prompt = true, "second request"
	w.rec = &recorder{}
	w.opts.Sink = w.rec
	second := w.open()
	if second.Session().ID != id {
		t.Fatalf("resumed %s, want %s", second.Session().ID, id)
	}
	started := eventsOf[event.SessionStarted](w.rec)
	if len(started) != 1 || !started[0].Resumed || started[0].LastRequest != "first request" || started[0].LastAnswer != "First done." || started[0].LastStatus != "complete" {
		t.Errorf("session event %+v", started)
	}
	if res := second.Run(context.Background(), "second request"); res.Code != ExitOK {
		t.Fatalf("second run %+v", res)
	}
	reqs := w.srv.Requests()
	msgs := reqs[len(reqs)-1].Messages
	if len(msgs) != 4 || !strings.Contains(msgs[1].Content, "first request") || !strings.Contains(msgs[3].Content, "second request") {
		t.Errorf("the resumed request does not continue the history: %+v", msgs)
	}
}

func TestOpenErrors(t *testing.T) {
	w := newWorld(t)
	w.opts.Resume = true
	if _, err := Open(w.opts); !errors.Is(err, sessions.ErrNoSession) {
		t.Errorf("resume with nothing: %v, want ErrNoSession", err)
	}
	w.opts.Resume = false
	a := w.open()
	w.opts.SessionID = a.Session().ID
	if _, err := Open(w.opts); !errors.Is(err, sessions.ErrInUse) {
		t.Errorf("session in use: %v, want ErrInUse", err)
	}
	w.opts.SessionID = "not-a-uuid"
	if _, err := Open(w.opts); !errors.Is(err, sessions.ErrBadID) {
		t.Errorf("bad id: %v, want ErrBadID", err)
	}
}

func TestInterruptDuringARequest(t *testing.T) {
	w := newWorld(t)
	w.srv.Script(llmtest.Response{Content: "# Agent Response\n", Hang: true})
	a := w.open()
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-w.srv.Hanging()
		cancel()
	}()
	res := a.Run(ctx, "do it")
	if res.Code != ExitInterrupted {
		t.Fatalf("exit %d, want 130", res.Code)
	}
	stored, err := a.Store().Load(a.Session().ID)
	if err != nil || stored.Status != sessions.Interrupted {
		t.Fatalf("stored %+v %v", stored, err)
	}
	if last := stored.History[len(stored.History)-1]; last.Role != llm.RoleUser || !strings.Contains(last.Content, "interrupted") {
		t.Errorf("the interruption is not noted: %+v", last)
	}
}

func TestNewSessionMovesEverything(t *testing.T) {
	w := newWorld(t)
	w.opts.Automated = false
	w.srv.Script(reply("DONE", "one"))
	a := w.open()
	if res := a.Run(context.Background(), "first"); res.Code != ExitOK {
		t.Fatalf("first run %+v", res)
	}
	old := a.Session().ID
	if err := a.NewSession(); err != nil {
		t.Fatal(err)
	}
	id := a.Session().ID
	if id == old || a.Session().OriginalPrompt != "" || len(a.Session().History) != 0 {
		t.Fatalf("new session %+v", a.Session())
	}
	// Both stay locked while this dev runs: processes the old session's
	// commands started may still run, and another dev resuming it would
	// stop them.
	for _, s := range []string{old, id} {
		if _, err := a.Store().Lock(s); !errors.Is(err, sessions.ErrInUse) {
			t.Errorf("session %s is not locked: %v", s, err)
		}
	}
	started := eventsOf[event.SessionStarted](w.rec)
	if len(started) != 2 || started[1].ID != id || started[1].Resumed {
		t.Errorf("session events %+v", started)
	}
	w.srv.Script(reply("DONE", "two"))
	if res := a.Run(context.Background(), "second"); res.Code != ExitOK {
		t.Fatalf("second run %+v", res)
	}
	stored, err := a.Store().Load(id)
	if err != nil || stored.OriginalPrompt != "second" || len(stored.History) != 2 {
		t.Fatalf("new session stored %+v %v", stored, err)
	}
	if last, _ := a.Store().Last(w.opts.Dir); last != id {
		t.Errorf("directory map names %s, want the new %s", last, id)
	}
	if prev, _ := a.Store().Load(old); len(prev.History) != 2 {
		t.Errorf("the old session changed: %d messages", len(prev.History))
	}
	a.Close()
	for _, s := range []string{old, id} {
		release, err := a.Store().Lock(s)
		if err != nil {
			t.Errorf("session %s is still locked after Close: %v", s, err)
			continue
		}
		release()
	}
}
