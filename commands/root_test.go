package commands

import (
	"bufio"
	"cmp"
	"encoding/json"
	"errors"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rivo/uniseg"

	"github.com/devagent/dev/config"
	"github.com/devagent/dev/llm/llmtest"
	"github.com/devagent/dev/sessions"
	"github.com/devagent/dev/ui"
)

func TestVersionAndHelp(t *testing.T) {
	h := newHome(t)
	if r := h.run("--version").ok(t); r.stdout != "dev 1.2.3-test\n" {
		t.Errorf("--version: %q", r.stdout)
	}
	r := h.run("--help").ok(t)
	for _, want := range []string{"dev -p \"prompt\"", "--no-audit", "EXIT CODES:", "130  interrupted", "dev doctor [--json]"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("--help lacks %q", want)
		}
	}
}

// Flags that cannot go together, or need another, are usage errors
// before anything is read or started.
func TestRootUsageErrors(t *testing.T) {
	h := newHome(t)
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--resume", "--session", idNew}, "--resume and --session cannot be used together"},
		{[]string{"-q", "-v"}, "--quiet and --verbose cannot be used together"},
		{[]string{"-p", " "}, "-p needs a prompt"},
		{[]string{"--json"}, "--json needs -p"},
		{[]string{"-C", filepath.Join(h.cwd, "nowhere"), "-p", "x"}, "not a directory"},
		{[]string{"--pick"}, "--pick picks the session --resume continues: dev --resume --pick"},
		{[]string{"--resume", "--pick", "-p", "x"}, "--pick asks which session to continue, and -p asks nothing"},
		// Without a terminal (stdin is not one here).
		{[]string{"--resume", "--pick"}, "--pick asks which session to continue, and there is no terminal to answer on"},
	} {
		h.run(tt.args...).usage(t, tt.want)
	}
	h.config(map[string]any{"maxLoops": "many"})
	var cfgErr *config.Error
	if err := h.run("-p", "x").err; !errors.As(err, &cfgErr) {
		t.Errorf("an invalid config: %v, want a config error", err)
	}
}

// dev -p runs unattended: the answer alone on stdout; how the run ended
// comes back as the run's exit code.
func TestRunAutomated(t *testing.T) {
	h := newHome(t)
	srv := h.server(map[string]any{"maxLoops": 2})
	srv.Script(llmtest.Response{Content: llmtest.Reply("Done.", "DONE", "Hello there.")})
	r := h.run("--no-audit", "-p", "say hello").ok(t)
	if r.stdout != "Hello there.\n" {
		t.Errorf("stdout %q, want the answer alone", r.stdout)
	}
	if !strings.Contains(r.stderr, "session") {
		t.Errorf("stderr:\n%s", r.stderr)
	}

	// --json: one object per event and line on stdout, the result last.
	srv.Script(llmtest.Response{Content: llmtest.Reply("Done.", "DONE", "Again.")})
	r = h.run("--no-audit", "--resume", "--json", "-p", "again").ok(t)
	var last struct {
		Type     string `json:"type"`
		ExitCode int    `json:"exitCode"`
		Summary  string `json:"summary"`
	}
	sc := bufio.NewScanner(strings.NewReader(r.stdout))
	for sc.Scan() {
		if err := json.Unmarshal(sc.Bytes(), &last); err != nil {
			t.Fatalf("not a JSON line: %q", sc.Text())
		}
	}
	if last.Type != "result" || last.ExitCode != 0 || last.Summary != "Again." {
		t.Errorf("last line %+v\n%s", last, r.stdout)
	}

	// Two steps without DONE: maxLoops (exit 4), decided by app.
	srv.Script(llmtest.Response{Content: llmtest.Reply("Look.", "LIST_DIRECTORY", ".")}, llmtest.Response{Content: llmtest.Reply("Look.", "LIST_DIRECTORY", ".")})
	r = h.run("--no-audit", "-p", "loop")
	var exit *ExitError
	if !errors.As(r.err, &exit) || exit.Code != 4 || r.stdout != "" || !strings.Contains(r.stderr, "maxLoops") {
		t.Errorf("maxLoops: %v, stdout %q\n%s", r.err, r.stdout, r.stderr)
	}

	if err := h.run("--session", "333333", "-p", "x").err; !errors.Is(err, sessions.ErrNotFound) {
		t.Errorf("an unknown session prefix: %v", err)
	}
	if err := h.run("--session", "3", "-p", "x").err; !errors.Is(err, sessions.ErrBadID) {
		t.Errorf("a bad session id: %v", err)
	}
}

// Without -p, dev is a conversation on stdin; /exit ends it.
func TestRunInteractive(t *testing.T) {
	h := newHome(t)
	srv := h.server(nil)
	srv.Script(llmtest.Response{Content: llmtest.Reply("Done.", "DONE", "Hi!")})
	h.in = "hello\n/exit\n"
	r := h.run("--no-audit").ok(t)
	if !strings.Contains(r.stdout, "Hi!") {
		t.Errorf("the answer, on stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	}
	if got := len(srv.Requests()); got != 1 {
		t.Errorf("%d requests, want 1", got)
	}
}

// Ctrl+C during an automated run ends it as interrupted: the session is
// saved so, and the error is the interruption's.
func TestRunInterrupted(t *testing.T) {
	h := newHome(t)
	srv := h.server(nil)
	srv.Script(llmtest.Response{Hang: true})
	ran := make(chan result, 1)
	go func() { ran <- h.run("--no-audit", "-p", "wait") }()
	<-srv.Hanging()
	h.intr.interrupt()
	r := <-ran
	var exit *ExitError
	if !errors.As(r.err, &exit) || exit.Code != 130 {
		t.Errorf("interrupted: %v\n%s", r.err, r.stderr)
	}
}

// TestHelpFitsTheTerminal: every help page, dev's and each command's,
// fits a terminal of 80 columns and one of 60, wrapped between words, and
// one read through a pipe fits 80.
func TestHelpFitsTheTerminal(t *testing.T) {
	h := newHome(t)
	pages := [][]string{{"--help"}}
	for _, c := range newCLI(&devCmd{streams: &ui.Streams{}}, io.Discard).Commands {
		pages = append(pages, []string{c.Name, "--help"})
		for _, sub := range c.Subcommands {
			pages = append(pages, []string{c.Name, sub.Name, "--help"})
		}
	}
	for _, width := range []int{80, 60, 0} {
		h.outWidth = width
		limit := cmp.Or(width, 80)
		for _, args := range pages {
			r := h.run(args...).ok(t)
			for _, line := range strings.Split(r.stdout, "\n") {
				if n := uniseg.StringWidth(line); n > limit {
					t.Errorf("dev %s at %d columns: a line of %d:\n%s", strings.Join(args, " "), width, n, line)
				}
			}
		}
	}
	if len(pages) < 12 {
		t.Errorf("only %d help pages found", len(pages))
	}
}
