//go:build unix

package e2e

import (
	"strings"
	"testing"
)

// dev --resume --pick lists this directory's sessions numbered, newest
// first, with their first and last requests, and resumes the one whose
// number is typed (SPEC §17). Before, --resume took the last session and
// another needed its id.
func TestResumePick(t *testing.T) {
	w := newWorld(t, nil)
	first, second := twoSessions(t, w)

	term := w.startTerminalAt(t.Context(), 100, "--resume", "--pick")
	term.expect("REQS  FIRST REQUEST     LAST REQUEST")
	term.expect("1  " + second[:7])
	term.expect("fix the build")
	term.expect("2  " + first[:7])
	term.expect("write the parser  and the docs from @notes.md")
	term.expect("Resume which session? Type its number (1 to 2), or press Enter for none.")
	term.prompt("answer› ")
	term.typeLine("2")
	term.expect("resumed session " + first)
	term.expect("and the docs from @notes.md") // where it stood: its last request
	term.prompt("› ")
	term.typeLine("/exit")
	if code := term.exitCode(); code != 0 {
		t.Fatalf("exit code %d", code)
	}

	// Nothing picked: nothing resumed, and why.
	for _, c := range []struct {
		keys, says string
		code       int
	}{
		{"5\r", `dev: nothing resumed: "5" is not a number from 1 to 2`, 2},
		{"\r", "dev: nothing resumed: no number was typed", 2},
		{"\x03", "dev: nothing resumed (Ctrl+C)", 130},
	} {
		term := w.startTerminalAt(t.Context(), 100, "--resume", "--pick")
		term.prompt("answer› ")
		term.key(c.keys)
		term.expect(c.says)
		if code := term.exitCode(); code != c.code {
			t.Errorf("answering %q: exit code %d, want %d", c.keys, code, c.code)
		}
		if strings.Contains(term.since(0), "resumed session") {
			t.Errorf("answering %q resumed a session:\n%s", c.keys, term.since(0))
		}
	}

	// With -p, or without a terminal, --pick is a usage error that says why.
	for _, args := range [][]string{{"--resume", "--pick", "-p", "go on"}, {"--resume", "--pick"}} {
		r := w.run(args...)
		r.expect(t, 2)
		if !strings.Contains(r.stderr, "--pick asks which session to continue") {
			t.Errorf("dev %q: %s", args, r.stderr)
		}
	}
	if n := len(w.srv.Requests()); n != 4 { // the four requests of twoSessions
		t.Errorf("%d model requests, want 4", n)
	}
}

// /resume without an id lists the directory's other sessions numbered and
// switches to the one whose number is typed; an answer that is not a
// number of the list, or Ctrl+C, resumes nothing and the session goes on.
func TestInteractiveResumePicker(t *testing.T) {
	w := newWorld(t, nil)
	first, second := twoSessions(t, w)

	term := w.startTerminalAt(t.Context(), 100, "--resume") // the last: the second
	term.expect("resumed session " + second)
	term.prompt("› ")
	term.typeLine("/resume")
	term.expect("1  " + first[:7])
	term.expect("write the parser  and the docs from @notes.md")
	term.prompt("answer› ")
	term.typeLine("9")
	term.expect(`dev: nothing resumed: "9" is not a number from 1`)
	term.prompt("› ")
	term.typeLine("/resume")
	term.prompt("answer› ")
	term.key("\x03")
	term.expect("dev: nothing resumed (Ctrl+C)")
	term.prompt("› ")
	term.typeLine("/resume")
	term.prompt("answer› ")
	term.typeLine("1")
	term.expect("resumed session " + first)
	term.prompt("› ")
	term.typeLine("/sessions")
	term.expect("*  " + first[:7])
	term.prompt("› ")
	term.typeLine("/exit")
	if code := term.exitCode(); code != 0 {
		t.Fatalf("exit code %d", code)
	}
}
