//go:build unix

package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/devagent/dev/llm/llmtest"
)

// The calm screen and the resumed view of SPEC §17, on a pseudo-terminal.

// visible is what a screen shows of text written to it: escape codes
// dropped, each line as a carriage return left it, blank lines kept.
func visible(shown string) []string {
	var out []string
	for _, l := range strings.Split(ansi.ReplaceAllString(shown, ""), "\r\n") {
		out = append(out, l[strings.LastIndex(l, "\r")+1:])
	}
	return out
}

// hasLine reports whether one of lines is want, space at its end aside;
// a box's top line (┌─ Title) only needs to start with want.
func hasLine(lines []string, want string) bool {
	for _, l := range lines {
		if strings.TrimRight(l, " ") == want || strings.HasPrefix(want, "┌─") && strings.HasPrefix(l, want) {
			return true
		}
	}
	return false
}

// threeSteps scripts a run of three steps: a listing, an edit, a DONE
// whose summary is markdown.
func threeSteps(w *world) {
	w.write("main.go", "package main\n\nfunc main() { println(\"hi\") }\n")
	w.srv.Script(
		llmtest.Response{Content: llmtest.Template("I look at the project first.", "[~] look\n[ ] greet",
			llmtest.Call{Tool: "LIST_DIRECTORY", Input: "."})},
		llmtest.Response{Content: llmtest.Template("main.go prints hi; it should say hello.", "[x] look\n[~] greet",
			llmtest.Call{Tool: "FIND_AND_REPLACE_IN_FILE", Input: "main.go\n```find\nprintln(\"hi\")\n```\n```replace\nprintln(\"hello\")\n```"})},
		llmtest.Response{Content: llmtest.Template("It says hello now.", "[x] look\n[x] greet",
			llmtest.Call{Tool: "DONE", Input: "main.go now says **hello**."})},
	)
}

// The calm screen by default: a dim line of thoughts and a line per tool,
// the edit's diff, the task list when it changed, the answer rendered
// once, the status line; no box. -v draws the boxes; -q keeps the status
// line and the answer.
func TestTerminalCalmScreen(t *testing.T) {
	for _, tt := range []struct {
		flag      string
		want, not []string
	}{
		{"--no-audit", []string{
			"  I look at the project first.", "  [~] look  [ ] greet", "✓ LIST_DIRECTORY .",
			"  main.go prints hi; it should say hello.", "  [x] look  [~] greet", "✓ FIND_AND_REPLACE_IN_FILE main.go",
			`    -func main() { println("hi") }`, `    +func main() { println("hello") }`,
			"  It says hello now.", "  [x] greet", "main.go now says hello.",
		}, []string{"┌─", "└─", "Tool:", "Result"}},
		{"-v", []string{"┌─ Thoughts", "┌─ Task List", "┌─ Tool: LIST_DIRECTORY", "┌─ Result", "┌─ Diff: main.go", "main.go now says hello."}, nil},
		{"-q", []string{"main.go now says hello."}, []string{"LIST_DIRECTORY", "FIND_AND_REPLACE", "look at the project", "[x] look", "println", "┌─"}},
	} {
		t.Run(tt.flag, func(t *testing.T) {
			w := newWorld(t, nil)
			threeSteps(w)
			term := w.startTerminal(t.Context(), "--no-audit", tt.flag)
			term.prompt("› ")
			start := term.mark()
			term.typeLine("make it say hello")
			term.expect("✓ done")
			term.prompt("› ")
			shown := term.since(start)
			term.key("\x04")
			term.exitCode()
			lines := visible(shown)
			for _, want := range tt.want {
				if !hasLine(lines, want) {
					t.Errorf("no line %q:\n%s", want, strings.Join(lines, "\n"))
				}
			}
			for _, not := range tt.not {
				if strings.Contains(strings.Join(lines, "\n"), not) {
					t.Errorf("%q on the screen:\n%s", not, strings.Join(lines, "\n"))
				}
			}
			if n := strings.Count(shown, "main.go now says hello."); n != 1 {
				t.Errorf("the answer is shown %d times", n)
			}
			if !strings.Contains(shown, "✓ done (audit skipped: nothing changed)") && !strings.Contains(shown, "✓ done · mock-model · 3 steps") {
				t.Errorf("no status line:\n%s", strings.Join(lines, "\n"))
			}
			if tt.flag == "--no-audit" {
				// The request, 3 thoughts, 3 task lines, 2 tools, the diff
				// (a hunk and 3 lines), the answer and the status line.
				var drawn []string
				for _, l := range lines {
					if strings.TrimSpace(l) != "" {
						drawn = append(drawn, l)
					}
				}
				if len(drawn) > 18 {
					t.Errorf("%d lines for 3 steps:\n%s", len(drawn), strings.Join(drawn, "\n"))
				}
			}
		})
	}
}

// A failed command shows its reason and its last lines on the calm
// screen, and how many lines came before them.
func TestTerminalFailedCommandShowsItsLastLines(t *testing.T) {
	w := newWorld(t, nil)
	w.srv.Script(reply("Build it.", "COMMAND", "for i in $(seq 1 40); do echo line-$i; done; echo the-last-error; exit 3"), done("It fails."))
	term := w.startTerminalAt(t.Context(), 120, "--no-audit")
	term.prompt("› ")
	start := term.mark()
	term.typeLine("build")
	term.expect("It fails.")
	term.prompt("› ")
	lines := visible(term.since(start))
	term.key("\x04")
	term.exitCode()
	for _, want := range []string{
		"✗ COMMAND for i in $(seq 1 40); do echo line-$i; done; echo the-last-error; exit 3 · Command failed (exit code 3).",
		"  │ … 36 lines above (/last shows them all)",
		"  │ line-37", "  │ line-40", "  │ the-last-error",
	} {
		if !hasLine(lines, want) {
			t.Errorf("no line %q:\n%s", want, strings.Join(lines, "\n"))
		}
	}
	if hasLine(lines, "  │ line-36") || hasLine(lines, "  │ line-1") {
		t.Errorf("more than the last lines:\n%s", strings.Join(lines, "\n"))
	}
}

// cutNote is the terminal's line for an output cut for the model.
var cutNote = regexp.MustCompile(`… ([0-9,]+) lines \(([0-9.]+ [KMG]?B)\) not sent to the model; whole output: (\S+)`)

// A result cut for the model says on the screen how many lines the model
// did not see, and names the file that holds the whole output: the same
// cut the model was told of. Before, the box's own cap ("… 737 lines …")
// hid the cut, and the file was not named.
func TestTerminalCutResultNamesTheSavedFile(t *testing.T) {
	for _, flag := range []string{"--no-audit", "-v"} {
		t.Run(flag, func(t *testing.T) {
			w := newWorld(t, nil)
			w.srv.Script(reply("Count.", "COMMAND", "seq 1 3000; exit 1"), done("Counted."))
			term := w.startTerminalAt(t.Context(), 200, "--no-audit", flag)
			term.prompt("› ")
			start := term.mark()
			term.typeLine("count")
			term.expect("Counted.")
			term.prompt("› ")
			shown := strings.Join(visible(term.since(start)), "\n")
			term.key("\x04")
			term.exitCode()
			m := cutNote.FindStringSubmatch(shown)
			if m == nil {
				t.Fatalf("no line says what the model did not see:\n%s", shown)
			}
			saved, err := os.ReadFile(m[3])
			if err != nil || !strings.HasSuffix(string(saved), "\n2999\n3000\n") || !strings.HasPrefix(string(saved), "1\n2\n") {
				t.Errorf("the file named does not hold the whole output: %v", err)
			}
			reqs := w.srv.Requests()
			told := lastUser(reqs[len(reqs)-1])
			lines := strings.ReplaceAll(m[1], ",", "")
			if !strings.Contains(told, "[… "+m[2]+" cut ("+lines+" lines of ") || !strings.Contains(told, "saved in "+m[3]+"]") {
				t.Errorf("the screen says %s lines (%s) in %s; the model was told:\n%s", m[1], m[2], m[3], told)
			}
			if flag != "-v" && !strings.Contains(shown, "  │ 3000") {
				t.Errorf("the failed command's last lines are not shown:\n%s", shown)
			}
		})
	}
}

// setUpdated makes the session file say it was last saved at when.
func (w *world) setUpdated(id string, when time.Time) {
	w.t.Helper()
	path := filepath.Join(w.home, "sessions", id+".json")
	data, err := os.ReadFile(path)
	if err != nil {
		w.t.Fatal(err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		w.t.Fatal(err)
	}
	m["updatedAt"], _ = json.Marshal(when.UTC().Format(time.RFC3339))
	if data, err = json.Marshal(m); err != nil {
		w.t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		w.t.Fatal(err)
	}
}

// Resuming shows where the session was: how its last run ended and when,
// the last request, the steps since, the last answer (the DONE summary,
// not the model's thoughts) and the task list. /last shows the session's
// last tool result, and leaving says how to resume it.
func TestTerminalResumeShowsWhereYouWere(t *testing.T) {
	w := newWorld(t, nil)
	w.srv.Script(
		llmtest.Response{Content: llmtest.Template("Count the notes.", "[~] count\n[ ] write",
			llmtest.Call{Tool: "COMMAND", Input: "echo counted-3-notes"})},
		llmtest.Response{Content: llmtest.Template("These thoughts are not the answer.", "[x] count\n[ ] write",
			llmtest.Call{Tool: "DONE", Input: "There are **3** notes."})},
	)
	w.run("--no-audit", "-p", "count the notes").expect(t, 0)
	id := w.onlySession().ID
	w.setUpdated(id, time.Now().Add(-50*time.Hour))

	term := w.startTerminal(t.Context(), "--resume")
	start := term.mark()
	term.expect("Type /help for help.")
	term.prompt("› ")
	lines := visible(term.since(start))
	for _, want := range []string{"› count the notes", "  Count the notes.", "✓ COMMAND echo counted-3-notes",
		"  These thoughts are not the answer.", "There are 3 notes.", "  [x] count  [ ] write", "✓ last run: done · last used 2 days ago"} {
		if !hasLine(lines, want) {
			t.Errorf("no line %q:\n%s", want, strings.Join(lines, "\n"))
		}
	}
	text := strings.Join(lines, "\n")
	if strings.Index(text, "There are 3 notes.") < strings.Index(text, "These thoughts") || strings.Contains(text, "┌─") {
		t.Errorf("the answer is not the DONE summary after the steps, or boxes are drawn:\n%s", text)
	}
	term.typeLine("/last")
	term.expect("COMMAND echo counted-3-notes")
	term.expect("counted-3-notes")
	term.prompt("› ")
	term.typeLine("/exit")
	term.expect("dev: resume this session with dev --resume\r\n")
	if code := term.exitCode(); code != 0 {
		t.Fatalf("exit code %d", code)
	}
}

// A resumed session's view is a screen at most, however many steps its
// last request took: the steps are cut first, the request, the answer and
// the ending stay.
func TestTerminalResumeFitsTheScreen(t *testing.T) {
	w := newWorld(t, nil)
	var script []llmtest.Response
	for i := range 40 {
		script = append(script, reply(fmt.Sprintf("Step %d.", i), "COMMAND", fmt.Sprintf("echo step-%d", i)))
	}
	script = append(script, done("All forty steps ran."))
	w.srv.Script(script...)
	w.run("--no-audit", "-p", "run forty steps").expect(t, 0)

	term := w.startTerminal(t.Context(), "--resume") // 50 rows
	start := term.mark()
	term.expect("Type /help for help.")
	term.prompt("› ")
	lines := visible(term.since(start))
	term.key("\x04")
	term.expect("dev: resume this session with dev --resume\r\n")
	term.exitCode()
	text := strings.Join(lines, "\n")
	rows := 0 // to the help's line, and the prompt's
	for i, l := range lines {
		if strings.HasPrefix(l, "Type /help") {
			rows = i + 2
		}
	}
	if rows > 50 {
		t.Errorf("%d rows on a screen of 50:\n%s", rows, text)
	}
	for _, want := range []string{"› run forty steps", "earlier lines (dev sessions show has them all)", "✓ COMMAND echo step-39",
		"All forty steps ran.", "✓ last run: done · last used just now"} {
		if !strings.Contains(text, want) {
			t.Errorf("lacks %q:\n%s", want, text)
		}
	}
}

// Leaving names the command that resumes the session: --resume for the
// directory's last session, --session and a prefix of its id when another
// dev has used the directory since. A session where nothing happened is
// not named: there is nothing to resume.
func TestTerminalLeavingSaysHowToResume(t *testing.T) {
	w := newWorld(t, nil)
	w.srv.Script(done("First."), done("Second."))
	w.run("--no-audit", "-p", "first").expect(t, 0)
	first := w.onlySession().ID

	term := w.startTerminal(t.Context(), "--resume")
	term.prompt("› ")
	term.typeLine("/exit")
	term.expect("dev: resume this session with dev --resume\r\n")
	term.exitCode()

	term = w.startTerminal(t.Context(), "--resume")
	term.prompt("› ")
	w.run("--no-audit", "-p", "second").expect(t, 0) // another dev, here, meanwhile
	term.typeLine("/exit")
	term.expect("dev: resume this session with dev --session " + first[:8] + "\r\n")
	term.exitCode()

	term = w.startTerminal(t.Context())
	start := term.mark()
	term.prompt("› ")
	term.key("\x04")
	term.exitCode()
	if shown := term.since(start); strings.Contains(shown, "resume this session") {
		t.Errorf("a session where nothing happened is named:\n%s", shown)
	}
}
