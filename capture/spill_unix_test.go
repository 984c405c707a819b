//go:build unix

package capture

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A sandboxed command may write the output directory (issue 30, break
// 1): what it plants there among the saved outputs, older than them all,
// is never emptied by dev, which runs unsandboxed. A link to a file
// outside, a second name (hard link) of a file elsewhere, a named pipe,
// and a saved output replaced by a link after dev counted it are all
// left alone; the files outside stay as they were; the cap still holds
// through the regular files.
func TestSpillsNeverEmptyWhatTheyDidNotMake(t *testing.T) {
	t.Parallel()
	dir, outside := t.TempDir(), t.TempDir()
	victim := func(name string) string {
		p := filepath.Join(outside, name)
		if err := os.WriteFile(p, []byte(strings.Repeat("precious\n", 455)), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	old := time.Now().Add(-time.Hour)
	plant := func(name string, make func(p string) error) string {
		p := filepath.Join(dir, name)
		if err := make(p); err != nil {
			t.Fatal(err)
		}
		ts := []syscall.Timespec{syscall.NsecToTimespec(old.UnixNano()), syscall.NsecToTimespec(old.UnixNano())}
		// The link's own time (lutimes); on the target's, the test would
		// pass by luck of the order.
		if err := syscall.UtimesNano(p, ts); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		return p
	}
	linked := victim("linked")
	hard := victim("hard")
	swapped := victim("swapped")
	plant("command-0001.log", func(p string) error { return os.Symlink(linked, p) })
	plant("command-0002.log", func(p string) error { return os.Link(hard, p) })
	plant("command-0003.log", func(p string) error { return syscall.Mkfifo(p, 0o600) })
	later := plant("command-0004.log", func(p string) error { return os.WriteFile(p, []byte(strings.Repeat("s", 60<<10)), 0o600) })
	for _, p := range []string{linked, hard, swapped} {
		if err := os.Chtimes(p, old.Add(-time.Hour), old.Add(-time.Hour)); err != nil {
			t.Fatal(err)
		}
	}

	s := NewSpills(nil)
	s.max = 100 << 10
	line := strings.Repeat("n", 99) + "\n"
	o := New(dir, s)
	for written := 0; written < 30<<10; written += len(line) {
		o.Write([]byte(line))
	}
	// Counted: now replaced by a link to a file outside.
	if err := os.Remove(later); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(swapped, later); err != nil {
		t.Fatal(err)
	}
	for written := 0; written < 60<<10; written += len(line) {
		o.Write([]byte(line))
	}
	o.Close()
	if len(o.emptied) != 0 {
		t.Errorf("emptied %v: none of them is a saved output dev made", o.emptied)
	}
	for _, p := range []string{linked, hard, swapped} {
		if got := readFile(t, p); got != strings.Repeat("precious\n", 455) {
			t.Errorf("%s, outside, was written: %.60q", filepath.Base(p), got)
		}
	}

	// The regular files dev made still give room.
	o2 := spillOnce(t, dir, s, 60<<10, line)
	if len(o2.emptied) != 1 || o2.emptied[0] != o.savedPath {
		t.Errorf("emptied %v, want %s, dev's own", o2.emptied, o.savedPath)
	}
}
