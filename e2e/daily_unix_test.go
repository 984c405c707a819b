//go:build unix

package e2e

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rivo/uniseg"

	"github.com/devagent/dev/llm/llmtest"
)

// Daily use (SPEC §17, issue 34), on a pseudo-terminal: switching the
// approval mode, plan mode and its question, Tab's list, Ctrl+C during a
// stream, several questions in one reply, /help at 80 columns.

// controls matches the terminal's control sequences, those with
// intermediate bytes (the cursor's shape, ESC [ 0 SP q) included.
var controls = regexp.MustCompile(`\x1b\[[0-9;?<=>]*[ -/]*[@-~]`)

// screenLines are the lines of a piece of the screen as a person sees
// them: escape sequences and carriage returns left out.
func screenLines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		l = controls.ReplaceAllString(l, "")
		if i := strings.LastIndexByte(strings.TrimRight(l, "\r"), '\r'); i >= 0 {
			l = l[i+1:] // what a carriage return wrote over
		}
		out = append(out, strings.TrimRight(l, "\r"))
	}
	return out
}

// Shift+Tab at the prompt goes through auto, edits, ask and plan, and the
// prompt shows the mode; /approval says it; the request goes out in the
// mode shown.
func TestTerminalShiftTabSwitchesTheApprovalMode(t *testing.T) {
	w := newWorld(t, nil)
	w.srv.Script(done("Planned."))
	term := w.startTerminal(t.Context(), "--no-audit")
	term.prompt("› ")
	for _, mode := range []string{"edits› ", "ask› ", "plan› "} {
		term.key("\x1b[Z") // Shift+Tab, as terminals send it
		term.expect(mode)
		term.editorReady()
	}
	term.typeLine("/approval")
	term.expect("approval: plan (")
	term.prompt("plan› ")
	term.typeLine("plan the change")
	term.expect("Carry it out?")
	term.prompt("answer› ")
	term.key("\x1b[Z") // not at a question: the mode stays
	term.editorReady()
	term.typeLine("n")
	term.expect("still in plan mode")
	term.prompt("plan› ")
	term.key("\x1b[Z")
	term.editorReady() // the prompt drawn again, as auto's
	term.typeLine("/approval")
	term.expect("approval: auto (")
	term.prompt("› ")
	term.key("\x04")
	if code := term.exitCode(); code != 0 {
		t.Fatalf("exit code %d", code)
	}
	if reqs := w.srv.Requests(); len(reqs) != 1 || !strings.Contains(lastUser(reqs[0]), "plan mode") {
		t.Fatalf("%d requests; the request went out outside plan mode", len(reqs))
	}
}

// Plan mode, from the request to "Carry it out?": a write is refused with
// a result that names plan mode, nothing changes, the plan is shown, and
// yes carries it out in auto mode with the plan as the next request.
func TestTerminalPlanModeThenCarryItOut(t *testing.T) {
	w := newWorld(t, nil)
	w.srv.Script(
		reply("I try to write first.", "WRITE_FILE", "greet.go\n```go\npackage hello\n```"),
		done("1. Write greet.go with Greet."),
		reply("Now I write it.", "WRITE_FILE", "greet.go\n```go\npackage hello\n```"),
		done("Wrote greet.go."),
	)
	term := w.startTerminal(t.Context(), "--no-audit", "--approval", "plan")
	term.prompt("plan› ")
	term.typeLine("add Greet")
	term.expect("✗ WRITE_FILE greet.go · Refused: WRITE_FILE is not available: the session is")
	term.expect("1. Write greet.go with Greet.")
	term.expect("Carry it out? [y]es, [e]dits (ask before commands), [n]o")
	term.prompt("answer› ")
	if _, err := os.Stat(filepath.Join(w.dir, "greet.go")); err == nil {
		t.Fatal("greet.go was written in plan mode")
	}
	term.typeLine("y")
	term.expect("approval: auto; carrying out the plan")
	term.expect("Wrote greet.go.")
	term.prompt("› ")
	term.key("\x04")
	if code := term.exitCode(); code != 0 {
		t.Fatalf("exit code %d", code)
	}
	if got := w.read("greet.go"); got != "package hello\n" {
		t.Errorf("greet.go after carrying the plan out: %q", got)
	}
	reqs := w.srv.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests, want 4", len(reqs))
	}
	if got := lastUser(reqs[1]); !strings.Contains(got, `tool="WRITE_FILE" ok="false"`) || !strings.Contains(got, "plan mode") {
		t.Errorf("the refusal: %q", got)
	}
	if got := lastUser(reqs[2]); !strings.Contains(got, "Carry out this plan, which I approved:\n\n1. Write greet.go with Greet.") || strings.Contains(got, "<plan_mode>") {
		t.Errorf("the plan did not come back as the next request: %q", got)
	}
}

// With -p, plan mode prints the plan and exits 0, changing nothing.
func TestPlanModeUnattended(t *testing.T) {
	w := newWorld(t, nil)
	w.srv.Script(
		reply("Write it.", "WRITE_FILE", "greet.go\n```go\npackage hello\n```"),
		reply("Remove the module.", "COMMAND", "rm go.mod"),
		done("1. Write greet.go."),
	)
	w.write("go.mod", "module hello\n")
	r := w.run("-p", "add Greet", "--approval", "plan")
	r.expect(t, 0)
	if r.stdout != "1. Write greet.go.\n" {
		t.Errorf("stdout %q, want the plan", r.stdout)
	}
	if _, err := os.Stat(filepath.Join(w.dir, "greet.go")); err == nil {
		t.Error("greet.go was written")
	}
	if w.read("go.mod") != "module hello\n" {
		t.Error("go.mod was removed")
	}
	if n := len(w.srv.Requests()); n != 3 {
		t.Errorf("%d requests, want 3 (a plan is not audited)", n)
	}
}

// Tab on a prefix several commands share lists them under the prompt,
// Tab again picks one in turn, and Ctrl+C clears the list and keeps the
// line as typed.
func TestTerminalTabListsItsChoices(t *testing.T) {
	w := newWorld(t, nil)
	term := w.startTerminal(t.Context(), "--no-audit")
	term.prompt("› ")
	term.typeKeys("/c")
	start := term.mark()
	term.key("\t")
	term.editorReady()
	if shown := term.since(start); !strings.Contains(shown, "/checkpoints") || !strings.Contains(shown, "/clear") || !strings.Contains(shown, "/compact") {
		t.Fatalf("Tab on /c did not list the choices:\n%q", shown)
	}
	start = term.mark()
	term.key("\x03") // Ctrl+C: the list goes, the line stays
	term.editorReady()
	if shown := term.since(start); strings.Contains(shown, "press Ctrl+C again") {
		t.Errorf("Ctrl+C during completion was taken as one at the prompt:\n%q", shown)
	}
	term.typeKeys("he")
	term.key("\t") // one candidate: in at once
	term.editorReady()
	term.key("\r")
	term.expect("no checkpoints yet") // /checkpoints ran: the line was kept
	term.prompt("› ")
	term.typeKeys("/c")
	term.key("\t")
	term.editorReady()
	term.key("\t") // the first candidate, on trial
	term.editorReady()
	term.key("\t") // the second
	term.editorReady()
	term.key("\r")
	term.expect("dev: new session") // /clear ran, picked from the list
	term.prompt("› ")
	term.key("\x04")
	if code := term.exitCode(); code != 0 {
		t.Fatalf("exit code %d", code)
	}
}

// Ctrl+C while a reply streams leaves its Thoughts on the screen, and the
// session keeps the partial reply, marked interrupted, out of the history
// the model reads.
func TestTerminalCtrlCKeepsThePartialReply(t *testing.T) {
	w := newWorld(t, nil)
	w.srv.Script(
		llmtest.Response{Content: llmtest.Reply("I am weighing the three ways to do this carefully", "DONE", "never"), ChunkSize: 80, Hang: true},
		done("Picked it up again."),
	)
	term := w.startTerminal(t.Context(), "--no-audit")
	term.prompt("› ")
	term.typeLine("take your time")
	waitFor(t, w.srv.Hanging(), "the reply to stream")
	// Streamed and read: the server sent the first chunk, dev shows it.
	term.expect("I am weighing")
	start := term.mark()
	term.key("\x03")
	term.expect("interrupted; the session is saved")
	shown := strings.Join(screenLines(term.since(start)), "\n")
	if !strings.Contains(shown, "  I am weighing") {
		t.Errorf("the streamed Thoughts did not stay on the screen:\n%s", shown)
	}
	term.prompt("› ")
	s := w.onlySession()
	var partial string
	for _, r := range s.Requests {
		if r.Interrupted {
			partial = r.Partial
		}
	}
	if !strings.Contains(partial, "## Thoughts\nI am weighing") {
		t.Errorf("the session did not keep the partial reply: %+v", s.Requests)
	}
	for _, m := range s.History {
		if m.Role == "assistant" {
			t.Errorf("the partial reply is in the history: %q", m.Content)
		}
	}
	term.typeLine("go on")
	term.expect("Picked it up again.")
	term.prompt("› ")
	term.key("\x04")
	term.exitCode()
	reqs := w.srv.Requests()
	if got := allContent(reqs[len(reqs)-1]); strings.Contains(got, "I am weighing") {
		t.Errorf("the partial reply was sent back to the model:\n%s", got)
	}
	if show := w.run("sessions", "show", s.ID); !strings.Contains(show.stdout, "│ I am weighing the three ways") {
		t.Errorf("dev sessions show does not show the partial reply:\n%s", show.stdout)
	}
}

// Several questions in one reply are asked as "Question 1 of N"; the same
// question twice is asked once.
func TestTerminalSeveralQuestionsInOneReply(t *testing.T) {
	w := newWorld(t, nil)
	w.srv.Script(
		llmtest.Response{Content: llmtest.Template("I need to know two things.", "",
			llmtest.Call{Tool: "ASK_USER", Input: "Which name?"},
			llmtest.Call{Tool: "ASK_USER", Input: "Which colour?"},
			llmtest.Call{Tool: "ASK_USER", Input: "Which name?"})},
		done("Named it."),
	)
	term := w.startTerminal(t.Context(), "--no-audit")
	term.prompt("› ")
	term.typeLine("name and paint it")
	term.expect("Question 1 of 2: Which name?")
	term.prompt("answer› ")
	term.typeLine("Bob")
	term.expect("Question 2 of 2: Which colour?")
	term.prompt("answer› ")
	start := term.mark()
	term.typeLine("blue")
	term.expect("Named it.")
	if again := term.since(start); strings.Contains(again, "Which name?") {
		t.Errorf("the same question was asked again:\n%s", again)
	}
	term.prompt("› ")
	term.key("\x04")
	term.exitCode()
	reqs := w.srv.Requests()
	if got := lastUser(reqs[1]); strings.Count(got, ">\nBob\n<") != 2 || !strings.Contains(got, "blue") {
		t.Errorf("the answers that reached the model: %q", got)
	}
}

// /help fits a terminal of 80 columns: no line over 80, none cut inside a
// word by the terminal.
func TestTerminalHelpFitsEightyColumns(t *testing.T) {
	w := newWorld(t, nil)
	term := w.startTerminalAt(t.Context(), 80)
	term.prompt("› ")
	term.typeLine("/help")
	start := term.mark()
	term.expect("the session is saved.")
	lines := screenLines(term.since(start))
	if len(lines) < 20 {
		t.Fatalf("/help has %d lines:\n%s", len(lines), strings.Join(lines, "\n"))
	}
	for _, l := range lines {
		if n := uniseg.StringWidth(l); n > 80 {
			t.Errorf("a line of %d columns: %q", n, l)
		}
	}
	term.prompt("› ")
	term.key("\x04")
	term.exitCode()
}

// Inside interactive mode: /checkpoints leaves out those where nothing
// changed unless asked for all, and a rewind names /rewind to undo it.
func TestInteractiveCheckpointsWording(t *testing.T) {
	w := newWorld(t, nil)
	w.srv.Script(
		reply("Write it.", "WRITE_FILE", "a.txt\n```\nalpha\n```"), done("Wrote a.txt."),
		done("Nothing to change."),
		done("Still nothing."),
	)
	r := w.runInput("write a\nanswer me\nanswer me again\n/checkpoints\n/checkpoints all\n/rewind 0\ny\n/exit\n", "--no-audit")
	r.expect(t, 0)
	out := r.stderr
	some := out[strings.Index(out, "/checkpoints all lists every one"):]
	if !strings.Contains(out, "checkpoints where nothing changed left out (/checkpoints all lists every one)") {
		t.Errorf("/checkpoints did not leave out the empty ones:\n%s", out)
	}
	before, all := strings.Count(out[:len(out)-len(some)], "before request"), strings.Count(some, "before request")
	if all <= before {
		t.Errorf("/checkpoints all lists %d 'before request' rows, /checkpoints %d:\n%s", all, before, out)
	}
	if !strings.Contains(out, "/rewind ") || !strings.Contains(out, "undoes this)") || strings.Contains(out, "dev rewind") {
		t.Errorf("the rewind does not name /rewind:\n%s", out)
	}
}

// Resume says which approval mode is on.
func TestResumeSaysTheApprovalMode(t *testing.T) {
	w := newWorld(t, nil)
	w.srv.Script(done("First."), done("Second."))
	w.run("--no-audit", "-p", "first").expect(t, 0)
	r := w.run("--no-audit", "--resume", "--approval", "edits", "-p", "second")
	r.expect(t, 0)
	if !strings.Contains(r.stderr, "approval: edits") {
		t.Errorf("resume does not say the approval mode:\n%s", r.stderr)
	}
}
