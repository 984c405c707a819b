//go:build unix

package e2e

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"

	"github.com/devagent/dev/bgproc/bgproctest"
	"github.com/devagent/dev/llm/llmtest"
	"github.com/devagent/dev/sessions"
	"github.com/devagent/dev/transcript"
)

var updateFixtures = flag.Bool("update", false, "rewrite the stored sessions of ../transcript/testdata")

// fixtures is where the stored sessions that pin the transcript's model
// live: package transcript reads each NAME.json and compares its outline
// with NAME.golden.
const fixtures = "../transcript/testdata"

// The sessions dev writes read as the transcript's golden files say: one
// of every kind of step and record, written by the binary as a user makes
// them (rejected replies, an attachment, a failed audit then a passed one,
// a command the user ran, /compact, a rewind, interruptions of a command,
// of a reply and of an audit, and the audited, skipped and undone requests
// of TestAuditsShowUnderTheirRequests). With -update the sessions are
// stored as the new fixtures (go test ./transcript -update then rewrites
// the golden files from them).
func TestTranscriptOfStoredSessions(t *testing.T) {
	for name, scenario := range map[string]func(w *world) *sessions.Session{
		"work":        workSession,
		"interrupted": interruptedSession,
		"audits":      auditedSession,
	} {
		t.Run(name, func(t *testing.T) {
			w := newWorld(t, nil)
			sess := scenario(w)
			if *updateFixtures {
				data, err := json.MarshalIndent(sess, "", "  ")
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(fixtures, name+".json"), data, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(filepath.Join(fixtures, name+".golden"))
			if err != nil {
				t.Fatal(err)
			}
			if got := transcript.Read(sess).String(); got != string(want) {
				t.Errorf("the session dev wrote reads as\n%s\nwant (%s.golden)\n%s", got, name, want)
			}
		})
	}
}

// workSession: a question answered without an audit; /compact; a
// request with an attachment whose first reply is rejected, a failed tool
// and the call it kept from running, an edit, a failed audit, another edit
// and a passed audit; a command the user ran; then an edit and a rewind
// into its request; a last request.
func workSession(w *world) *sessions.Session {
	t := w.t.(*testing.T)
	w.write("a.txt", "one\ntwo\n")
	fixTwo := "a.txt\n```find\ntwo\n```\n```replace\nTWO\n```"
	w.srv.Script(
		done("It holds two lines."),
		llmtest.Response{Content: "SUMMARY: the user asked what a.txt holds: two lines."},
		llmtest.Response{Content: "Sure! I will fix it.\n\nHere is the plan."},
		llmtest.Response{Content: llmtest.Template("Read it first.", "[~] upper-case a.txt",
			llmtest.Call{Tool: "READ_FILE", Input: "missing.txt"}, llmtest.Call{Tool: "FIND_AND_REPLACE_IN_FILE", Input: fixTwo})},
		reply("Fix the second line.", "FIND_AND_REPLACE_IN_FILE", fixTwo),
		done("Fixed a.txt."),
		verdict("Overall: FAIL\nThe first line is not upper case."),
		reply("Fix the first line.", "FIND_AND_REPLACE_IN_FILE", "a.txt\n```find\none\n```\n```replace\nONE\n```"),
		done("Both lines are upper case."),
		verdict("Overall: PASS\nBoth lines are upper case."),
	)
	w.runInput("what is in a.txt?\n/compact\nupper-case @a.txt\n!wc -l a.txt\n/exit\n").expect(t, 0)
	w.srv.Script(
		reply("Write b.", "WRITE_FILE", "b.txt\n```\nb\n```"),
		reply("Write c.", "WRITE_FILE", "c.txt\n```\nc\n```"),
		done("Wrote b.txt and c.txt."),
		verdict("Overall: PASS\nBoth files are there."),
	)
	w.run("--resume", "-p", "write b.txt and c.txt").expect(t, 0)
	// Back to the checkpoint after b.txt: the history keeps the reply
	// that wrote it, not its result.
	after := -1
	for _, c := range w.onlySession().Checkpoints {
		if c.Tool == "WRITE_FILE" && c.Input == "b.txt" {
			after = c.Number
		}
	}
	w.run("rewind", strconv.Itoa(after), "--yes").expect(t, 0)
	w.srv.Script(done("Only b.txt is there."))
	w.run("--no-audit", "--resume", "-p", "which files are there?").expect(t, 0)
	return w.onlySession()
}

// interruptedSession: a reply interrupted while it streamed, a command
// interrupted while it ran, an audit interrupted, then a request done.
func interruptedSession(w *world) *sessions.Session {
	t := w.t.(*testing.T)
	stop := func(cmd *exec.Cmd, stderr fmt.Stringer) {
		if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
			t.Fatal(err)
		}
		if code := exitCode(t, cmd); code != 130 {
			t.Fatalf("exit code %d, want 130; stderr:\n%s", code, stderr)
		}
	}
	hang := func(thoughts string) llmtest.Response {
		return llmtest.Response{Content: llmtest.Reply(thoughts, "DONE", "never"), Hang: true}
	}
	// The reply is interrupted once dev has shown its Thoughts: when the
	// server has sent the first chunk (Hanging), dev may not have read it
	// yet, and the session keeps the partial reply only when it has.
	streamed := hang("Thinking it over")
	streamed.ChunkSize = len(streamed.Content)
	w.srv.Script(reply("Write it.", "WRITE_FILE", "a.txt\n```\na\n```"), streamed)
	term := w.startTerminal(t.Context(), "-p", "write a.txt")
	waitFor(t, w.srv.Hanging(), "the reply to stream")
	term.expect("Thinking it over")
	term.key("\x03")
	if code := term.exitCode(); code != 130 {
		t.Fatalf("exit code %d, want 130", code)
	}

	w.srv.Script(reply("Wait.", "COMMAND", "touch started; exec sleep 300"))
	cmd, _, stderr := w.command(t.Context(), "--resume", "-p", "wait for it")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	bgproctest.WaitFor(t, "the command to start", func() bool { _, err := os.Stat(filepath.Join(w.dir, "started")); return err == nil })
	stop(cmd, stderr)

	w.srv.Script(reply("Write b.", "WRITE_FILE", "b.txt\n```\nb\n```"), done("Wrote b.txt."), hang("Checking"))
	cmd, _, stderr = w.startUntilHanging("--resume", "-p", "write b.txt")
	stop(cmd, stderr)

	w.srv.Script(reply("Write c.", "WRITE_FILE", "c.txt\n```\nc\n```"), done("Wrote c.txt."), verdict("Overall: PASS"))
	w.run("--resume", "-p", "write c.txt").expect(t, 0)
	return w.onlySession()
}

// auditedSession: TestAuditsShowUnderTheirRequests' session.
func auditedSession(w *world) *sessions.Session {
	w.write(".dev/commands/review.md", "---\ndescription: review a file\n---\nReview $ARGUMENTS carefully.\n")
	// The auditors take 1, 2 and 3 steps: the step count names the audit.
	w.srv.Script(reply("Write.", "WRITE_FILE", "a.txt\n```\na\n```"), done("Wrote a."), verdict("Overall: PASS\nwrote a.txt"))
	w.srv.Script(done("Four."))
	w.srv.Script(reply("Read.", "READ_FILE", "a.txt"), done("It says a."))
	w.srv.Script(reply("Look.", "COMMAND", "cat a.txt"), done("Reviewed."),
		reply("Check.", "READ_FILE", "a.txt"), verdict("Overall: PASS\nreviewed a.txt"))
	w.srv.Script(reply("Write.", "WRITE_FILE", "b.txt\n```\nb\n```"), done("Wrote b."),
		reply("Check.", "READ_FILE", "b.txt"), reply("Check again.", "READ_FILE", "b.txt"), verdict("Overall: PASS\nwrote b.txt"))
	w.runInput("write a.txt\nwhat is 2+2?\nread a.txt\n/review a.txt\nwrite b.txt\n/undo\ny\n/exit\n").expect(w.t.(*testing.T), 0)
	return w.onlySession()
}
