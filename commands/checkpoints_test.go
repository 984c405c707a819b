package commands

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/devagent/dev/sessions"
)

// The checkpoint commands act on the last session of the directory dev
// was started in, or on --session's.
func TestCheckpointsList(t *testing.T) {
	h := newHome(t)
	if err := h.run("checkpoints").err; !errors.Is(err, sessions.ErrNoSession) || !strings.Contains(err.Error(), "give --session") {
		t.Errorf("no session here: %v", err)
	}
	h.checkpointed(idNew)
	r := h.run("checkpoints").ok(t)
	lines := strings.Split(strings.TrimRight(r.stdout, "\n"), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], "0  ") || !strings.Contains(lines[0], "before request") ||
		!strings.Contains(lines[1], "step 1 WRITE_FILE a.txt") || !strings.Contains(lines[1], "~a.txt +b.txt") {
		t.Errorf("dev checkpoints:\n%s", r.stdout)
	}

	// --session takes a unique prefix, as every command does.
	if r = h.run("checkpoints", "--session", idNew[:8]).ok(t); !strings.Contains(r.stdout, "WRITE_FILE") {
		t.Errorf("dev checkpoints --session %s:\n%s", idNew[:8], r.stdout)
	}

	h.session(idOld, "no checkpoints", "m", time.Hour)
	h.run("checkpoints", "--session", idOld).usage(t, "session "+idOld+" has no checkpoints")
	if err := h.run("checkpoints", "--session", "33333333-3333-4333-8333-333333333333").err; !errors.Is(err, sessions.ErrNotFound) {
		t.Errorf("an unknown session: %v", err)
	}
}

func TestDiff(t *testing.T) {
	h := newHome(t)
	h.checkpointed(idNew)
	r := h.run("diff").ok(t)
	for _, want := range []string{"diff --git a/a.txt b/a.txt", "-one\n+two\n", "diff --git a/b.txt b/b.txt", "new file mode", "+new\n"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("dev diff lacks %q:\n%s", want, r.stdout)
		}
	}
	if r = h.run("diff", "0", "1").ok(t); !strings.Contains(r.stdout, "+two") {
		t.Errorf("dev diff 0 1:\n%s", r.stdout)
	}
	r = h.run("diff", "1").ok(t)
	if r.stdout != "" || r.stderr != "no changes\n" {
		t.Errorf("nothing changed since 1: stdout %q, stderr %q", r.stdout, r.stderr)
	}
	h.run("diff", "7").usage(t, "no such checkpoint")
	// Flags may follow the numbers.
	if r = h.run("diff", "0", "--session", idNew).ok(t); !strings.Contains(r.stdout, "+new") {
		t.Errorf("dev diff 0 --session:\n%s", r.stdout)
	}
}

func TestRewind(t *testing.T) {
	h := newHome(t)
	h.checkpointed(idNew)
	read := func(name string) string {
		data, err := os.ReadFile(filepath.Join(h.cwd, name))
		if err != nil {
			return "(none)"
		}
		return string(data)
	}

	// Not on a terminal it needs --yes, and changes nothing.
	r := h.run("rewind", "0")
	r.usage(t, "run it on a terminal to confirm, or give --yes")
	if !strings.Contains(r.stderr, "restore  a.txt") || !strings.Contains(r.stderr, "delete   b.txt") || read("a.txt") != "two\n" {
		t.Errorf("the plan, and nothing done:\n%s", r.stderr)
	}
	// On a terminal, anything but yes keeps everything.
	h.inTTY, h.in = true, "n\n"
	r = h.run("rewind", "0").ok(t)
	if !strings.Contains(r.stderr, "Rewind? [y/N] nothing changed") || read("a.txt") != "two\n" {
		t.Errorf("answered no:\n%s", r.stderr)
	}
	h.run("rewind", "9", "--yes").usage(t, "no such checkpoint")

	r = h.run("rewind", "0", "--yes").ok(t)
	if read("a.txt") != "one\n" || read("b.txt") != "(none)" {
		t.Errorf("after the rewind: a.txt %q, b.txt %q\n%s", read("a.txt"), read("b.txt"), r.stderr)
	}
	sess, err := sessions.Open(h.dir, time.Now).Load(idNew)
	if err != nil {
		t.Fatal(err)
	}
	if len(sess.History) != 1 {
		t.Errorf("the session's history after a rewind to before the reply: %d messages, want 1", len(sess.History))
	}

	// A rewind can be rewound; --files-only keeps the history.
	h.in = "yes\n"
	h.run("rewind", "1", "--files-only").ok(t)
	if read("a.txt") != "two\n" || read("b.txt") != "new\n" {
		t.Errorf("after rewinding to 1: a.txt %q, b.txt %q", read("a.txt"), read("b.txt"))
	}
	if sess, err = sessions.Open(h.dir, time.Now).Load(idNew); err != nil || len(sess.History) != 1 {
		t.Errorf("--files-only changed the history: %v, %d messages", err, len(sess.History))
	}
}
