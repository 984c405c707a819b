package e2e

import (
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/devagent/dev/llm/llmtest"
)

// tree reads every file under dir (a .git directory included) with its
// mode, for byte-exact comparisons.
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		info, err := d.Info()
		if err != nil {
			return err
		}
		if d.IsDir() {
			out[rel+"/"] = info.Mode().String()
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		out[rel] = info.Mode().String() + " " + string(data)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func sameTree(t *testing.T, what string, got, want map[string]string) {
	t.Helper()
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %s is %q, want %q", what, k, got[k], v)
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("%s: %s should not exist", what, k)
		}
	}
}

// A run that writes, edits, deletes through a COMMAND and creates through
// a COMMAND: dev checkpoints and dev diff show all four, dev rewind 0
// restores every byte, a rewind can be rewound, and --resume continues
// from the rewound history.
func TestCheckpointsDiffAndRewind(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the commands are POSIX shell")
	}
	w := newWorld(t, nil)
	w.write("edit.go", "package a\n\nfunc A() int { return 1 }\n")
	w.write("gone.txt", "to be deleted\n")
	before := tree(t, w.dir)
	w.srv.Script(
		reply("Write.", "WRITE_FILE", "new.txt\n```\nnew file\n```"),
		reply("Edit.", "FIND_AND_REPLACE_IN_FILE", "edit.go\n```find\nreturn 1\n```\n```replace\nreturn 2\n```"),
		reply("Delete.", "COMMAND", "rm gone.txt"),
		reply("Create.", "COMMAND", "echo made by a command > made.txt"),
		done("Four changes."),
	)
	r := w.run("--no-audit", "--json", "-p", "change four things")
	r.expect(t, 0)
	// --json: each tool_result names what it changed.
	var files [][]map[string]string
	for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		var ev struct {
			Type  string
			Files []map[string]string
		}
		if json.Unmarshal([]byte(line), &ev) == nil && ev.Type == "tool_result" {
			files = append(files, ev.Files)
		}
	}
	want := []string{"new.txt added", "edit.go modified", "gone.txt deleted", "made.txt added", ""}
	for i, f := range files {
		got := ""
		if len(f) == 1 {
			got = f[0]["path"] + " " + f[0]["change"]
		}
		if got != want[i] {
			t.Errorf("tool_result %d files %v, want %q", i+1, f, want[i])
		}
	}
	if !strings.Contains(r.stderr, "-func A() int { return 1 }") || !strings.Contains(r.stderr, "+func A() int { return 2 }") {
		t.Errorf("the edit's diff is not shown:\n%s", r.stderr)
	}
	s := w.onlySession()
	if len(s.Checkpoints) != 5 || s.Checkpoints[0].Reason != "request" {
		t.Fatalf("checkpoints %+v", s.Checkpoints)
	}

	list := w.run("checkpoints")
	list.expect(t, 0)
	for _, want := range []string{"  0  ", "before request", "+new.txt", "~edit.go", "-gone.txt", "+made.txt", "step 3 COMMAND rm gone.txt"} {
		if !strings.Contains(list.stdout, want) {
			t.Errorf("dev checkpoints lacks %q:\n%s", want, list.stdout)
		}
	}
	diff := w.run("diff")
	diff.expect(t, 0)
	for _, want := range []string{"+++ b/new.txt", "-func A() int { return 1 }", "+func A() int { return 2 }", "--- a/gone.txt", "+++ b/made.txt"} {
		if !strings.Contains(diff.stdout, want) {
			t.Errorf("dev diff lacks %q:\n%s", want, diff.stdout)
		}
	}
	if strings.Contains(diff.stdout, "\x1b[") {
		t.Error("dev diff into a pipe has escape codes")
	}
	if part := w.run("diff", "1", "2"); !strings.Contains(part.stdout, "edit.go") || strings.Contains(part.stdout, "new.txt") {
		t.Errorf("dev diff 1 2:\n%s", part.stdout)
	}

	// No terminal and no --yes: exit 2, nothing changes.
	after := tree(t, w.dir)
	if r := w.run("rewind", "0"); r.code != 2 || !strings.Contains(r.stderr, "--yes") {
		t.Errorf("rewind without --yes: exit %d\n%s", r.code, r.stderr)
	}
	sameTree(t, "after a refused rewind", tree(t, w.dir), after)

	rw := w.run("rewind", "0", "--yes")
	rw.expect(t, 0)
	sameTree(t, "after rewind 0", tree(t, w.dir), before)
	// The preview says what happens to each file: the files created since
	// are deleted, the one changed restored, the one deleted recreated.
	// It said the opposite before ("write back" for a file it deleted).
	for _, want := range []string{"delete   new.txt", "delete   made.txt", "restore  edit.go", "recreate gone.txt"} {
		if !strings.Contains(rw.stderr, want) {
			t.Errorf("the rewind's preview lacks %q:\n%s", want, rw.stderr)
		}
	}
	if strings.Contains(rw.stderr, "write back") {
		t.Errorf("the rewind's preview:\n%s", rw.stderr)
	}
	s = w.onlySession()
	if len(s.History) != 0 || len(s.TaskList) != 0 {
		t.Errorf("the session was not cut back: %d messages", len(s.History))
	}
	// The present was checkpointed first: a rewind of the rewind.
	last := s.Checkpoints[len(s.Checkpoints)-1]
	if last.Reason != "rewind" {
		t.Fatalf("no checkpoint of the present before the rewind: %+v", last)
	}
	w.run("rewind", "--yes", itoa(last.Number)).expect(t, 0)
	sameTree(t, "after rewinding the rewind", tree(t, w.dir), after)

	// --resume after a rewind continues from there.
	w.run("rewind", "0", "--yes").expect(t, 0)
	w.srv.Script(done("Fresh start."))
	w.run("--resume", "--no-audit", "-p", "again").expect(t, 0)
	reqs := w.srv.Requests()
	if msgs := reqs[len(reqs)-1].Messages; len(msgs) != 2 || !strings.Contains(msgs[1].Content, "again") {
		t.Errorf("the resumed request does not start from the rewound history: %d messages", len(msgs))
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// A git repository's .git is byte-identical after a run and a rewind: its
// index, refs and stash are never written.
func TestCheckpointsNeverWriteTheRepository(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("git is not installed: the tests need it (the audit tests run it too)")
	}
	w := newWorld(t, nil)
	git := func(args ...string) {
		cmd := exec.Command("git", args...)
		cmd.Dir = w.dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=a", "GIT_AUTHOR_EMAIL=a@a", "GIT_COMMITTER_NAME=a", "GIT_COMMITTER_EMAIL=a@a")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	w.write("a.txt", "one\n")
	w.write(".gitignore", "ignored/\n")
	w.write("ignored/big.log", "never snapshotted\n")
	git("init", "-q")
	git("add", ".")
	git("commit", "-qm", "first")
	gitBefore := tree(t, filepath.Join(w.dir, ".git"))
	w.srv.Script(reply("Edit.", "WRITE_FILE", "a.txt\n```\ntwo\n```"), reply("Log.", "COMMAND", "echo changed > ignored/big.log"), done("Edited."))
	w.run("--no-audit", "-p", "edit a.txt").expect(t, 0)
	w.run("rewind", "0", "--yes").expect(t, 0)
	if got := w.read("a.txt"); got != "one\n" {
		t.Errorf("a.txt = %q after the rewind", got)
	}
	if got := w.read("ignored/big.log"); got != "changed\n" {
		t.Errorf("an ignored file was touched by the rewind: %q", got)
	}
	sameTree(t, ".git", tree(t, filepath.Join(w.dir, ".git")), gitBefore)
}

// A rewind names the changes it undoes that another session, running in
// the same directory now, made: it deleted them without a word before.
func TestRewindNamesAnotherRunningSessionsChanges(t *testing.T) {
	w := newWorld(t, nil)
	w.srv.Script(reply("Write.", "WRITE_FILE", "mine.txt\n```\nmine\n```"), done("Mine."))
	w.run("--no-audit", "-p", "one").expect(t, 0)
	mine := w.onlySession().ID
	w.srv.Script(reply("Write.", "WRITE_FILE", "theirs.txt\n```\ntheirs\n```"), llmtest.Response{Content: "# Agent", Hang: true})
	cmd, _, _ := w.startUntilHanging("--no-audit", "-p", "another session, still working")
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	var theirs string
	for id := range w.sessions() {
		if id != mine {
			theirs = id
		}
	}
	r := w.run("rewind", "0", "--yes", "--session", mine)
	r.expect(t, 0)
	for _, want := range []string{"delete   mine.txt", "Changed by session " + theirs + ", which a dev is running in this directory now", "delete   theirs.txt"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("the preview lacks %q:\n%s", want, r.stderr)
		}
	}
	if strings.Count(r.stderr, "Changed by session") != 1 {
		t.Errorf("the preview names other sessions %d times:\n%s", strings.Count(r.stderr, "Changed by session"), r.stderr)
	}
}

// A session in use by a running dev cannot be rewound.
func TestRewindOfASessionInUse(t *testing.T) {
	w := newWorld(t, nil)
	w.srv.Script(done("First."))
	w.run("--no-audit", "-p", "one").expect(t, 0)
	w.srv.Script(llmtest.Response{Content: "# Agent", Hang: true})
	cmd, _, _ := w.startUntilHanging("--resume", "--no-audit", "-p", "hold it")
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	r := w.run("rewind", "0", "--yes")
	if r.code != 2 || !strings.Contains(r.stderr, "in use") {
		t.Errorf("rewind of a session in use: exit %d\n%s", r.code, r.stderr)
	}
}

// A file changed by someone else while the model thinks is not the
// agent's: the checkpoint after WRITE_FILE looks at the file it wrote
// alone, READ_FILE's looks nowhere, and dev rewind names the other change
// as made by something other than dev.
func TestRewindNamesForeignChanges(t *testing.T) {
	w := newWorld(t, nil)
	w.write("mine.txt", "before\n")
	w.write("theirs.txt", "before\n")
	byTheUser := reply("Read it.", "READ_FILE", "mine.txt")
	w.srv.Script(
		reply("Write.", "WRITE_FILE", "mine.txt\n```\nby the agent\n```"),
		llmtest.Response{Respond: func(ctx context.Context, req llmtest.Request) llmtest.Response {
			// The user edits a file while the model thinks.
			if err := os.WriteFile(filepath.Join(w.dir, "theirs.txt"), []byte("by the user\n"), 0o644); err != nil {
				t.Error(err)
			}
			return byTheUser
		}},
		done("Wrote mine.txt."),
	)
	w.run("--no-audit", "-p", "write mine.txt").expect(t, 0)
	s := w.onlySession()
	if len(s.Checkpoints) != 2 {
		t.Fatalf("%d checkpoints, want 2: before the request and after WRITE_FILE", len(s.Checkpoints))
	}
	list := w.run("checkpoints")
	lines := strings.Split(strings.TrimSpace(list.stdout), "\n")
	if len(lines) != 2 || !strings.HasSuffix(lines[1], "(~mine.txt)") {
		t.Errorf("dev checkpoints:\n%s", list.stdout)
	}
	r := w.run("rewind", "0", "--yes")
	r.expect(t, 0)
	plan := r.stderr[strings.Index(r.stderr, "by something other than dev"):]
	if !strings.Contains(plan, "theirs.txt") || strings.Contains(plan, "mine.txt") {
		t.Errorf("the rewind's plan does not name the user's change alone:\n%s", r.stderr)
	}
	if got := w.read("mine.txt"); got != "before\n" {
		t.Errorf("mine.txt after the rewind: %q", got)
	}
}

// A rewind's own changes are dev's: the next rewind's preview does not
// list them as changed by something other than dev (issue 30; it listed
// every file the first rewind restored). A change the user makes after
// the rewind still is listed.
func TestRewindsOwnChangesAreNotForeign(t *testing.T) {
	w := newWorld(t, nil)
	w.write("a.txt", "before\n")
	w.write("b.txt", "before\n")
	w.srv.Script(
		reply("Write.", "WRITE_FILE", "a.txt\n```\nby the agent\n```"),
		reply("Write.", "WRITE_FILE", "b.txt\n```\nby the agent\n```"),
		done("Wrote both."),
	)
	w.run("--no-audit", "-p", "write both").expect(t, 0)
	w.run("rewind", "0", "--yes").expect(t, 0)
	undo := w.onlySession().Checkpoints
	last := undo[len(undo)-1].Number
	r := w.run("rewind", itoa(last), "--yes")
	r.expect(t, 0)
	if strings.Contains(r.stderr, "something other than dev") {
		t.Errorf("the rewind of a rewind lists the first rewind's changes as another's:\n%s", r.stderr)
	}
	if w.read("a.txt") != "by the agent\n" || w.read("b.txt") != "by the agent\n" {
		t.Errorf("the rewind of the rewind: a.txt %q, b.txt %q", w.read("a.txt"), w.read("b.txt"))
	}
	// The user changes a file after that rewind: that change is theirs.
	w.write("b.txt", "by the user\n")
	r = w.run("rewind", "0", "--yes")
	r.expect(t, 0)
	i := strings.Index(r.stderr, "by something other than dev")
	if i < 0 || !strings.Contains(r.stderr[i:], "b.txt") || strings.Contains(r.stderr[i:], "a.txt") {
		t.Errorf("the preview does not name the user's change alone:\n%s", r.stderr)
	}
}
