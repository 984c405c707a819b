//go:build unix

package e2e

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/devagent/dev/llm/llmtest"
)

// terminal runs dev on a pseudo-terminal, as a user's terminal would: it
// answers the cursor-position queries a line editor makes, and lets the test
// type and wait for what appears on the screen.
type terminal struct {
	t      testing.TB
	cmd    *exec.Cmd
	pty    *os.File
	mu     sync.Mutex
	screen bytes.Buffer // everything written to the terminal
	seen   int          // how much of screen expect has consumed
	asked  int          // how much of screen was searched for cursor queries
	grew   chan struct{}
	done   chan struct{}
}

func (w *world) startTerminal(ctx context.Context, args ...string) *terminal {
	w.t.Helper()
	return w.startTerminalAt(ctx, 100, args...)
}

// startTerminalAt is startTerminal on a window cols columns wide.
func (w *world) startTerminalAt(ctx context.Context, cols uint16, args ...string) *terminal {
	w.t.Helper()
	cmd, _, _ := w.command(ctx, args...)
	cmd.Stdout, cmd.Stderr = nil, nil
	cmd.Env = append(cmd.Env, "TERM=xterm", "NO_COLOR=1")
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 50, Cols: cols})
	if err != nil {
		w.t.Fatal(err)
	}
	term := &terminal{t: w.t, cmd: cmd, pty: f, grew: make(chan struct{}, 1), done: make(chan struct{})}
	go term.readScreen()
	w.t.Cleanup(func() {
		cmd.Process.Kill()
		<-term.done
		f.Close()
	})
	return term
}

func (term *terminal) readScreen() {
	defer close(term.done)
	buf := make([]byte, 4096)
	for {
		n, err := term.pty.Read(buf)
		if n > 0 {
			term.mu.Lock()
			term.screen.Write(buf[:n])
			queries := term.cursorQueries()
			term.mu.Unlock()
			// A terminal answers "where is the cursor?" (ESC[6n). The line
			// editor waits for the answer: one left unanswered (a query cut
			// in two by the reads) would hang dev at its prompt.
			for range queries {
				term.pty.Write([]byte("\x1b[1;1R"))
			}
			select {
			case term.grew <- struct{}{}:
			default:
			}
		}
		if err != nil {
			return
		}
	}
}

// cursorQueries counts the cursor queries written since the last count,
// a query split across two reads included. Called with mu held.
func (term *terminal) cursorQueries() int {
	query := []byte("\x1b[6n")
	n := 0
	for {
		i := bytes.Index(term.screen.Bytes()[term.asked:], query)
		if i < 0 {
			// What may be the start of a query stays to be searched again.
			term.asked = max(term.asked, term.screen.Len()-len(query)+1)
			return n
		}
		term.asked += i + len(query)
		n++
	}
}

// expect waits until want appears on the screen after what was already
// expected, and consumes the screen up to it.
func (term *terminal) expect(want string) {
	term.t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		term.mu.Lock()
		rest := term.screen.String()[term.seen:]
		if i := strings.Index(rest, want); i >= 0 {
			term.seen += i + len(want)
			term.mu.Unlock()
			return
		}
		term.mu.Unlock()
		select {
		case <-term.grew:
		case <-term.done:
			term.mu.Lock()
			defer term.mu.Unlock()
			if !strings.Contains(term.screen.String()[term.seen:], want) {
				term.t.Fatalf("dev ended before showing %q; screen:\n%s", want, term.screen.String())
			}
			return
		case <-deadline:
			term.mu.Lock()
			defer term.mu.Unlock()
			term.t.Fatalf("timed out waiting for %q; screen:\n%s", want, term.screen.String())
		}
	}
}

// prompt waits until the line editor shows prompt and waits for keys: it
// asks where the cursor is (readScreen answers) and shows the cursor again
// when its drawing is done.
func (term *terminal) prompt(prompt string) {
	term.t.Helper()
	term.expect(prompt)
	term.editorReady()
}

// editorReady waits for the line editor to finish drawing: its cursor query
// is answered and the cursor shown again. Keys sent before that would reach
// the editor in the same read as the terminal's answer, which it drops; a
// person typing never gets there first.
func (term *terminal) editorReady() {
	term.t.Helper()
	term.expect("\x1b[6n")
	term.expect("\x1b[?25h")
}

// resize makes the window cols columns wide while the line editor waits at
// its prompt, and waits for it to draw the prompt again at that width (it
// goes back to the line's start with ESC[<cols>D) and to be ready.
func (term *terminal) resize(cols uint16) {
	term.t.Helper()
	if err := pty.Setsize(term.pty, &pty.Winsize{Rows: 50, Cols: cols}); err != nil {
		term.t.Fatal(err)
	}
	term.expect(fmt.Sprintf("\x1b[%dD", cols))
	term.editorReady()
}

// typeLine types text at the line editor's prompt, a key at a time as a
// person does, then Enter.
func (term *terminal) typeLine(text string) {
	term.t.Helper()
	for _, r := range text {
		term.key(string(r))
		term.editorReady()
	}
	term.key("\r")
}

// key sends keys at once (Ctrl+C, Ctrl+D).
func (term *terminal) key(keys string) {
	term.t.Helper()
	if _, err := term.pty.Write([]byte(keys)); err != nil {
		term.t.Fatal(err)
	}
}

// exitCode waits for dev to end.
func (term *terminal) exitCode() int {
	term.t.Helper()
	err := term.cmd.Wait()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &exit):
		return exit.ExitCode()
	}
	term.t.Fatal(err)
	return -1
}

func TestInteractiveConversation(t *testing.T) {
	w := newWorld(t, nil)
	w.srv.Script(
		reply("I need a name.", "ASK_USER", "Which name should it have?"),
		done("Named it Bob."),
		done("Second turn done."),
	)
	term := w.startTerminal(t.Context(), "--no-audit")
	term.expect("Type /help for help.")
	term.prompt("› ")
	term.typeLine("name something")
	term.expect("Which name should it have?")
	term.prompt("answer› ")
	term.typeLine("Bob")
	term.expect("Named it Bob.")
	term.prompt("› ")
	term.typeLine("/tasks")
	term.prompt("› ")
	term.typeLine("and again")
	term.expect("Second turn done.")
	term.prompt("› ")
	term.typeLine("/exit")
	if code := term.exitCode(); code != 0 {
		t.Fatalf("exit code %d", code)
	}
	reqs := w.srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3", len(reqs))
	}
	if got := lastUser(reqs[1]); !strings.Contains(got, `tool="ASK_USER" ok="true"`) || !strings.Contains(got, "Bob") {
		t.Errorf("the answer did not reach the model: %q", got)
	}
	if got := lastUser(reqs[2]); !strings.Contains(got, "<user_request>\nand again\n</user_request>") {
		t.Errorf("second turn: %q", got)
	}
	s := w.onlySession()
	if s.Status != "complete" || s.OriginalPrompt != "name something" {
		t.Errorf("session status %q prompt %q", s.Status, s.OriginalPrompt)
	}
	// The history is kept per working directory (SPEC §17), in the config
	// directory, and does not record the answer to ASK_USER.
	files, _ := filepath.Glob(filepath.Join(w.home, "histories", "*"))
	if len(files) != 1 {
		t.Fatalf("history files %v, want one for the directory", files)
	}
	history, err := os.ReadFile(files[0])
	if err != nil || !strings.Contains(string(history), "name something") || !strings.Contains(string(history), "and again") {
		t.Errorf("the prompt history is not kept in the config directory: %v\n%s", err, history)
	}
	if strings.Contains(string(history), "Bob") {
		t.Errorf("the answer to ASK_USER is in the history:\n%s", history)
	}
}

func TestInteractiveCtrlCDuringAStream(t *testing.T) {
	w := newWorld(t, nil)
	w.srv.Script(
		llmtest.Response{Content: llmtest.Reply("Thinking for a long time", "DONE", "never"), Hang: true},
		done("Picked it up again."),
	)
	term := w.startTerminal(t.Context(), "--no-audit")
	term.prompt("› ")
	term.typeLine("take your time")
	select {
	case <-w.srv.Hanging():
	case <-time.After(30 * time.Second):
		t.Fatal("the request never reached the server")
	}
	term.key("\x03") // Ctrl+C, as the terminal sends it
	term.expect("interrupted")
	term.prompt("› ")
	s := w.onlySession()
	if s.Status != "interrupted" {
		t.Errorf("status after Ctrl+C %q, want interrupted", s.Status)
	}
	if last := s.History[len(s.History)-1]; last.Role != "user" || !strings.Contains(last.Content, "interrupted") {
		t.Errorf("the interruption is not noted in history: %+v", last)
	}
	term.typeLine("go on")
	term.expect("Picked it up again.")
	term.prompt("› ")
	term.key("\x04") // Ctrl+D leaves
	if code := term.exitCode(); code != 0 {
		t.Fatalf("exit code %d", code)
	}
	reqs := w.srv.Requests()
	if got := allContent(reqs[len(reqs)-1]); !strings.Contains(got, "interrupted") || !strings.Contains(got, "go on") {
		t.Errorf("the next turn does not tell the model about the interruption:\n%s", got)
	}
}

// Ctrl+C at an empty prompt asks for a second one, and only a second one
// within 2 s leaves (SPEC §17; before, the first one left, so a double
// Ctrl+C meant to interrupt a request ended dev).
func TestInteractiveCtrlCTwiceAtAnEmptyPromptLeaves(t *testing.T) {
	w := newWorld(t, nil)
	term := w.startTerminal(t.Context())
	term.prompt("› ")
	for _, r := range "half a thought" {
		term.key(string(r))
		term.editorReady()
	}
	term.key("\x03") // drops the line being typed
	term.prompt("› ")
	term.key("\x03") // at an empty prompt: asks for another
	term.expect("press Ctrl+C again to exit")
	term.prompt("› ")
	term.typeLine("/help") // dev is still there
	term.expect("/resume")
	term.prompt("› ")
	term.key("\x03")
	term.expect("press Ctrl+C again to exit")
	term.prompt("› ")
	term.key("\x03") // the second, at once: leave
	if code := term.exitCode(); code != 0 {
		t.Fatalf("exit code %d", code)
	}
	if n := len(w.srv.Requests()); n != 0 {
		t.Errorf("%d requests", n)
	}
}

func TestInteractiveResumeShowsWhereItStood(t *testing.T) {
	w := newWorld(t, nil)
	w.srv.Script(llmtest.Response{Content: llmtest.Template("Finished.", "[x] write the notes\n[ ] review them",
		llmtest.Call{Tool: "DONE", Input: "Wrote the notes."})})
	w.run("--no-audit", "-p", "write the notes").expect(t, 0)

	term := w.startTerminal(t.Context(), "--resume")
	term.expect("resumed session")
	term.expect("write the notes")
	term.expect("Wrote the notes.")
	term.expect("[x] write the notes")
	term.expect("[ ] review them")
	term.prompt("› ")
	term.typeLine("/exit")
	if code := term.exitCode(); code != 0 {
		t.Fatalf("exit code %d", code)
	}
}
