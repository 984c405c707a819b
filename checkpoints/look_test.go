package checkpoints

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// A checkpoint after a file tool looks at the tool's paths alone: it
// takes the stat of nothing else, sees exactly the tool's change, and a
// change made meanwhile by something else is left for the rewind to name.
func TestLookPathsSeesOnlyItsPaths(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write(t, dir, files{"a.txt": "a\n", "b.txt": "b\n", "sub/c.txt": "c\n", "sub/d.txt": "d\n"})
	ss := newSession(t, dir, Options{})
	ss.take(BeforeRequest, "")
	write(t, dir, files{"sub/c.txt": "c by the tool\n", "b.txt": "b by the user\n", "new/deep/e.txt": "e\n"})

	tk, err := ss.s.Take(context.Background(), ss.list, Meta{Reason: AfterTool, Tool: "WRITE_FILE", Look: LookPaths,
		Paths: []string{filepath.Join(dir, "sub", "c.txt"), filepath.Join(dir, "new", "deep", "e.txt")}}, nil)
	must(t, err)
	ss.list = append(ss.list, tk.Checkpoint)
	if got := changeList(tk.Changes); got != "added new/deep/e.txt\nmodified sub/c.txt\n" {
		t.Errorf("the tool's checkpoint saw:\n%s", got)
	}
	// c.txt; new, and what is in it (a new directory is read whole):
	// deep and deep/e.txt.
	if tk.Scan.Looked != LookPaths || tk.Scan.Statted != 4 {
		t.Errorf("looked %v, took %d stats; want LookPaths and 4", tk.Scan.Looked, tk.Scan.Statted)
	}
	plan, err := ss.s.PlanRewind(context.Background(), ss.list, 0, ss.present)
	must(t, err)
	if got := changeList(plan.Foreign); got != "modified b.txt\n" {
		t.Errorf("changed by something else: %q", got)
	}
	// A full look after all agrees with the disk.
	all := ss.take(AfterTool, "COMMAND")
	if got := changeList(all.Changes); got != "modified b.txt\n" {
		t.Errorf("a full look then: %q", got)
	}
}

// The paths of a file tool are followed through links, to the file the
// tool wrote; paths outside, ignored or skipped change nothing.
func TestLookPathsFollowsLinks(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links need a Unix file system")
	}
	dir := t.TempDir()
	outside := t.TempDir()
	write(t, dir, files{"real/f.txt": "1\n", "link": "->real", "flink": "->real/f.txt", ".gitignore": "*.log\n"})
	ss := newSession(t, dir, Options{})
	ss.take(BeforeRequest, "")
	write(t, dir, files{"real/f.txt": "2\n", "x.log": "log\n"})
	tk, err := ss.s.Take(context.Background(), ss.list, Meta{Reason: AfterTool, Look: LookPaths,
		Paths: []string{filepath.Join(dir, "link", "f.txt"), filepath.Join(dir, "x.log"), filepath.Join(outside, "o"),
			filepath.Join(dir, ".git", "config")}}, nil)
	must(t, err)
	if got := changeList(tk.Changes); got != "modified real/f.txt\n" {
		t.Errorf("through a directory link: %q", got)
	}
	ss.list = append(ss.list, tk.Checkpoint)
	write(t, dir, files{"real/f.txt": "3\n"})
	tk, err = ss.s.Take(context.Background(), ss.list, Meta{Reason: AfterTool, Look: LookPaths, Paths: []string{filepath.Join(dir, "flink")}}, nil)
	must(t, err)
	if got := changeList(tk.Changes); got != "modified real/f.txt\n" {
		t.Errorf("through a file link: %q", got)
	}
}

// A .gitignore a file tool writes changes what the snapshot holds below
// it: the directory is read again.
func TestLookPathsGitignore(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write(t, dir, files{"sub/a.txt": "a", "sub/b.tmp": "b"})
	ss := newSession(t, dir, Options{})
	ss.take(BeforeRequest, "")
	write(t, dir, files{"sub/.gitignore": "*.tmp\n"})
	tk, err := ss.s.Take(context.Background(), ss.list, Meta{Reason: AfterTool, Look: LookPaths, Paths: []string{filepath.Join(dir, "sub", ".gitignore")}}, nil)
	must(t, err)
	if got := changeList(tk.Changes); got != "added sub/.gitignore\ndeleted sub/b.tmp\n" {
		t.Errorf("changes: %q", got)
	}
	full, err := ss.s.Snapshot(context.Background())
	must(t, err)
	if full.Tree != tk.Scan.Tree {
		t.Error("looking at the .gitignore alone gave another snapshot than looking everywhere")
	}
}

// bigTree writes n files, 100 to a directory, and returns the path of one
// deep in it.
func bigTree(t testing.TB, dir string, n int) string {
	t.Helper()
	old := time.Now().Add(-time.Minute)
	for i := range n {
		p := filepath.Join(dir, fmt.Sprintf("p%03d", i/100), "q", fmt.Sprintf("f%03d.go", i%100))
		if i%100 == 0 {
			must(t, os.MkdirAll(filepath.Dir(p), 0o755))
		}
		must(t, os.WriteFile(p, []byte(fmt.Sprintf("package p // %d\n", i)), 0o644))
		must(t, os.Chtimes(p, old, old))
	}
	return fmt.Sprintf("p%03d/q/f%03d.go", n/200, 42)
}

// A command that changes a file deep in a tree of 10,000 is caught by
// the checkpoint after it, which looks where things changed: with a
// watcher, at the one directory; without one, everywhere.
func TestLookChangedCatchesDeepChange(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	deep := bigTree(t, dir, 10_000)
	for _, watch := range []bool{true, false} {
		ss := newSession(t, dir, Options{Watch: watch})
		ss.look = LookChanged
		ss.take(BeforeRequest, "")
		if tk := ss.take(AfterTool, "COMMAND"); tk.New {
			t.Fatalf("watch %v: nothing changed, yet: %s", watch, changeList(tk.Changes))
		}
		write(t, dir, files{deep: "package p // changed by a command\n"})
		tk := ss.take(AfterTool, "COMMAND")
		if got := changeList(tk.Changes); got != "modified "+deep+"\n" {
			t.Errorf("watch %v: %q", watch, got)
		}
		watching, _ := ss.s.Watching()
		if runtime.GOOS == "linux" && watch {
			if !watching || tk.Scan.Looked != LookChanged || tk.Scan.Statted > 200 {
				t.Errorf("with a watcher: looked %v, %d stats", tk.Scan.Looked, tk.Scan.Statted)
			}
		} else if tk.Scan.Looked != LookAll || tk.Scan.Statted < 10_000 {
			t.Errorf("without a watcher: looked %v, %d stats", tk.Scan.Looked, tk.Scan.Statted)
		}
		write(t, dir, files{deep: fmt.Sprintf("package p // %d\n", 42)})
		ss.s.Close()
	}
}

// What commands do to directories, the watcher follows: new ones (with
// files made before it could watch them), deleted and made again, moved,
// a .gitignore that hides a directory. After each, looking where things
// changed gives the snapshot that looking everywhere gives.
func TestLookChangedFollowsDirectories(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skip("the watcher is Linux's inotify")
	}
	dir := t.TempDir()
	write(t, dir, files{"a/x.txt": "x", "a/b/y.txt": "y", "c/z.txt": "z", "keep.txt": "k"})
	ss := newSession(t, dir, Options{Watch: true})
	ss.look = LookChanged
	ss.take(BeforeRequest, "")
	steps := []struct {
		name string
		do   func()
		want string
	}{
		{"new nested directories", func() {
			write(t, dir, files{"n/m/o/new.txt": "new", "a/b/w/v.txt": "v"})
		}, "added a/b/w/v.txt\nadded n/m/o/new.txt\n"},
		{"deleted and made again", func() {
			must(t, os.RemoveAll(filepath.Join(dir, "a", "b")))
			write(t, dir, files{"a/b/other.txt": "o"})
		}, "added a/b/other.txt\ndeleted a/b/w/v.txt\ndeleted a/b/y.txt\n"},
		{"moved", func() {
			must(t, os.Rename(filepath.Join(dir, "n"), filepath.Join(dir, "c", "n2")))
		}, "added c/n2/m/o/new.txt\ndeleted n/m/o/new.txt\n"},
		{"changed in the moved directory", func() {
			write(t, dir, files{"c/n2/m/o/new.txt": "changed"})
		}, "modified c/n2/m/o/new.txt\n"},
		{"ignored", func() {
			write(t, dir, files{".gitignore": "c/\n"})
		}, "added .gitignore\ndeleted c/n2/m/o/new.txt\ndeleted c/z.txt\n"},
		{"ignored directory changes", func() {
			write(t, dir, files{"c/z.txt": "z2"})
		}, ""},
		{"not ignored any more", func() {
			must(t, os.Remove(filepath.Join(dir, ".gitignore")))
		}, "deleted .gitignore\nadded c/n2/m/o/new.txt\nadded c/z.txt\n"},
		{"in place", func() {
			f, err := os.OpenFile(filepath.Join(dir, "keep.txt"), os.O_WRONLY|os.O_APPEND, 0)
			must(t, err)
			_, err = f.WriteString(" more")
			must(t, err)
			must(t, f.Close())
		}, "modified keep.txt\n"},
	}
	for _, st := range steps {
		st.do()
		tk := ss.take(AfterTool, "COMMAND")
		if got := changeList(tk.Changes); got != st.want {
			t.Errorf("%s: changes\n%s\nwant\n%s", st.name, got, st.want)
		}
		full, err := Open(filepath.Join(t.TempDir(), "cp"), dir, Options{})
		must(t, err)
		sc, err := full.Snapshot(context.Background())
		must(t, err)
		if sc.Tree != tk.Scan.Tree {
			t.Errorf("%s: the watched snapshot differs from a full one", st.name)
		}
		full.Close()
	}
}

// A lazy first snapshot reads nothing; the content it stands for is read
// in the background and a rewind restores it byte for byte.
func TestLazyFirstSnapshot(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write(t, dir, files{"a.txt": "alpha\n", "sub/b.txt": "beta\n"})
	must(t, os.WriteFile(filepath.Join(dir, "fresh.txt"), []byte("just written\n"), 0o644)) // racy: read at once
	ss := newSession(t, dir, Options{Lazy: true, Now: settled})
	tk := ss.take(BeforeRequest, "")
	if tk.Scan.Hashed != 1 || tk.Scan.Deferred != 2 {
		t.Errorf("the first snapshot read %d files and deferred %d; want 1 (the fresh one) and 2", tk.Scan.Hashed, tk.Scan.Deferred)
	}
	must(t, ss.s.Protect(context.Background()))
	if n := ss.s.Pending(); n != 0 {
		t.Errorf("%d files pending after Protect", n)
	}
	original := state(t, dir, false)
	write(t, dir, files{"a.txt": "changed\n"})
	must(t, os.Remove(filepath.Join(dir, "sub", "b.txt")))
	tk = ss.take(AfterTool, "COMMAND")
	if got := changeList(tk.Changes); got != "modified a.txt\ndeleted sub/b.txt\n" {
		t.Errorf("changes: %q", got)
	}
	// A file touched (same content, new time) is no change.
	now := filepath.Join(dir, "a.txt")
	must(t, os.WriteFile(now, []byte("changed\n"), 0o644))
	r := ss.rewind(0)
	if len(r.Restore.Lost) != 0 {
		t.Errorf("lost: %q", changeList(r.Restore.Lost))
	}
	sameState(t, "after the rewind", state(t, dir, false), original)
	diffs := changeList(r.Restore.Changes)
	if diffs != "modified a.txt\nadded sub/b.txt\n" {
		t.Errorf("restored %q", diffs)
	}
}

// A file changed by something else before its content was read cannot
// be restored to the first snapshot: the rewind says so and leaves it;
// everything else is restored.
func TestLazyChangedBeforeCapture(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write(t, dir, files{"a.txt": "alpha\n", "b.txt": "beta\n"})
	ss := newSession(t, dir, Options{Lazy: true, Now: settled})
	ss.s.holdCapture = true
	ss.take(BeforeRequest, "")
	write(t, dir, files{"a.txt": "the user's\n"}) // before dev read it
	must(t, ss.s.Protect(context.Background()))
	write(t, dir, files{"b.txt": "the agent's\n"})
	tk := ss.take(AfterTool, "COMMAND")
	if got := changeList(tk.Changes); got != "modified a.txt\nmodified b.txt\n" {
		t.Errorf("changes: %q", got)
	}
	patch, _, err := ss.s.Patch(tk.Changes[0])
	must(t, err)
	if !strings.Contains(patch, "never stored") {
		t.Errorf("the diff of a file whose content was not stored:\n%s", patch)
	}
	plan, err := ss.s.PlanRewind(context.Background(), ss.list, 0, ss.present)
	must(t, err)
	if got := changeList(plan.Restore.Lost); got != "modified a.txt\n" {
		t.Errorf("lost: %q", got)
	}
	r := ss.rewind(0)
	if got := changeList(r.Restore.Changes); got != "modified b.txt\n" {
		t.Errorf("restored: %q", got)
	}
	got := state(t, dir, false)
	if !strings.HasSuffix(got["a.txt"], "the user's\n") || !strings.HasSuffix(got["b.txt"], "beta\n") {
		t.Errorf("after the rewind: %q", got)
	}
}

// A store closed before the capture ended leaves the rest to the next
// store on the session (dev --resume, dev rewind), which reads it before
// anything changes.
func TestLazyCaptureResumed(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write(t, dir, files{"a.txt": "alpha\n", "b/c.txt": "gamma\n"})
	storeDir := filepath.Join(t.TempDir(), "cp")
	s, err := Open(storeDir, dir, Options{Lazy: true, Now: settled})
	must(t, err)
	s.holdCapture = true
	first, err := s.Take(context.Background(), nil, Meta{Reason: BeforeRequest}, nil)
	must(t, err)
	must(t, s.Close())

	again, err := Open(storeDir, dir, Options{Lazy: true, Now: settled})
	must(t, err)
	defer again.Close()
	if n := again.Pending(); n != 0 {
		t.Logf("%d pending before the index is read", n)
	}
	must(t, again.Protect(context.Background()))
	original := state(t, dir, false)
	write(t, dir, files{"a.txt": "changed\n", "b/c.txt": "changed\n"})
	r, err := again.Rewind(context.Background(), []Checkpoint{first.Checkpoint}, 0, nil, nil)
	must(t, err)
	if len(r.Restore.Lost) != 0 || len(r.Restore.Changes) != 2 {
		t.Errorf("restored %q, lost %q", changeList(r.Restore.Changes), changeList(r.Restore.Lost))
	}
	sameState(t, "after the rewind", state(t, dir, false), original)
}

// A survey counts what the first snapshot holds, and writes nothing.
func TestSurveyDir(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write(t, dir, files{"a": "12345", "b/c": "123", "b/d/e": "1", ".gitignore": "*.log\n", "x.log": "ignored", "big": strings.Repeat("x", 100), "link": "->a"})
	before := state(t, dir, true)
	sv, err := SurveyDir(context.Background(), dir, Options{MaxFileBytes: 50})
	must(t, err)
	// a, b/c, b/d/e, .gitignore, link; big is over the cap.
	if sv.Files != 5 || sv.Dirs != 3 || sv.Bytes != 5+3+1+6+1 || sv.Oversize != 1 || sv.Partial {
		t.Errorf("survey %+v", sv)
	}
	sameState(t, "after the survey", state(t, dir, true), before)
	if runtime.GOOS == "linux" && sv.WatchLimit == 0 {
		t.Errorf("no watch limit on Linux: %s", sv.WatchWhy)
	}
}

// A working directory reached through a link is watched where the link
// leads: a file made at its top is seen.
func TestLookChangedThroughLink(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skip("the watcher is Linux's inotify")
	}
	real := t.TempDir()
	write(t, real, files{"a.txt": "a", "sub/b.txt": "b"})
	link := filepath.Join(t.TempDir(), "link")
	must(t, os.Symlink(real, link))
	ss := newSession(t, link, Options{Watch: true})
	ss.look = LookChanged
	ss.take(BeforeRequest, "")
	write(t, real, files{"top.txt": "new"})
	tk := ss.take(AfterTool, "COMMAND")
	if got := changeList(tk.Changes); got != "added top.txt\n" || tk.Scan.Looked != LookChanged {
		t.Errorf("looked %v, changes %q", tk.Scan.Looked, got)
	}
}

// When the watcher loses track (a directory moved) at a file tool's
// checkpoint, which looks at its paths alone, the next command's
// checkpoint reads everything: the new watcher watches nothing yet.
func TestLookChangedAfterWatcherLostTrack(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skip("the watcher is Linux's inotify")
	}
	dir := t.TempDir()
	write(t, dir, files{"a/x.txt": "x", "b/y.txt": "y", "c/z.txt": "z"})
	ss := newSession(t, dir, Options{Watch: true})
	ss.look = LookChanged
	ss.take(BeforeRequest, "")
	must(t, os.Rename(filepath.Join(dir, "a"), filepath.Join(dir, "a2")))
	write(t, dir, files{"c/z.txt": "by the tool"})
	tk, err := ss.s.Take(context.Background(), ss.list, Meta{Reason: AfterTool, Look: LookPaths, Paths: []string{filepath.Join(dir, "c", "z.txt")}}, nil)
	must(t, err)
	if got := changeList(tk.Changes); got != "modified c/z.txt\n" {
		t.Errorf("the file tool's checkpoint: %q", got)
	}
	ss.list = append(ss.list, tk.Checkpoint)
	write(t, dir, files{"b/y.txt": "by a command"})
	tk = ss.take(AfterTool, "COMMAND")
	if got := changeList(tk.Changes); got != "deleted a/x.txt\nadded a2/x.txt\nmodified b/y.txt\n" {
		t.Errorf("the command's checkpoint: %q", got)
	}
	write(t, dir, files{"b/y.txt": "again"})
	tk = ss.take(AfterTool, "COMMAND")
	if got := changeList(tk.Changes); got != "modified b/y.txt\n" || tk.Scan.Looked != LookChanged {
		t.Errorf("then: looked %v, %q", tk.Scan.Looked, got)
	}
}

// A .gitignore with no patterns (comments only) changes no rule: reading
// its directory again keeps the subdirectories as they were.
func TestLookChangedWithEmptyGitignore(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skip("the watcher is Linux's inotify")
	}
	dir := t.TempDir()
	bigTree(t, dir, 500)
	write(t, dir, files{".gitignore": "# nothing ignored\n"})
	ss := newSession(t, dir, Options{Watch: true})
	ss.look = LookChanged
	ss.take(BeforeRequest, "")
	write(t, dir, files{"top.txt": "new"})
	tk := ss.take(AfterTool, "COMMAND")
	if got := changeList(tk.Changes); got != "added top.txt\n" || tk.Scan.Statted > 20 {
		t.Errorf("%q, %d stats taken", got, tk.Scan.Statted)
	}
}

// A small tree is not watched: reading it costs less than a watcher
// (whose end, at exit, waits for the kernel). A walk that passes
// watchFrom names starts watching, and what changed in the directories it
// read before is seen by the next command's checkpoint.
func TestWatchFrom(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skip("the watcher is Linux's inotify")
	}
	small := t.TempDir()
	write(t, small, files{"a/x.txt": "x", "b.txt": "b"})
	s, err := Open(filepath.Join(t.TempDir(), "cp"), small, Options{Watch: true})
	must(t, err)
	defer s.Close()
	ctx := context.Background()
	first, err := s.Take(ctx, nil, Meta{Reason: BeforeRequest}, nil)
	must(t, err)
	if on, _ := s.Watching(); on {
		t.Error("a tree of 3 names is watched")
	}
	write(t, small, files{"a/x.txt": "changed"})
	tk, err := s.Take(ctx, []Checkpoint{first.Checkpoint}, Meta{Reason: AfterTool, Look: LookChanged}, nil)
	must(t, err)
	if tk.Scan.Looked != LookAll || changeList(tk.Changes) != "modified a/x.txt\n" {
		t.Errorf("unwatched: looked %v, %q", tk.Scan.Looked, changeList(tk.Changes))
	}

	big := t.TempDir()
	bigTree(t, big, 3000)
	s2, err := Open(filepath.Join(t.TempDir(), "cp"), big, Options{Watch: true})
	must(t, err)
	defer s2.Close()
	first, err = s2.Take(ctx, nil, Meta{Reason: BeforeRequest}, nil)
	must(t, err)
	if on, _ := s2.Watching(); !on {
		t.Fatal("a tree of 3,000 files is not watched")
	}
	// The top and the first directories were read before the watcher.
	write(t, big, files{"top.txt": "new", "p000/q/f000.go": "changed"})
	tk, err = s2.Take(ctx, []Checkpoint{first.Checkpoint}, Meta{Reason: AfterTool, Look: LookChanged}, nil)
	must(t, err)
	if got := changeList(tk.Changes); got != "modified p000/q/f000.go\nadded top.txt\n" || tk.Scan.Looked != LookChanged {
		t.Errorf("watched: looked %v, %q", tk.Scan.Looked, got)
	}
	write(t, big, files{"p029/q/f099.go": "changed"})
	tk, err = s2.Take(ctx, []Checkpoint{first.Checkpoint}, Meta{Reason: AfterTool, Look: LookChanged}, nil)
	must(t, err)
	if got := changeList(tk.Changes); !strings.Contains(got, "modified p029/q/f099.go\n") || tk.Scan.Statted > 300 {
		t.Errorf("then: %q, %d stats", got, tk.Scan.Statted)
	}
}
