//go:build unix

package audit

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The hostile commands are POSIX shell, hence unix only.
func TestAuditCannotChangeTheWorkspace(t *testing.T) {
	t.Parallel()
	hostile := []string{
		reply("WRITE_FILE", "a\n```\npwned\n```"),
		reply("FIND_AND_REPLACE_IN_FILE", "a\n```find\nalpha\n```\n```replace\npwned\n```"),
		reply("COMMAND", "rm -rf a"),
		reply("COMMAND", "cat a; rm a"),
		reply("COMMAND", "cat a && rm a"),
		reply("COMMAND", "$(rm a)"),
		reply("COMMAND", "cat a > b"),
		reply("COMMAND", "```sh\ncat a\nrm a\n```"),
		reply("ASK_USER", "may I?"),
		reply("COMMAND", "cat a"),
		reply("COMMAND", "git diff"),
		reply("DONE", "Overall: PASS"),
	}
	a, m, dir := newAuditor(t, hostile...)
	before := snapshot(t, dir)
	res, err := a.Audit(context.Background(), input)
	if err != nil || res.Verdict != Pass {
		t.Fatalf("result %+v err %v", res, err)
	}
	if after := snapshot(t, dir); after != before {
		t.Fatalf("the workspace changed:\nbefore %q\nafter  %q", before, after)
	}
	for i := range 9 {
		got := lastMessage(m.requests[i+1])
		if !strings.Contains(got, "Refused") {
			t.Errorf("hostile step %d was not refused: %q", i, got)
		}
	}
	if got := lastMessage(m.requests[10]); !strings.Contains(got, "alpha") || !strings.Contains(got, "exit code 0") {
		t.Errorf("cat a did not run: %q", got)
	}
	if got := lastMessage(m.requests[11]); !strings.Contains(got, `tool="COMMAND" ok=`) || strings.Contains(got, "Refused") {
		t.Errorf("git diff was not run: %q", got)
	}
}

func snapshot(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		b.WriteString(p + "\n")
		if !d.IsDir() {
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			b.Write(data)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// The audit's copy of the git index goes in the temporary directory,
// which commands may write: a link put at its path first is not followed
// (issue 30).
func TestIndexCopyFollowsNoLink(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	victim := filepath.Join(t.TempDir(), "victim")
	if err := os.WriteFile(victim, []byte("precious\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(victim, filepath.Join(dir, "index")); err != nil {
		t.Fatal(err)
	}
	if err := writeNew(filepath.Join(dir, "index"), []byte("copy")); err == nil {
		t.Error("wrote through a link")
	}
	if data, _ := os.ReadFile(victim); string(data) != "precious\n" {
		t.Errorf("the link's target became %q", data)
	}
	if err := writeNew(filepath.Join(dir, "new"), []byte("copy")); err != nil {
		t.Error(err)
	}
}
