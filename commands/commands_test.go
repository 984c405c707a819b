package commands

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/devagent/dev/checkpoints"
	"github.com/devagent/dev/llm"
	"github.com/devagent/dev/sessions"
	"github.com/devagent/dev/ui"
)

// home is one user's machine for the commands: a config directory
// (DEV_AGENT_HOME), the directory dev is started in, and the environment.
type home struct {
	t     *testing.T
	dir   string // DEV_AGENT_HOME
	cwd   string // where dev was started
	env   map[string]string
	in    string    // stdin
	inTTY bool      // stdin is a terminal
	out   io.Writer // stdout, when not a buffer
	// outWidth is the width of the terminal stdout is (0: not a terminal).
	outWidth int
	intr     *fakeInterrupts
}

func newHome(t *testing.T) *home {
	t.Helper()
	t.Parallel()
	h := &home{t: t, dir: t.TempDir(), cwd: t.TempDir(), intr: &fakeInterrupts{}}
	h.env = map[string]string{"DEV_AGENT_HOME": h.dir, "HOME": h.dir, "LANG": "C.UTF-8"}
	return h
}

// config writes config.json.
func (h *home) config(cfg map[string]any) {
	h.t.Helper()
	data, err := json.MarshalIndent(cfg, "", "  ")
	if err != nil {
		h.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(h.dir, "config.json"), data, 0o600); err != nil {
		h.t.Fatal(err)
	}
}

// result is what a command did: its output streams and its error.
type result struct {
	stdout, stderr string
	err            error
}

// runs lets one command tree run at a time: urfave/cli v2 writes its
// global HelpFlag each time a tree parses flags (dev runs one tree per
// process; these tests run many).
var runs sync.Mutex

// run runs dev with args in process, with buffers for streams.
func (h *home) run(args ...string) result {
	h.t.Helper()
	runs.Lock()
	defer runs.Unlock()
	var stdout, stderr bytes.Buffer
	streams := &ui.Streams{In: strings.NewReader(h.in), InTTY: h.inTTY, Out: &stdout, Err: &stderr, Width: 80, OutWidth: h.outWidth}
	if h.out != nil {
		streams.Out = h.out
	}
	err := Run(append([]string{"dev"}, args...), Options{
		Streams: streams,
		Env:     func(k string) string { return h.env[k] },
		Intr:    h.intr,
		Version: "1.2.3-test",
		Getwd:   func() (string, error) { return h.cwd, nil },
	})
	return result{stdout.String(), stderr.String(), err}
}

// ok fails the test unless the command succeeded.
func (r result) ok(t *testing.T) result {
	t.Helper()
	if r.err != nil {
		t.Fatalf("error %v\nstdout:\n%s\nstderr:\n%s", r.err, r.stdout, r.stderr)
	}
	return r
}

// usage fails the test unless the command's error is a usage error
// (exit 2) whose message holds every want.
func (r result) usage(t *testing.T, want ...string) {
	t.Helper()
	var u *UsageError
	if !errors.As(r.err, &u) {
		t.Errorf("error %v (%T), want a usage error\nstderr:\n%s", r.err, r.err, r.stderr)
		return
	}
	for _, w := range want {
		if !strings.Contains(u.Msg, w) {
			t.Errorf("usage error %q lacks %q", u.Msg, w)
		}
	}
}

// fakeInterrupts stands for the interrupt.Handler: interrupt is Ctrl+C.
type fakeInterrupts struct {
	mu     sync.Mutex
	cancel []context.CancelFunc
}

func (f *fakeInterrupts) Work(parent context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancel(parent)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.cancel = append(f.cancel, cancel)
	return ctx, cancel
}

func (f *fakeInterrupts) Ending() bool   { return false }
func (f *fakeInterrupts) OnForce(func()) {}

// interrupt cancels the work started.
func (f *fakeInterrupts) interrupt() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, cancel := range f.cancel {
		cancel()
	}
}

// Session ids of the fixtures.
const (
	idOld = "11111111-1111-4111-8111-111111111111"
	idNew = "22222222-2222-4222-8222-222222222222"
)

// session saves a finished session of the start directory with one model
// request, updated age ago.
func (h *home) session(id, prompt, model string, age time.Duration) *sessions.Session {
	h.t.Helper()
	at := time.Now().Add(-age).UTC()
	store := sessions.Open(h.dir, func() time.Time { return at })
	sess, err := store.New(id, h.cwd, prompt, model)
	if err != nil {
		h.t.Fatal(err)
	}
	sess.Status = sessions.Complete
	sess.History = []llm.Message{
		{Role: llm.RoleUser, Content: prompt},
		{Role: llm.RoleAssistant, Content: "# Agent Response\n\n## Thoughts\nDone.\n\n## Tool Choice\nDONE\n\n## Tool Input\nSaid hello.\n"},
	}
	sess.Requests = []sessions.Request{{Timestamp: at, Model: model, Purpose: sessions.PurposeWorker, PromptTokens: 1000, CompletionTokens: 50, DurationMs: 1200}}
	sess.TotalTokens = 1050
	h.save(store, sess)
	if err := store.Remember(h.cwd, id); err != nil {
		h.t.Fatal(err)
	}
	return sess
}

func (h *home) save(store *sessions.Store, sess *sessions.Session) {
	h.t.Helper()
	if err := store.Save(sess); err != nil {
		h.t.Fatal(err)
	}
}

// write writes a file of the start directory.
func (h *home) write(name, content string) {
	h.t.Helper()
	if err := os.WriteFile(filepath.Join(h.cwd, name), []byte(content), 0o644); err != nil {
		h.t.Fatal(err)
	}
}

// checkpointed saves a session whose checkpoints are: 0 before its request
// (a.txt says "one"; the history holds the request), 1 after a tool wrote
// "two" into a.txt and created b.txt (and the reply that did it). The
// directory is left as checkpoint 1 has it.
func (h *home) checkpointed(id string) *sessions.Session {
	h.t.Helper()
	ctx := context.Background()
	sess := h.session(id, "change a.txt", "mock-model", time.Minute)
	store := sessions.Open(h.dir, time.Now)
	cps, err := checkpoints.Open(filepath.Join(store.Dir(id), "checkpoints"), h.cwd, checkpoints.Options{Exclude: []string{h.dir}})
	if err != nil {
		h.t.Fatal(err)
	}
	take := func(m checkpoints.Meta) {
		taken, err := cps.Take(ctx, sess.Checkpoints, m, sess.CheckpointState)
		if err != nil {
			h.t.Fatal(err)
		}
		sess.Checkpoints = append(sess.Checkpoints, taken.Checkpoint)
	}
	history := sess.History
	sess.History = history[:1]
	h.write("a.txt", "one\n")
	take(checkpoints.Meta{Reason: checkpoints.BeforeRequest})
	sess.History = history
	h.write("a.txt", "two\n")
	h.write("b.txt", "new\n")
	take(checkpoints.Meta{Reason: checkpoints.AfterTool, Step: 1, Tool: "WRITE_FILE", Input: "a.txt"})
	h.save(store, sess)
	return sess
}
