//go:build unix

package checkpoints

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// A link put in the working directory between the plan and the restore
// (a command still running) leads nowhere outside: the restore writes
// inside the working directory only (issue 30, break 1).
func TestRestoreFollowsNoLinkOut(t *testing.T) {
	t.Parallel()
	dir, outside := t.TempDir(), t.TempDir()
	write(t, dir, files{"sub/a": "0\n", "sub/gone": "0\n"})
	write(t, outside, files{"a": "outside\n"})
	ss := newSession(t, dir, Options{})
	ss.take(BeforeRequest, "")
	write(t, dir, files{"sub/a": "1\n"})
	must(t, os.Remove(filepath.Join(dir, "sub", "gone")))
	_, err := ss.s.Rewind(context.Background(), ss.list, 0, ss.present, func(b Taken) error {
		must(t, os.Rename(filepath.Join(dir, "sub"), filepath.Join(dir, "moved")))
		must(t, os.Symlink(outside, filepath.Join(dir, "sub")))
		return ss.keep(b)
	})
	if err == nil {
		t.Error("the restore through a link out says nothing")
	}
	sameState(t, "outside", state(t, outside, false), map[string]string{"a": "-rw-r--r-- outside\n"})
}
