package checkpoints

import (
	"context"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// files describes a directory: slash path → content. A value starting
// with "->" is a symbolic link to the rest; "/" ending a key makes an
// empty directory.
type files map[string]string

// write creates fs under dir, every file 0644 and, so that the stat cache
// trusts them, modified a minute ago.
func write(t testing.TB, dir string, fs files) {
	t.Helper()
	old := time.Now().Add(-time.Minute)
	for p, content := range fs {
		abs := filepath.Join(dir, filepath.FromSlash(p))
		if strings.HasSuffix(p, "/") {
			must(t, os.MkdirAll(abs, 0o755))
			continue
		}
		must(t, os.MkdirAll(filepath.Dir(abs), 0o755))
		_ = os.Remove(abs)
		if target, ok := strings.CutPrefix(content, "->"); ok {
			must(t, os.Symlink(target, abs))
			continue
		}
		must(t, os.WriteFile(abs, []byte(content), 0o644))
		must(t, os.Chtimes(abs, old, old))
	}
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// state is everything under a directory, .git and ignored files
// included: per path its type and permissions, its content or link
// target, and (withTimes) its modification time.
func state(t testing.TB, dir string, withTimes bool) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if rel == "." {
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		desc := fi.Mode().String()
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			desc += " -> " + target
		case fi.Mode().IsRegular():
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			desc += " " + string(data)
		}
		if withTimes && !fi.IsDir() {
			desc += " @" + fi.ModTime().String()
		}
		out[filepath.ToSlash(rel)] = desc
		return nil
	})
	must(t, err)
	return out
}

// sameState fails with the differences between two states.
func sameState(t testing.TB, what string, got, want map[string]string) {
	t.Helper()
	var diffs []string
	for p, w := range want {
		if g, ok := got[p]; !ok {
			diffs = append(diffs, fmt.Sprintf("%s: missing, want %q", p, w))
		} else if g != w {
			diffs = append(diffs, fmt.Sprintf("%s: %q, want %q", p, g, w))
		}
	}
	for p, g := range got {
		if _, ok := want[p]; !ok {
			diffs = append(diffs, fmt.Sprintf("%s: %q, want none", p, g))
		}
	}
	slices.Sort(diffs)
	if len(diffs) > 0 {
		t.Errorf("%s differs:\n%s", what, strings.Join(diffs, "\n"))
	}
}

// session is a caller of the store as the app layer will be: it keeps
// the checkpoint list and a state.
type session struct {
	t     testing.TB
	s     *Store
	list  []Checkpoint
	state State
	// look is where checkpoints after a tool look (LookAll: everywhere).
	look Look
}

func newSession(t testing.TB, work string, opts Options) *session {
	t.Helper()
	s, err := Open(filepath.Join(t.TempDir(), "checkpoints"), work, opts)
	must(t, err)
	s.watchFrom = 0 // watched whatever its size (TestWatchFrom tests the size)
	t.Cleanup(func() { s.Close() })
	return &session{t: t, s: s}
}

func (ss *session) take(reason Reason, tool string) Taken {
	ss.t.Helper()
	m := Meta{Reason: reason, Tool: tool}
	if reason == AfterTool {
		m.Look = ss.look
	}
	tk, err := ss.s.Take(context.Background(), ss.list, m, func() State { return ss.state })
	must(ss.t, err)
	if tk.New {
		ss.list = append(ss.list, tk.Checkpoint)
	}
	return tk
}

// present is the session's state, as a rewind keeps it.
func (ss *session) present() State { return ss.state }

// rewind rewinds to checkpoint n, keeping the present's checkpoint as
// the app layer does: in the list before a file is touched.
func (ss *session) rewind(n int) Rewound {
	ss.t.Helper()
	r, err := ss.s.Rewind(context.Background(), ss.list, n, ss.present, ss.keep)
	must(ss.t, err)
	if r.State != nil {
		ss.state = *r.State
	}
	return r
}

// keep appends the checkpoint a rewind took of the present to the list.
func (ss *session) keep(before Taken) error {
	if before.New {
		ss.list = append(ss.list, before.Checkpoint)
	}
	return nil
}

func changeList(cs []Change) string {
	var b strings.Builder
	for _, c := range cs {
		fmt.Fprintf(&b, "%s %s\n", c.Change, c.Path)
	}
	return b.String()
}

// makeGitRepo makes dir a git repository with a commit and a stash,
// through the git binary: a real .git (index, objects, refs, config,
// logs).
func makeGitRepo(t testing.TB, dir string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("git is not installed: the tests need it (the audit tests run it too)")
	}
	write(t, dir, files{"committed.txt": "in the repository\n", ".gitignore": "*.o\n"})
	run := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@t", "-c", "init.defaultBranch=main"}, args...)...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	run("init", "-q")
	run("add", ".")
	run("commit", "-qm", "first")
	write(t, dir, files{"committed.txt": "stashed change\n"})
	run("stash", "-q")
}

// reversed turns a change list into the one that undoes it.
func reversed(list string) string {
	r := strings.NewReplacer("added ", "deleted ", "deleted ", "added ")
	return r.Replace(list)
}

// storedAt is where the object h is stored: its pack or log, and where
// in it.
func storedAt(t testing.TB, s *Store, h hash) packLoc {
	t.Helper()
	s.obj.mu.Lock()
	defer s.obj.mu.Unlock()
	s.obj.loadPacks()
	loc, ok := s.obj.find(h)
	if !ok {
		t.Fatalf("object %s is not in a pack or log", h.id())
	}
	return loc
}

// overwriteObject replaces what is stored of the object h by enc, of the
// same length.
func overwriteObject(t testing.TB, s *Store, h hash, enc []byte) {
	t.Helper()
	loc := storedAt(t, s, h)
	if int64(len(enc)) != loc.size {
		t.Fatalf("%d bytes in place of %d", len(enc), loc.size)
	}
	f, err := os.OpenFile(loc.pack, os.O_WRONLY, 0)
	must(t, err)
	defer f.Close()
	_, err = f.WriteAt(enc, loc.off)
	must(t, err)
}

// modes are the ways a session's store may be run: reading every file
// at once, recording the first snapshot's files by their stat, and that
// with a watcher that says where to look after a tool.
var modes = []struct {
	name string
	opts Options
	look Look
}{
	{"eager", Options{}, LookAll},
	{"lazy", Options{Lazy: true, Now: settled}, LookAll},
	{"lazy, watched", Options{Lazy: true, Watch: true, Now: settled}, LookChanged},
}

// settled is a clock a second ahead: files written by write (a minute
// old, their inode changed just now) are recorded by their stat, as a
// checked-out project's are, without waiting for their inode change time
// to age.
func settled() time.Time { return time.Now().Add(time.Second) }
