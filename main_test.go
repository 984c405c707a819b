package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/devagent/dev/app"
	"github.com/devagent/dev/commands"
	"github.com/devagent/dev/config"
	"github.com/devagent/dev/interrupt"
	"github.com/devagent/dev/sessions"
	"github.com/devagent/dev/ui"
)

func TestExitCode(t *testing.T) {
	t.Parallel()
	tests := []struct {
		err  error
		want int
	}{
		{nil, 0},
		{&commands.UsageError{Msg: "bad"}, 2},
		{&config.Error{Path: "config.json", Key: "maxLoops"}, 2},
		{fmt.Errorf("session x: %w", sessions.ErrInUse), 2},
		{fmt.Errorf("x: %w", sessions.ErrNotFound), 2},
		{fmt.Errorf("nothing to resume: %w", sessions.ErrNoSession), 2},
		{sessions.ErrBadID, 2},
		{&sessions.AmbiguousError{}, 2},
		{&sessions.CorruptError{Path: "s.json", Err: errors.New("bad")}, 2},
		{fmt.Errorf("dir: %w", app.ErrOtherDirectory), 2},
		{fmt.Errorf("sandbox: workspace: %w: kernel too old", app.ErrSandbox), 2},
		{&commands.ExitError{Code: 4}, 4},
		{&commands.ExitError{Code: 3}, 3},
		{fmt.Errorf("writing: %w", context.Canceled), 130},
		{context.Canceled, 130},
		{&commands.ShownError{Err: context.Canceled}, 130},
		{&commands.ShownError{Err: errors.New("a check failed")}, 1},
		{errors.New("disk full"), 1},
	}
	for _, tt := range tests {
		if got := exitCode(tt.err); got != tt.want {
			t.Errorf("exitCode(%v) = %d, want %d", tt.err, got, tt.want)
		}
	}
}

// run, in process: the exit code, and the error said once on stderr
// unless the command showed it already.
func TestRun(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	env := func(k string) string {
		switch k {
		case "DEV_AGENT_HOME", "HOME":
			return home
		case "DEV_API_URL":
			return "http://127.0.0.1:1/v1" // nothing listens there
		}
		return ""
	}
	run := func(args ...string) (code int, stdout, stderr string) {
		var out, errb bytes.Buffer
		code = run(append([]string{"dev"}, args...), &ui.Streams{In: strings.NewReader(""), Out: &out, Err: &errb}, env, interrupt.New())
		return code, out.String(), errb.String()
	}

	if code, stdout, stderr := run("--version"); code != 0 || stdout != "dev "+version+"\n" || stderr != "" {
		t.Errorf("--version: %d %q %q", code, stdout, stderr)
	}
	// A bad flag: exit 2, one line naming the command, no help.
	for _, args := range [][]string{
		{"--bogus"}, {"sessions", "--bogus"}, {"sessions", "list", "--bogus"}, {"sessions", "show", "--bogus"},
		{"sessions", "serve", "--bogus"}, {"config", "--bogus"}, {"config", "path", "--bogus"}, {"config", "show", "--bogus"},
		{"checkpoints", "--bogus"}, {"diff", "--bogus"}, {"rewind", "--bogus"}, {"doctor", "--bogus"},
		{"mcp", "--bogus"}, {"stats", "--bogus"}, {"profiles", "--bogus"}, {"stats", "--days", "x"},
	} {
		code, stdout, stderr := run(args...)
		if code != 2 || stdout != "" || strings.Count(stderr, "\n") != 1 || !strings.HasPrefix(stderr, "dev: ") {
			t.Errorf("dev %s: exit %d, want 2 and one line\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), code, stdout, stderr)
		}
	}
	// dev doctor's report says what failed: nothing is added.
	if code, stdout, stderr := run("doctor"); code != 1 || !strings.Contains(stdout, "fail") || stderr != "" {
		t.Errorf("doctor against no server: exit %d, stderr %q\n%s", code, stderr, stdout)
	}
}
