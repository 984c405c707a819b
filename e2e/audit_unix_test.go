//go:build unix

package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The hostile commands are POSIX shell, and git diff needs a repository.
func TestAuditorCannotChangeTheWorkspace(t *testing.T) {
	w := newWorld(t, nil)
	w.write("a", "alpha\n")
	for _, args := range [][]string{{"init", "-q"}, {"add", "a"}, {"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "a"}} {
		git := exec.Command("git", args...)
		git.Dir = w.dir
		if out, err := git.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	w.srv.Script(
		reply("Extend a.", "WRITE_FILE", "a\n```\nalpha\nbeta\n```"),
		done("Added beta to a."),
		auditorReply("WRITE_FILE", "a\n```\npwned\n```"),
		auditorReply("FIND_AND_REPLACE_IN_FILE", "a\n```find\nalpha\n```\n```replace\npwned\n```"),
		auditorReply("COMMAND", "rm -rf a"),
		auditorReply("COMMAND", "cat a; rm a"),
		auditorReply("COMMAND", "cat a && rm a"),
		auditorReply("COMMAND", "$(rm a)"),
		auditorReply("COMMAND", "cat a > b"),
		auditorReply("COMMAND", "cat a"),
		auditorReply("COMMAND", "git diff"),
		verdict("Overall: PASS"),
	)
	before := workspace(t, w.dir)
	var r result
	defer func() {
		if t.Failed() {
			t.Logf("stderr:\n%s", r.stderr)
		}
	}()
	// The worker's edit must be the only change: nothing the auditor tries
	// may touch the workspace.
	r = w.run("-p", "add beta to a")
	r.expect(t, 0)
	after := workspace(t, w.dir)
	want := strings.Replace(before, "alpha\n", "alpha\nbeta\n", 1)
	if after != want {
		t.Fatalf("the workspace is not what the worker left:\nwant %q\ngot  %q", want, after)
	}
	reqs := w.srv.Requests()
	if len(reqs) != 12 {
		t.Fatalf("%d requests, want 12", len(reqs))
	}
	for i := 3; i <= 9; i++ { // the seven hostile steps' results
		if got := lastUser(reqs[i]); !strings.Contains(got, "Refused") {
			t.Errorf("hostile step %d was not refused:\n%s", i-2, got)
		}
	}
	if got := lastUser(reqs[10]); !strings.Contains(got, "alpha\nbeta") || !strings.Contains(got, "exit code 0") {
		t.Errorf("cat a did not reach the auditor:\n%s", got)
	}
	if got := lastUser(reqs[11]); !strings.Contains(got, "+beta") || !strings.Contains(got, "exit code 0") {
		t.Errorf("git diff did not reach the auditor:\n%s", got)
	}
}

// workspace lists every file outside .git with its bytes.
func workspace(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		if !d.IsDir() {
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			b.WriteString(p + "\n" + string(data))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}
