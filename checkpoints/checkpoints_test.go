package checkpoints

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// Every kind of change is undone byte for byte, and the undo itself can
// be undone.
func TestRewindRoundTrip(t *testing.T) {
	t.Parallel()
	base := files{
		"a.txt":            "alpha\n",
		"empty":            "",
		"src/main.go":      "package main\n",
		"src/deep/x/y.txt": "deep\n",
		"link":             "->a.txt",
		"dir2file/inner":   "inner\n",
		"file2dir":         "was a file\n",
		"bin.dat":          "\x00\x01\x02",
	}
	tests := []struct {
		name   string
		mutate func(t *testing.T, dir string)
		want   string // the changes from checkpoint 0
	}{
		{"modify", func(t *testing.T, dir string) {
			must(t, os.WriteFile(filepath.Join(dir, "a.txt"), []byte("beta\n"), 0o644))
		}, "modified a.txt\n"},
		{"delete nested", func(t *testing.T, dir string) {
			must(t, os.RemoveAll(filepath.Join(dir, "src")))
		}, "deleted src/deep/x/y.txt\ndeleted src/main.go\n"},
		{"create nested and empty", func(t *testing.T, dir string) {
			write(t, dir, files{"new/dir/n.txt": "n\n", "new/empty": ""})
		}, "added new/dir/n.txt\nadded new/empty\n"},
		{"chmod", func(t *testing.T, dir string) {
			must(t, os.Chmod(filepath.Join(dir, "src/main.go"), 0o755))
		}, "modified src/main.go\n"},
		{"relink", func(t *testing.T, dir string) {
			must(t, os.Remove(filepath.Join(dir, "link")))
			must(t, os.Symlink("src", filepath.Join(dir, "link")))
		}, "modified link\n"},
		{"link to file", func(t *testing.T, dir string) {
			must(t, os.Remove(filepath.Join(dir, "link")))
			write(t, dir, files{"link": "now a file\n"})
		}, "modified link\n"},
		{"directory to file and file to directory", func(t *testing.T, dir string) {
			must(t, os.RemoveAll(filepath.Join(dir, "dir2file")))
			must(t, os.Remove(filepath.Join(dir, "file2dir")))
			write(t, dir, files{"dir2file": "now a file\n", "file2dir/in": "in\n"})
		}, "added dir2file\ndeleted dir2file/inner\ndeleted file2dir\nadded file2dir/in\n"},
		{"empty a file, fill the empty one", func(t *testing.T, dir string) {
			write(t, dir, files{"a.txt": "", "empty": "full\n", "bin.dat": "\x00\x01"})
		}, "modified a.txt\nmodified bin.dat\nmodified empty\n"},
		{"everything at once", func(t *testing.T, dir string) {
			must(t, os.RemoveAll(filepath.Join(dir, "src")))
			must(t, os.Remove(filepath.Join(dir, "a.txt")))
			write(t, dir, files{"src/main.go": "package other\n", "z": "z"})
		}, "deleted a.txt\ndeleted src/deep/x/y.txt\nmodified src/main.go\nadded z\n"},
	}
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links and permission bits need a Unix file system")
	}
	for _, mode := range modes {
		for _, tt := range tests {
			t.Run(mode.name+"/"+tt.name, func(t *testing.T) {
				t.Parallel()
				dir := t.TempDir()
				write(t, dir, base)
				ss := newSession(t, dir, mode.opts)
				ss.look = mode.look
				ss.state = State{Messages: [][]byte{[]byte("request")}, Rest: []byte("tasks 0")}
				if tk := ss.take(BeforeRequest, ""); !tk.New || tk.Checkpoint.Number != 0 || tk.Changes != nil {
					t.Fatalf("first checkpoint: %+v", tk)
				} else if mode.opts.Lazy && tk.Scan.Deferred != 7 {
					t.Fatalf("a lazy first checkpoint deferred %d files, want 7", tk.Scan.Deferred)
				}
				// What the app does before a tool runs.
				must(t, ss.s.Protect(context.Background()))
				original := state(t, dir, false)

				tt.mutate(t, dir)
				ss.state.Messages = append(ss.state.Messages, []byte("step 1"))
				ss.state.Rest = []byte("tasks 1")
				tk := ss.take(AfterTool, "COMMAND")
				if !tk.New || tk.Checkpoint.Number != 1 {
					t.Fatalf("a change made no checkpoint: %+v", tk)
				}
				if got := changeList(tk.Changes); got != tt.want {
					t.Errorf("changes:\n%s\nwant:\n%s", got, tt.want)
				}
				changed := state(t, dir, false)

				r := ss.rewind(0)
				if r.Before.New {
					t.Errorf("the present equals checkpoint 1, yet a checkpoint was taken: %+v", r.Before.Checkpoint)
				}
				sameState(t, "after rewinding to 0", state(t, dir, false), original)
				if got := string(ss.state.Rest); got != "tasks 0" || len(ss.state.Messages) != 1 {
					t.Errorf("state after rewind: %q, %d messages", got, len(ss.state.Messages))
				}

				// The rewind's own changes are checkpoint 1's, reversed.
				if got, want := changeList(r.Restore.Changes), reversed(tt.want); got != want {
					t.Errorf("the rewind changed:\n%s\nwant the step reversed:\n%s", got, want)
				}
				ss.rewind(1)
				sameState(t, "after rewinding the rewind", state(t, dir, false), changed)
				if got := string(ss.state.Rest); got != "tasks 1" {
					t.Errorf("state after the second rewind: %q", got)
				}
			})
		}
	}
}

// A rewind checkpoints the present first when it differs from the last
// checkpoint, in its files or its state, so nothing is lost.
func TestRewindKeepsThePresent(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write(t, dir, files{"f": "0\n"})
	ss := newSession(t, dir, Options{})
	ss.take(BeforeRequest, "")
	write(t, dir, files{"f": "1\n"})
	ss.take(AfterTool, "WRITE_FILE")
	write(t, dir, files{"f": "by the user\n"}) // after the last checkpoint

	plan, err := ss.s.PlanRewind(context.Background(), ss.list, 0, ss.present)
	must(t, err)
	if got := changeList(plan.Foreign); got != "modified f\n" {
		t.Errorf("foreign changes: %q", got)
	}
	if got := changeList(plan.Restore.Changes); got != "modified f\n" {
		t.Errorf("planned: %q", got)
	}
	if got := state(t, dir, false)["f"]; !strings.HasSuffix(got, "by the user\n") {
		t.Fatalf("planning changed the file: %q", got)
	}

	r := ss.rewind(0)
	if !r.Before.New || r.Before.Checkpoint.Reason != BeforeRewind || r.Before.Checkpoint.Number != 2 {
		t.Fatalf("no checkpoint of the present: %+v", r.Before)
	}
	ss.rewind(2)
	if got := state(t, dir, false)["f"]; !strings.HasSuffix(got, "by the user\n") {
		t.Errorf("rewinding the rewind gave %q", got)
	}

	// Same files, grown state: still a checkpoint, or the history since
	// would be lost.
	ss.state.Messages = append(ss.state.Messages, []byte("a question and its answer"))
	r = ss.rewind(0)
	if !r.Before.New {
		t.Errorf("a grown history made no checkpoint before the rewind")
	}
	// The present is checkpoint 0 again, which holds it already.
	n := len(ss.list)
	r = ss.rewind(0)
	if r.Before.New || len(ss.list) != n {
		t.Errorf("a present some checkpoint holds made a checkpoint: %+v", r.Before.Checkpoint)
	}
}

func TestTakeOnlyWhenChanged(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write(t, dir, files{"a": "a", "sub/b": "b"})
	ss := newSession(t, dir, Options{})
	ss.take(BeforeRequest, "")
	if tk := ss.take(AfterTool, "READ_FILE"); tk.New || len(tk.Changes) > 0 {
		t.Errorf("nothing changed, yet: %+v", tk)
	}
	if tk := ss.take(BeforeRequest, ""); !tk.New || tk.Checkpoint.Number != 1 {
		t.Errorf("a request always gets its checkpoint: %+v", tk)
	}
	// An empty directory is not a change, as in git.
	must(t, os.Mkdir(filepath.Join(dir, "empty"), 0o755))
	if tk := ss.take(AfterTool, "COMMAND"); tk.New {
		t.Errorf("an empty directory made a checkpoint: %+v", tk.Changes)
	}
	write(t, dir, files{"sub/b": "B"})
	tk := ss.take(AfterTool, "COMMAND")
	if !tk.New || changeList(tk.Changes) != "modified sub/b\n" || tk.Checkpoint.Tool != "COMMAND" {
		t.Errorf("a change: %+v", tk)
	}
}

// Paths a snapshot skips are neither stored nor touched by a rewind:
// .git, node_modules, ignored files, files over the cap, and what lies
// where a skipped file now stands.
func TestSkippedPathsUntouched(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("permission bits need a Unix file system")
	}
	dir := t.TempDir()
	write(t, dir, files{
		".git/HEAD":            "ref: refs/heads/main\n",
		".gitignore":           "*.log\nbuild/\n",
		"sub/.gitignore":       "local.txt\n",
		"app.log":              "log 1\n",
		"build/out.bin":        "out 1\n",
		"sub/local.txt":        "local 1\n",
		"sub/kept.txt":         "kept 1\n",
		"node_modules/x/i.js":  "js 1\n",
		"big.bin":              strings.Repeat("b", 100),
		"small-then-big":       "small\n",
		"gone-then-ignored.go": "code\n",
	})
	ss := newSession(t, dir, Options{MaxFileBytes: 50})
	tk := ss.take(BeforeRequest, "")
	if got := strings.Join(tk.Scan.Oversize, ","); got != "big.bin" {
		t.Errorf("oversize: %q", got)
	}
	// .gitignore, sub/.gitignore, sub/kept.txt, small-then-big, gone-then-ignored.go
	if tk.Scan.Files != 5 {
		t.Errorf("%d files snapshotted, want 5", tk.Scan.Files)
	}
	// The agent changes everything, skipped paths included.
	write(t, dir, files{
		".git/HEAD":           "ref: refs/heads/other\n",
		"app.log":             "log 2\n",
		"build/out.bin":       "out 2\n",
		"build/new.bin":       "new\n",
		"sub/local.txt":       "local 2\n",
		"sub/kept.txt":        "kept 2\n",
		"node_modules/x/i.js": "js 2\n",
		"big.bin":             strings.Repeat("c", 100),
		"small-then-big":      strings.Repeat("s", 100),
		"new.log":             "new log\n",
	})
	// A file deleted, and a file of its name now ignored: left alone.
	must(t, os.Remove(filepath.Join(dir, "gone-then-ignored.go")))
	write(t, dir, files{".gitignore": "*.log\nbuild/\ngone-then-ignored.go\n", "gone-then-ignored.go": "user's\n"})
	before := state(t, dir, true)
	ss.take(AfterTool, "COMMAND")

	r := ss.rewind(0)
	after := state(t, dir, true)
	for _, p := range []string{".git/HEAD", "app.log", "build/out.bin", "build/new.bin", "sub/local.txt",
		"node_modules/x/i.js", "big.bin", "small-then-big", "new.log", "gone-then-ignored.go"} {
		if after[p] != before[p] {
			t.Errorf("%s was touched: %q, was %q", p, after[p], before[p])
		}
	}
	if !strings.HasSuffix(after["sub/kept.txt"], "kept 1\n") && !strings.Contains(after["sub/kept.txt"], "kept 1\n @") {
		t.Errorf("sub/kept.txt not restored: %q", after["sub/kept.txt"])
	}
	if !strings.Contains(after[".gitignore"], "build/\n @") || strings.Contains(after[".gitignore"], "gone-then") {
		t.Errorf(".gitignore not restored: %q", after[".gitignore"])
	}
	left := changeList(r.Restore.Left)
	if left != "added gone-then-ignored.go\nadded small-then-big\n" {
		t.Errorf("left:\n%s", left)
	}
}

// The user's git repository is read, never written: .git is the same,
// byte for byte and time for time, after snapshots and a rewind.
func TestGitRepositoryUntouched(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	makeGitRepo(t, dir)
	write(t, dir, files{"main.go": "package main\n", "README.md": "# x\n"})
	git := func() map[string]string { return state(t, filepath.Join(dir, ".git"), true) }
	before := git()
	ss := newSession(t, dir, Options{})
	ss.take(BeforeRequest, "")
	write(t, dir, files{"main.go": "package main // edited\n", "new.go": "package main\n"})
	must(t, os.Remove(filepath.Join(dir, "README.md")))
	ss.take(AfterTool, "COMMAND")
	ss.rewind(0)
	ss.rewind(1)
	sameState(t, ".git", git(), before)
	if len(before) < 5 {
		t.Fatalf("the repository is too small to tell: %v", before)
	}
}

// A working directory below a repository's root follows the .gitignore
// files above it.
func TestSubdirectoryOfRepository(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	write(t, root, files{".git/HEAD": "ref: refs/heads/main\n", ".git/info/exclude": "*.secret\n", ".gitignore": "*.tmp\n",
		"pkg/a.go": "a", "pkg/b.tmp": "b", "pkg/c.secret": "c"})
	ss := newSession(t, filepath.Join(root, "pkg"), Options{})
	tk := ss.take(BeforeRequest, "")
	if tk.Scan.Files != 1 {
		t.Errorf("%d files snapshotted, want only a.go", tk.Scan.Files)
	}
}

// The store's own directory, and any excluded one, stays out of the
// snapshot even inside the working directory.
func TestExclude(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write(t, dir, files{"a": "a", ".home/config.json": "{}"})
	s, err := Open(filepath.Join(dir, ".store"), dir, Options{Exclude: []string{filepath.Join(dir, ".home")}})
	must(t, err)
	ctx := context.Background()
	first, err := s.Snapshot(ctx)
	must(t, err)
	second, err := s.Snapshot(ctx)
	must(t, err)
	if first.Tree != second.Tree || first.Files != 1 {
		t.Errorf("the store or .home is in the snapshot: %+v then %+v", first, second)
	}
}

// A file whose stat is cached is not read again; one whose content
// changed with its size and time kept is still seen (its inode change
// time moved).
func TestStatCache(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write(t, dir, files{"a": "aaaa", "b": "bbbb", "c/d": "dddd"})
	storeDir := filepath.Join(t.TempDir(), "cp")
	s, err := Open(storeDir, dir, Options{})
	must(t, err)
	ctx := context.Background()
	first, err := s.Snapshot(ctx)
	must(t, err)
	if first.Hashed != 3 {
		t.Errorf("first scan hashed %d files, want 3", first.Hashed)
	}
	again, err := s.Snapshot(ctx)
	must(t, err)
	if again.Hashed != 0 || again.Tree != first.Tree {
		t.Errorf("an unchanged directory: hashed %d, tree %s then %s", again.Hashed, first.Tree, again.Tree)
	}
	// Another process, later: the index on disk spares it the reading.
	cold, err := Open(storeDir, dir, Options{})
	must(t, err)
	coldScan, err := cold.Snapshot(ctx)
	must(t, err)
	if coldScan.Hashed != 0 || coldScan.Tree != first.Tree {
		t.Errorf("a new store: hashed %d, tree %s", coldScan.Hashed, coldScan.Tree)
	}

	// A damaged index costs a full read, never a wrong snapshot.
	for _, damage := range []string{"", indexMagic, indexMagic + "\x05\xff\xff", "garbage"} {
		must(t, os.WriteFile(filepath.Join(storeDir, "index"), []byte(damage), 0o600))
		fresh, err := Open(storeDir, dir, Options{})
		must(t, err)
		sc, err := fresh.Snapshot(ctx)
		must(t, err)
		if sc.Tree != first.Tree || sc.Hashed != 3 {
			t.Errorf("with index %q: hashed %d, tree %s", damage, sc.Hashed, sc.Tree)
		}
	}

	if runtime.GOOS != "linux" && runtime.GOOS != "darwin" {
		return
	}
	p := filepath.Join(dir, "a")
	fi, err := os.Stat(p)
	must(t, err)
	must(t, os.WriteFile(p, []byte("AAAA"), 0o644))
	must(t, os.Chtimes(p, fi.ModTime(), fi.ModTime()))
	changed, err := s.Snapshot(ctx)
	must(t, err)
	if changed.Tree == first.Tree || changed.Hashed != 1 {
		t.Errorf("a same-size, same-time rewrite went unseen (hashed %d)", changed.Hashed)
	}
}

// A file modified within the file system's time granularity of being
// read is read again at the next scan, whatever its stat says.
func TestRacyFileReadAgain(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	must(t, os.WriteFile(filepath.Join(dir, "fresh"), []byte("1"), 0o644)) // modified now
	s, err := Open(t.TempDir(), dir, Options{})
	must(t, err)
	ctx := context.Background()
	_, err = s.Snapshot(ctx)
	must(t, err)
	again, err := s.Snapshot(ctx)
	must(t, err)
	if again.Hashed != 1 {
		t.Errorf("a file modified just now was trusted from its stat (hashed %d)", again.Hashed)
	}
}

func TestFind(t *testing.T) {
	t.Parallel()
	list := []Checkpoint{{Number: 0}, {Number: 1}, {Number: 2}}
	if c, err := Find(list, 2); err != nil || c.Number != 2 {
		t.Errorf("Find 2: %+v %v", c, err)
	}
	for _, n := range []int{-1, 3} {
		if _, err := Find(list, n); !errors.Is(err, ErrNoCheckpoint) || !strings.Contains(err.Error(), "0 to 2") {
			t.Errorf("Find %d: %v", n, err)
		}
	}
	if _, err := Find(nil, 0); !errors.Is(err, ErrNoCheckpoint) {
		t.Errorf("Find in none: %v", err)
	}
}

// Two stores on the same session and directory (dev diff while dev
// runs) snapshot at once without harm.
func TestConcurrentStores(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	fs := files{}
	for i := range 200 {
		fs[filepath.Join("d", string(rune('a'+i%20)), strings.Repeat("f", 1+i/20))] = strings.Repeat("x", i)
	}
	write(t, dir, fs)
	storeDir := filepath.Join(t.TempDir(), "cp")
	var wg sync.WaitGroup
	trees := make([]ID, 4)
	errs := make([]error, 4)
	for i := range trees {
		wg.Go(func() {
			s, err := Open(storeDir, dir, Options{})
			if err != nil {
				errs[i] = err
				return
			}
			for range 3 {
				sc, err := s.Snapshot(context.Background())
				trees[i], errs[i] = sc.Tree, err
			}
		})
	}
	wg.Wait()
	for i := range trees {
		if errs[i] != nil || trees[i] != trees[0] {
			t.Errorf("store %d: %v, tree %s (store 0: %s)", i, errs[i], trees[i], trees[0])
		}
	}
	s, err := Open(storeDir, dir, Options{})
	must(t, err)
	cs, err := s.Changes(context.Background(), "", trees[0])
	must(t, err)
	if len(cs) != 200 {
		t.Errorf("%d files in the snapshot, want 200", len(cs))
	}
}

// A damaged object is reported, not restored from.
func TestCorruptObject(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write(t, dir, files{"a": "original content\n"})
	ss := newSession(t, dir, Options{})
	ss.take(BeforeRequest, "")
	write(t, dir, files{"a": "changed\n"})
	tk := ss.take(AfterTool, "WRITE_FILE")
	h, err := parseID(tk.Changes[0].From.ID)
	must(t, err)
	overwriteObject(t, ss.s, h, []byte("r"+strings.Repeat("g", int(storedAt(t, ss.s, h).size)-1)))
	_, err = ss.s.Rewind(context.Background(), ss.list, 0, nil, nil)
	if err == nil || !strings.Contains(err.Error(), "corrupt") {
		t.Errorf("rewind from a corrupt object: %v", err)
	}
	if got := state(t, dir, false)["a"]; !strings.HasSuffix(got, "changed\n") {
		t.Errorf("the file became %q", got)
	}
}

func TestCancelled(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write(t, dir, files{"a/b": "b"})
	s, err := Open(t.TempDir(), dir, Options{})
	must(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.Snapshot(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled snapshot: %v", err)
	}
}

func TestOpenErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write(t, dir, files{"file": "x"})
	if _, err := Open(t.TempDir(), filepath.Join(dir, "file"), Options{}); err == nil {
		t.Error("a file as working directory was accepted")
	}
	if _, err := Open(t.TempDir(), filepath.Join(dir, "missing"), Options{}); err == nil {
		t.Error("a missing working directory was accepted")
	}
	// A store that cannot be written fails the checkpoint, which the
	// caller reports once and carries on without.
	blocker := filepath.Join(dir, "file")
	s, err := Open(filepath.Join(blocker, "cp"), dir, Options{})
	must(t, err)
	if _, err := s.Take(context.Background(), nil, Meta{Reason: BeforeRequest}, nil); err == nil {
		t.Error("a checkpoint into an unwritable store succeeded")
	}
}

// Many new objects go into one pack, which a later process reads.
func TestPack(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	fs := files{}
	for i := range packThreshold + 10 {
		fs[filepath.Join("d", strings.Repeat("x", i+1))] = strings.Repeat("content ", i)
	}
	write(t, dir, fs)
	storeDir := filepath.Join(t.TempDir(), "cp")
	s, err := Open(storeDir, dir, Options{})
	must(t, err)
	first, err := s.Take(context.Background(), nil, Meta{Reason: BeforeRequest}, nil)
	must(t, err)
	packs, _ := filepath.Glob(filepath.Join(storeDir, "objects", "pack", "pack-*"))
	loose, _ := filepath.Glob(filepath.Join(storeDir, "objects", "??", "*"))
	if len(packs) != 2 || len(loose) != 0 {
		t.Errorf("pack files %q, %d loose objects; want a pack and its index only", packs, len(loose))
	}
	must(t, os.RemoveAll(filepath.Join(dir, "d")))
	cold, err := Open(storeDir, dir, Options{})
	must(t, err)
	r, err := cold.Rewind(context.Background(), []Checkpoint{first.Checkpoint}, 0, nil, nil)
	must(t, err)
	if len(r.Restore.Changes) != len(fs) {
		t.Errorf("restored %d files, want %d", len(r.Restore.Changes), len(fs))
	}
	for p, content := range fs {
		if data, err := os.ReadFile(filepath.Join(dir, p)); err != nil || string(data) != content {
			t.Fatalf("%s: %q, %v", p, data, err)
		}
	}
}

// A working directory too big to copy (a home directory) fails the
// snapshot before anything is stored.
func TestTooBig(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write(t, dir, files{"a": "1234567890", "b/c": "1234567890", "b/d": "x"})
	for _, opts := range []Options{{MaxFiles: 2}, {MaxTotalBytes: 15}} {
		storeDir := filepath.Join(t.TempDir(), "cp")
		s, err := Open(storeDir, dir, opts)
		must(t, err)
		if _, err := s.Take(context.Background(), nil, Meta{Reason: BeforeRequest}, nil); !errors.Is(err, ErrTooBig) {
			t.Errorf("%+v: %v", opts, err)
		}
		if _, err := os.Stat(storeDir); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%+v: something was stored", opts)
		}
	}
	s, err := Open(t.TempDir(), dir, Options{MaxFiles: 3, MaxTotalBytes: 21})
	must(t, err)
	if _, err := s.Snapshot(context.Background()); err != nil {
		t.Errorf("at the caps: %v", err)
	}
}

// A rewind keeps the present before it touches a file (issue 30, break
// 2): kept is given the checkpoint of the present while the files are
// still the present's, its objects already readable by another store
// (another dev process), and it is the checkpoint the plan named. An
// error from kept stops the rewind with nothing changed.
func TestRewindKeepsThePresentBeforeTouchingAFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write(t, dir, files{"a": "0\n", "sub/b": "0\n"})
	ss := newSession(t, dir, Options{})
	ss.take(BeforeRequest, "")
	write(t, dir, files{"a": "edited\n", "sub/b": "edited\n", "new": "made\n"}) // in no checkpoint
	edited := state(t, dir, false)

	plan, err := ss.s.PlanRewind(context.Background(), ss.list, 0, ss.present)
	must(t, err)
	if !plan.Before.New || plan.Before.Checkpoint.Number != 1 {
		t.Fatalf("the plan names %+v as holding the present, want a new checkpoint 1", plan.Before.Checkpoint)
	}
	refused := errors.New("the session could not be saved")
	_, err = ss.s.Rewind(context.Background(), ss.list, 0, ss.present, func(Taken) error { return refused })
	if !errors.Is(err, refused) {
		t.Errorf("err = %v, want kept's", err)
	}
	sameState(t, "after kept failed", state(t, dir, false), edited)

	var before Taken
	r, err := ss.s.Rewind(context.Background(), ss.list, 0, ss.present, func(b Taken) error {
		before = b
		sameState(t, "when kept is called", state(t, dir, false), edited)
		other, err := Open(ss.s.dir, dir, Options{})
		must(t, err)
		defer other.Close()
		changes, err := other.Changes(context.Background(), ss.list[0].Tree, b.Checkpoint.Tree)
		must(t, err)
		for _, c := range changes {
			if _, _, err := other.Patch(c); err != nil {
				t.Errorf("another store cannot read the kept checkpoint's %s: %v", c.Path, err)
			}
		}
		if got := changeList(changes); got != "modified a\nadded new\nmodified sub/b\n" {
			t.Errorf("the kept checkpoint holds %q", got)
		}
		return ss.keep(b)
	})
	must(t, err)
	if !before.New || before.Checkpoint.Number != plan.Before.Checkpoint.Number || r.Before.Checkpoint != before.Checkpoint {
		t.Errorf("kept %+v, planned %+v", before.Checkpoint, plan.Before.Checkpoint)
	}
	ss.rewind(before.Checkpoint.Number)
	sameState(t, "after rewinding the rewind", state(t, dir, false), edited)
}
