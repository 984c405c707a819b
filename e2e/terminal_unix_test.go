//go:build unix

package e2e

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/rivo/uniseg"

	"github.com/devagent/dev/llm"
	"github.com/devagent/dev/llm/llmtest"
)

// The terminal experience of SPEC §17, on a pseudo-terminal.

// since is the screen from mark on.
func (term *terminal) since(mark int) string {
	term.mu.Lock()
	defer term.mu.Unlock()
	return term.screen.String()[mark:]
}

// mark is how much of the screen was consumed.
func (term *terminal) mark() int {
	term.mu.Lock()
	defer term.mu.Unlock()
	return term.seen
}

// held is a scripted reply that waits, once the request arrived, until
// release is closed.
func held(arrived chan<- struct{}, release <-chan struct{}, r llmtest.Response) llmtest.Response {
	return llmtest.Response{Respond: func(ctx context.Context, _ llmtest.Request) llmtest.Response {
		close(arrived)
		select {
		case <-release:
		case <-ctx.Done():
		}
		return r
	}}
}

func waitFor(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(30 * time.Second):
		t.Fatalf("timed out waiting for %s", what)
	}
}

// A pasted text of several lines is one message: bracketed paste is on.
func TestTerminalPasteIsOneMessage(t *testing.T) {
	w := newWorld(t, nil)
	w.srv.Script(done("Got both lines."))
	term := w.startTerminal(t.Context(), "--no-audit")
	term.expect("\x1b[?2004h") // the terminal is asked to mark pastes
	term.prompt("› ")
	term.key("\x1b[200~first pasted line\rsecond pasted line\x1b[201~")
	term.editorReady()
	term.key("\r")
	term.expect("Got both lines.")
	term.prompt("› ")
	term.key("\x04")
	if code := term.exitCode(); code != 0 {
		t.Fatalf("exit code %d", code)
	}
	reqs := w.srv.Requests()
	if len(reqs) != 1 || !strings.Contains(lastUser(reqs[0]), "first pasted line\nsecond pasted line") {
		t.Fatalf("%d requests; the first: %q", len(reqs), lastUser(reqs[0]))
	}
}

// Text typed while dev works is not echoed into its output and is not
// lost: it waits on the next prompt's line.
func TestTerminalTypeAheadIsKept(t *testing.T) {
	w := newWorld(t, nil)
	arrived, release := make(chan struct{}), make(chan struct{})
	w.srv.Script(held(arrived, release, done("First answer.")), done("Second answer."))
	term := w.startTerminal(t.Context(), "--no-audit")
	term.prompt("› ")
	term.typeLine("first request")
	waitFor(t, arrived, "the first request")
	before := term.mark()
	term.key("next thing to do")
	close(release)
	term.expect("First answer.")
	shown := term.since(before)
	if shown = shown[:strings.Index(shown, "First answer.")]; strings.Contains(shown, "next thing") {
		t.Errorf("the text typed meanwhile was echoed before the answer:\n%q", shown)
	}
	term.expect("next thing to do") // on the next prompt's line
	term.expect("\x1b[?25h")        // drawn
	term.key("\r")
	term.expect("Second answer.")
	term.prompt("› ")
	term.key("\x04")
	term.exitCode()
	reqs := w.srv.Requests()
	if len(reqs) != 2 || !strings.Contains(lastUser(reqs[1]), "<user_request>\nnext thing to do\n</user_request>") {
		t.Fatalf("%d requests; the second: %q", len(reqs), lastUser(reqs[len(reqs)-1]))
	}
}

// Tab completes a slash command and a path after @.
func TestTerminalTabCompletion(t *testing.T) {
	w := newWorld(t, nil)
	w.write("notes-for-dev.txt", "remember the milk\n")
	w.srv.Script(done("Read them."))
	term := w.startTerminal(t.Context(), "--no-audit")
	term.prompt("› ")
	for _, r := range "/hel" {
		term.key(string(r))
		term.editorReady()
	}
	term.key("\t")
	term.editorReady()
	term.key("\r")
	term.expect("/resume") // /help's list
	term.prompt("› ")
	for _, r := range "read @notes-f" {
		term.key(string(r))
		term.editorReady()
	}
	term.key("\t")
	term.editorReady()
	term.key("\r")
	term.expect("Read them.")
	term.prompt("› ")
	term.key("\x04")
	term.exitCode()
	if reqs := w.srv.Requests(); len(reqs) != 1 || !strings.Contains(lastUser(reqs[0]), "read @notes-for-dev.txt") {
		t.Fatalf("the @ path was not completed: %q", lastUser(reqs[0]))
	}
}

// boxWidths are the widths of the top lines of the boxes on a screen.
func boxWidths(screen string) []int {
	var widths []int
	for _, l := range strings.Split(screen, "\n") {
		l = strings.TrimRight(ansi.ReplaceAllString(l, ""), "\r")
		if i := strings.Index(l, "┌─ "); i >= 0 {
			widths = append(widths, uniseg.StringWidth(l[i:]))
		}
	}
	return widths
}

var ansi = regexp.MustCompile(`\x1b\[[0-9;?]*[A-Za-z]`)

// Frames follow the window's width when it is resized between requests
// (-v: the calm screen has none).
func TestTerminalResizeBetweenRequests(t *testing.T) {
	w := newWorld(t, nil)
	w.srv.Script(reply("Look.", "LIST_DIRECTORY", "."), done("Looked."), reply("Again.", "LIST_DIRECTORY", "."), done("Looked again."))
	term := w.startTerminal(t.Context(), "--no-audit", "-v")
	term.prompt("› ")
	start := term.mark()
	term.typeLine("look")
	term.expect("Looked.")
	term.prompt("› ")
	wide := boxWidths(term.since(start))
	// The editor draws its prompt again at once; typing while it does could
	// lose a key (the line editor drops keys that come in one read with the
	// terminal's answer to its cursor query).
	term.resize(60)
	start = term.mark()
	term.typeLine("look again")
	term.expect("Looked again.")
	term.prompt("› ")
	narrow := boxWidths(term.since(start))
	term.key("\x04")
	term.exitCode()
	if len(wide) == 0 || len(narrow) == 0 {
		t.Fatalf("no boxes: %v %v", wide, narrow)
	}
	for _, n := range wide {
		if n != 100 {
			t.Errorf("before the resize a box is %d wide, want 100", n)
		}
	}
	for _, n := range narrow {
		if n != 60 {
			t.Errorf("after the resize a box is %d wide, want 60", n)
		}
	}
}

// A running command's output shows while it runs: the command goes on
// only once its first line is on the screen.
func TestTerminalLiveCommandOutput(t *testing.T) {
	// The command cannot move to the background (and show its output in
	// a result) before expect gives up.
	w := newWorld(t, map[string]any{"commandTimeout": 120})
	w.srv.Script(reply("Build.", "COMMAND", "echo live-marker-$((40+2)); while [ ! -e go-on ]; do sleep 0.05; done; echo after"), done("Built."))
	term := w.startTerminal(t.Context(), "--no-audit")
	term.prompt("› ")
	term.typeLine("build it")
	term.expect("live-marker-42") // the output, not the command
	if _, err := os.Stat(filepath.Join(w.dir, "go-on")); err == nil {
		t.Fatal("go-on exists already")
	}
	w.write("go-on", "")
	term.expect("Built.")
	term.prompt("› ")
	term.key("\x04")
	term.exitCode()
}

// After a request: the answer rendered as markdown, once, then one status
// line with the model, steps, tokens, context and time.
func TestTerminalAnswerAndStatusLine(t *testing.T) {
	w := newWorld(t, nil)
	summary := "## Result\n\nAdded **Greet** in `greet.go`.\n\n| check | result |\n|---|---|\n| tests | PASS |"
	w.srv.Script(llmtest.Response{Content: llmtest.Reply("Done.", "DONE", summary),
		Usage: &llm.Usage{PromptTokens: 1234, CompletionTokens: 34, TotalTokens: 1268}})
	term := w.startTerminal(t.Context(), "--no-audit")
	term.prompt("› ")
	start := term.mark()
	term.typeLine("greet")
	term.expect("1 step")
	term.prompt("› ")
	shown := ansi.ReplaceAllString(term.since(start), "")
	term.key("\x04")
	term.exitCode()
	for _, want := range []string{"Result\r\n──────", "Added Greet in greet.go.", "check │ result", "tests │ PASS",
		"✓ done", "mock-model · 1 step", "1,234 in, 34 out", "context <1% of 131.1k"} {
		if !strings.Contains(shown, want) {
			t.Errorf("lacks %q:\n%s", want, shown)
		}
	}
	for _, raw := range []string{"**", "`", "|---|", "## Result"} {
		if strings.Contains(shown, raw) {
			t.Errorf("raw markdown %q on the screen:\n%s", raw, shown)
		}
	}
	if n := strings.Count(shown, "Added Greet"); n != 1 {
		t.Errorf("the answer is shown %d times:\n%s", n, shown)
	}
}

// Ctrl+C at the answer› prompt interrupts the request like any Ctrl+C
// while dev works: back to the prompt, no internal error.
func TestTerminalCtrlCAtAQuestion(t *testing.T) {
	w := newWorld(t, nil)
	w.srv.Script(reply("I need a name.", "ASK_USER", "Which name should it have?"), done("Picked up again."))
	term := w.startTerminal(t.Context(), "--no-audit")
	term.prompt("› ")
	start := term.mark()
	term.typeLine("name something")
	term.expect("Which name should it have?")
	term.prompt("answer› ")
	term.key("\x03")
	term.expect("interrupted; the session is saved")
	term.prompt("› ")
	shown := term.since(start)
	for _, internal := range []string{"context canceled", "could not be asked", "Error:"} {
		if strings.Contains(shown, internal) {
			t.Errorf("the screen shows %q:\n%s", internal, shown)
		}
	}
	term.typeLine("go on")
	term.expect("Picked up again.")
	term.prompt("› ")
	term.key("\x04")
	term.exitCode()
	if s := w.onlySession(); s.Status != "complete" {
		t.Errorf("status %q", s.Status)
	}
}

// /last shows the last tool result in full, through $PAGER when it is set.
func TestTerminalLastThroughThePager(t *testing.T) {
	w := newWorld(t, nil)
	w.extra = append(w.extra, "PAGER=sed s/^/PAGED:/")
	w.srv.Script(reply("Count.", "COMMAND", "seq 1 40"), done("Counted."))
	term := w.startTerminal(t.Context(), "--no-audit")
	term.prompt("› ")
	start := term.mark()
	term.typeLine("count")
	term.expect("Counted.")
	term.prompt("› ")
	if shown := term.since(start); strings.Contains(shown, "│ 20 ") {
		t.Errorf("the result box shows the middle of a long output:\n%s", shown)
	}
	term.typeLine("/last")
	for _, want := range []string{"PAGED:COMMAND seq 1 40", "PAGED:1\r\n", "PAGED:20\r\n", "PAGED:40\r\n"} {
		term.expect(want)
	}
	term.prompt("› ")
	term.key("\x04")
	term.exitCode()
}

// Without a UTF-8 locale, at 60 columns, everything dev draws is ASCII and
// fits the width: on the calm screen, and with -v's boxes.
func TestTerminalASCIIAt60Columns(t *testing.T) {
	for _, tt := range []struct {
		flag string
		want []string
	}{
		{"-v", []string{"+- Tool: COMMAND", "n | square"}},
		{"--no-audit", []string{"ok COMMAND seq 1 30; echo word word", "  [~] count  [ ] report", "  Thoughts that are long enough", "n | square"}},
	} {
		t.Run(tt.flag, func(t *testing.T) {
			w := newWorld(t, nil)
			w.extra = append(w.extra, "LANG=C")
			long := strings.Repeat("word ", 30)
			w.srv.Script(llmtest.Response{Content: llmtest.Template("Thoughts that are long enough to wrap: "+long, "[~] count\n[ ] report",
				llmtest.Call{Tool: "COMMAND", Input: "seq 1 30; echo " + long}),
			}, done("| n | square |\n|---|---|\n| 2 | 4 |\n\n- "+long))
			term := w.startTerminalAt(t.Context(), 60, "--no-audit", tt.flag)
			term.prompt("> ")
			term.typeLine("count")
			start := term.mark()
			term.expect("ok done")
			term.prompt("> ")
			shown := term.since(start)
			term.key("\x04")
			term.exitCode()
			for _, r := range shown {
				if r > 127 {
					t.Fatalf("non-ASCII %q on the screen:\n%s", r, shown)
				}
			}
			for _, l := range strings.Split(ansi.ReplaceAllString(shown, ""), "\r\n") {
				l = l[strings.LastIndex(l, "\r")+1:] // what a carriage return left visible
				if len(l) > 60 && !strings.Contains(l, "> ") {
					t.Errorf("a line of %d columns: %q", len(l), l)
				}
			}
			for _, want := range tt.want {
				if !strings.Contains(shown, want) {
					t.Errorf("lacks %q; screen:\n%s", want, shown)
				}
			}
		})
	}
}

// Closing the terminal while dev works (the window closed, ssh dropped)
// sends SIGHUP: dev ends like on SIGTERM, stopping every process its
// commands left, and the session is saved interrupted. Before, dev died
// of the signal (exit 129) and every child survived.
func TestTerminalClosedWhileWorking(t *testing.T) {
	w := newWorld(t, nil)
	arrived, release := make(chan struct{}), make(chan struct{})
	defer close(release)
	w.srv.Script(reply("Start.", "COMMAND", lingerCommand()), held(arrived, release, done("Never.")))
	term := w.startTerminal(t.Context(), "--no-audit")
	term.prompt("› ")
	term.typeLine("start things")
	waitFor(t, arrived, "the second request")
	term.pty.Close()
	if code := term.exitCode(); code != 130 {
		t.Errorf("exit code %d, want 130", code)
	}
	pids := w.lingerPIDs()
	if left := running(pids); len(left) > 0 {
		t.Errorf("%d of %d processes the command left outlive dev: %v", len(left), len(pids), left)
	}
	if s := w.onlySession(); s.Status != "interrupted" {
		t.Errorf("session status %q, want interrupted", s.Status)
	}
}

// typeKeys types text a key at a time, waiting for the line editor after
// each, as typeLine does, without Enter.
func (term *terminal) typeKeys(text string) {
	term.t.Helper()
	for _, r := range text {
		term.key(string(r))
		term.editorReady()
	}
}

// Tab replaces the word it completes and nothing else: what is typed after
// a completion is kept whole. Before, typing a space after a completion
// cut the completion's last character ("/revie main.go", "@main.g please").
func TestTerminalTabThenTypingKeepsEveryCharacter(t *testing.T) {
	w := newWorld(t, nil)
	w.write(".dev/commands/review.md", "Review $ARGUMENTS for bugs.\n")
	w.write("main.go", "package main\n")
	w.write("my notes.md", "notes\n")
	w.srv.Script(done("Reviewed."), done("Read it."), done("Read them."))
	term := w.startTerminal(t.Context(), "--no-audit")
	term.prompt("› ")
	term.typeKeys("/rev")
	term.key("\t")
	term.editorReady()
	term.typeLine(" main.go")
	term.expect("Reviewed.")
	term.prompt("› ")
	term.typeKeys("look at @ma")
	term.key("\t")
	term.editorReady()
	term.typeLine(" please")
	term.expect("Read it.")
	term.prompt("› ")
	term.typeKeys(`and @"my`)
	term.key("\t")
	term.editorReady()
	term.typeLine(" too")
	term.expect("Read them.")
	term.prompt("› ")
	term.key("\x04")
	term.exitCode()
	reqs := w.srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3", len(reqs))
	}
	for i, want := range []string{"Review main.go for bugs.", "look at @main.go please\n", "and @\"my notes.md\" too\n"} {
		if got := lastUser(reqs[i]); !strings.Contains(got, want) {
			t.Errorf("request %d lacks %q:\n%s", i+1, want, got)
		}
	}
}

// Letters beyond ASCII are typed like any other, and Tab after them loses
// nothing. Before, é, ü and the like (U+0080 to U+00FF) were read as Alt
// and a key and vanished.
func TestTerminalTypesEveryLetter(t *testing.T) {
	w := newWorld(t, nil)
	w.write("résumé.md", "x\n")
	w.srv.Script(done("Read it."))
	term := w.startTerminal(t.Context(), "--no-audit")
	term.prompt("› ")
	term.typeKeys("café über @résu")
	term.key("\t")
	term.editorReady()
	term.typeLine(" now")
	term.expect("Read it.")
	term.prompt("› ")
	term.key("\x04")
	term.exitCode()
	got := lastUser(w.srv.Requests()[0])
	// Completed or not, every character typed is there.
	if !strings.Contains(got, "café über @résu now") && !strings.Contains(got, "café über @résumé.md now") {
		t.Errorf("the request lost what was typed:\n%s", got)
	}
}

// Alt+Enter starts a new line of the same message, as `\` and Enter do.
func TestTerminalAltEnterInsertsANewline(t *testing.T) {
	w := newWorld(t, nil)
	w.srv.Script(done("Got both lines."))
	term := w.startTerminal(t.Context(), "--no-audit")
	term.prompt("› ")
	term.typeKeys("first line")
	term.key("\x1b\r") // Alt+Enter, as terminals send it
	term.editorReady()
	term.typeLine("second line")
	term.expect("Got both lines.")
	term.prompt("› ")
	term.key("\x04")
	term.exitCode()
	reqs := w.srv.Requests()
	if len(reqs) != 1 || !strings.Contains(lastUser(reqs[0]), "<user_request>\nfirst line\nsecond line\n</user_request>") {
		t.Fatalf("%d requests; the first: %q", len(reqs), lastUser(reqs[0]))
	}
}

// spinnerFrames are what the live part draws while dev waits: a spinner
// frame, or a running command's timer.
var spinnerFrames = regexp.MustCompile(`[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]|Waiting for the model|Thinking\.\.\.`)

// quietWhileAsked waits at a question long enough for the live part to
// redraw several times if it still ran (it redraws ten times a second),
// and fails if anything was drawn since mark. The pause is what is tested:
// there is no event to wait for when nothing may happen.
func (term *terminal) quietWhileAsked(mark int, what string) {
	term.t.Helper()
	time.Sleep(700 * time.Millisecond)
	shown := term.since(mark)
	if f := spinnerFrames.FindString(shown); f != "" {
		term.t.Errorf("while %s waits, the live part draws %q:\n%q", what, f, shown)
	}
}

// A command waiting for approval is a question, not a command running:
// no spinner, no timer, and the answer› prompt. Before, the spinner went
// on counting under "Run this command?" and drew over the prompt.
func TestTerminalApprovalIsAQuestion(t *testing.T) {
	w := newWorld(t, nil)
	w.srv.Script(reply("List.", "COMMAND", "ls -la"), done("Listed."))
	term := w.startTerminal(t.Context(), "--no-audit", "--approval", "edits")
	term.prompt("› ")
	term.typeLine("list")
	term.expect("Run this command?")
	mark := term.mark()
	term.prompt("answer› ")
	term.quietWhileAsked(mark, "an approval")
	term.typeLine("y")
	term.expect("Listed.")
	term.prompt("› ")
	term.key("\x04")
	term.exitCode()
	if reqs := w.srv.Requests(); len(reqs) != 2 || !strings.Contains(lastUser(reqs[1]), `tool="COMMAND" ok="true"`) {
		t.Errorf("the approved command did not run: %q", lastUser(reqs[len(reqs)-1]))
	}
}

// ASK_USER is a question the same way: no spinner, the answer› prompt.
func TestTerminalAskUserIsAQuestion(t *testing.T) {
	w := newWorld(t, nil)
	w.srv.Script(reply("I need a name.", "ASK_USER", "Which name should it have?"), done("Named it Bob."))
	term := w.startTerminal(t.Context(), "--no-audit")
	term.prompt("› ")
	term.typeLine("name something")
	term.expect("Which name should it have?")
	mark := term.mark()
	term.prompt("answer› ")
	term.quietWhileAsked(mark, "ASK_USER")
	term.typeLine("Bob")
	term.expect("Named it Bob.")
	term.prompt("› ")
	term.key("\x04")
	term.exitCode()
}

// The rewind's question is answered at the answer› prompt like every
// other, after a preview that says what happens to each file: a file the
// request created is deleted, one it changed restored, one it deleted
// recreated (SPEC §12's words).
func TestTerminalUndoAsksAtTheAnswerPrompt(t *testing.T) {
	w := newWorld(t, nil)
	w.write("kept.txt", "as it was\n")
	w.write("gone.txt", "still needed\n")
	w.srv.Script(llmtest.Response{Content: llmtest.Template("Write, change, remove.", "",
		llmtest.Call{Tool: "WRITE_FILE", Input: "new.txt\n```\nhello\n```"},
		llmtest.Call{Tool: "WRITE_FILE", Input: "kept.txt\n```\nchanged\n```"},
		llmtest.Call{Tool: "COMMAND", Input: "rm gone.txt"})}, done("Wrote it."))
	term := w.startTerminal(t.Context(), "--no-audit")
	term.prompt("› ")
	term.typeLine("write it")
	term.expect("Wrote it.")
	term.prompt("› ")
	term.typeLine("/undo")
	term.expect("Rewind to checkpoint 0")
	start := term.mark()
	term.expect("Rewind? [y/N]\r\n")
	preview := visible(term.since(start))
	for _, want := range []string{"  delete   new.txt", "  restore  kept.txt", "  recreate gone.txt"} {
		if !hasLine(preview, want) {
			t.Errorf("the preview lacks %q:\n%s", want, strings.Join(preview, "\n"))
		}
	}
	term.prompt("answer› ")
	term.typeLine("y")
	term.prompt("› ")
	term.key("\x04")
	term.exitCode()
	if _, err := os.Stat(filepath.Join(w.dir, "new.txt")); !os.IsNotExist(err) {
		t.Errorf("new.txt is still there after /undo: %v", err)
	}
	if got := w.read("kept.txt"); got != "as it was\n" {
		t.Errorf("kept.txt after /undo: %q", got)
	}
	if got := w.read("gone.txt"); got != "still needed\n" {
		t.Errorf("gone.txt after /undo: %q", got)
	}
}

// Type-ahead keeps letters beyond ASCII whole.
func TestTerminalTypeAheadKeepsEveryLetter(t *testing.T) {
	w := newWorld(t, nil)
	arrived, release := make(chan struct{}), make(chan struct{})
	w.srv.Script(held(arrived, release, done("First answer.")), done("Second answer."))
	term := w.startTerminal(t.Context(), "--no-audit")
	term.prompt("› ")
	term.typeLine("first request")
	waitFor(t, arrived, "the first request")
	term.key("café über")
	close(release)
	term.expect("First answer.")
	term.expect("café über")
	term.expect("\x1b[?25h")
	term.key("\r")
	term.expect("Second answer.")
	term.prompt("› ")
	term.key("\x04")
	term.exitCode()
	if reqs := w.srv.Requests(); len(reqs) != 2 || !strings.Contains(lastUser(reqs[1]), "<user_request>\ncafé über\n</user_request>") {
		t.Fatalf("%d requests; the second: %q", len(reqs), lastUser(reqs[len(reqs)-1]))
	}
}
