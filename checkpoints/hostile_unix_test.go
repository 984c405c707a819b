//go:build unix

package checkpoints

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A working directory may hold what a checkpoint cannot: named pipes,
// sockets, links to devices, links in loops. A snapshot, whichever way it
// looks, keeps the links as links and leaves the rest out, without
// blocking on a pipe or following a link; a rewind leaves them as they
// are.
func TestHostileWorkspace(t *testing.T) {
	t.Parallel()
	for _, mode := range modes {
		t.Run(mode.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			write(t, dir, files{"kept.txt": "kept\n", "zero": "->/dev/zero", "loop": "->loop", "a": "->b", "b": "->a",
				"sub/up": "->..", "sub/self": "->.", "sub/kept.txt": "kept too\n"})
			must(t, syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644))
			must(t, syscall.Mkfifo(filepath.Join(dir, "sub", "fifo"), 0o644))
			l, err := net.Listen("unix", filepath.Join(dir, "sock"))
			must(t, err)
			defer l.Close()
			s, err := Open(filepath.Join(t.TempDir(), "checkpoints"), dir, mode.opts)
			must(t, err)
			s.watchFrom = 0
			defer func() {
				if !t.Failed() { // a checkpoint stuck on a pipe holds the store, and Close would wait for it
					s.Close()
				}
			}()
			ss := &session{t: t, s: s, look: mode.look}
			tk := takeWithin(t, ss, Meta{Reason: BeforeRequest})
			// The two kept.txt and the six links.
			if sc := tk.Scan; sc.Files != 8 || len(sc.Unreadable) != 0 || len(sc.Oversize) != 0 {
				t.Errorf("the first snapshot: %d files, unreadable %q, oversize %q", sc.Files, sc.Unreadable, sc.Oversize)
			}
			if got := treeNames(t, ss.s, tk.Checkpoint.Tree); got != "a b kept.txt loop sub/ sub/kept.txt sub/self sub/up zero" {
				t.Errorf("the snapshot holds %s", got)
			}
			before := state(t, dir, false)

			// As the app does before a tool: the files the first
			// snapshot recorded by their stat are read.
			must(t, ss.s.Protect(context.Background()))
			write(t, dir, files{"kept.txt": "changed\n"})
			if tk := ss.take(AfterTool, "COMMAND"); changeList(tk.Changes) != "modified kept.txt\n" {
				t.Errorf("changes after a command:\n%s", changeList(tk.Changes))
			}
			// A file tool writes through the links to the directory
			// above, and names paths through the loops.
			write(t, dir, files{"sub/up/sub/new.txt": "new\n"})
			paths := []string{"loop/x", "a/x", "sub/up/sub/up/sub/new.txt", "sub/self/self/new.txt", "zero"}
			for i := range paths {
				paths[i] = filepath.Join(dir, paths[i])
			}
			tk = takeWithin(t, ss, Meta{Reason: AfterTool, Tool: "WRITE_FILE", Look: LookPaths, Paths: paths})
			if sc := tk.Scan; sc.Files != 9 || len(sc.Unreadable) != 0 {
				t.Errorf("the snapshot after a file tool: %d files, unreadable %q", sc.Files, sc.Unreadable)
			}
			if got := changeList(tk.Changes); got != "added sub/new.txt\n" {
				t.Errorf("changes after a file tool:\n%s", got)
			}

			ss.rewind(0)
			sameState(t, "after the rewind", state(t, dir, false), before)
		})
	}
}

// takeWithin takes a checkpoint, failing the test when it has not ended
// within a minute: a snapshot that blocks on a pipe or follows a loop
// never does (it is left behind, holding its store).
func takeWithin(t *testing.T, ss *session, m Meta) Taken {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	type result struct {
		tk  Taken
		err error
	}
	done := make(chan result, 1)
	go func() {
		tk, err := ss.s.Take(ctx, ss.list, m, func() State { return ss.state })
		done <- result{tk, err}
	}()
	select {
	case r := <-done:
		must(t, r.err)
		if r.tk.New {
			ss.list = append(ss.list, r.tk.Checkpoint)
		}
		return r.tk
	case <-ctx.Done():
		t.Fatalf("the checkpoint did not end within a minute")
		return Taken{}
	}
}

// treeNames lists the paths of a stored tree, a directory's ending in
// "/", sorted.
func treeNames(t *testing.T, s *Store, id ID) string {
	t.Helper()
	var names []string
	var walk func(prefix string, h hash)
	walk = func(prefix string, h hash) {
		entries, err := s.obj.tree(h)
		must(t, err)
		for _, e := range entries {
			if e.dir() {
				names = append(names, prefix+e.name+"/")
				walk(prefix+e.name+"/", e.hash)
				continue
			}
			names = append(names, prefix+e.name)
		}
	}
	h, err := parseID(id)
	must(t, err)
	walk("", h)
	slices.Sort(names)
	return strings.Join(names, " ")
}

// A file the walk listed may change before the hash pool reads it. One
// replaced by what a checkpoint cannot hold, or removed, is left out; by
// a link, noted as unreadable (the read never follows it); grown past the
// cap, noted as oversize; rewritten, read as it is now.
func TestChangedBetweenListingAndReading(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	names := []string{"to-fifo", "to-socket", "to-dir", "to-zero", "to-big", "removed", "rewritten", "same"}
	listed := files{}
	for _, name := range names {
		listed[name] = "listed\n"
	}
	write(t, dir, listed)
	s, err := Open(t.TempDir(), dir, Options{MaxFileBytes: 50})
	must(t, err)
	defer s.Close()
	ctx := context.Background()
	sc := &scanner{s: s, old: index{}, when: s.now()}
	must(t, sc.walkAll(ctx))
	if len(sc.todo) != len(names) {
		t.Fatalf("%d files queued, want %d", len(sc.todo), len(names))
	}

	abs := func(name string) string { return filepath.Join(dir, name) }
	for _, name := range names[:6] {
		must(t, os.Remove(abs(name)))
	}
	must(t, syscall.Mkfifo(abs("to-fifo"), 0o644))
	l, err := net.Listen("unix", abs("to-socket"))
	must(t, err)
	defer l.Close()
	must(t, os.Mkdir(abs("to-dir"), 0o755))
	must(t, os.Symlink("/dev/zero", abs("to-zero")))
	must(t, os.WriteFile(abs("to-big"), []byte(strings.Repeat("b", 51)), 0o644))
	must(t, os.WriteFile(abs("rewritten"), []byte("rewritten, longer\n"), 0o644))

	done := make(chan error, 1)
	go func() { done <- sc.finish(ctx) }()
	select {
	case err := <-done:
		must(t, err)
	case <-time.After(time.Minute):
		t.Fatal("reading the files did not end within a minute")
	}
	res := sc.res
	if got := strings.Join(res.Oversize, " "); got != "to-big" {
		t.Errorf("oversize: %s", got)
	}
	if got := strings.Join(res.Unreadable, " "); got != "to-socket to-zero" {
		t.Errorf("unreadable: %s", got)
	}
	if res.Files != 2 || res.Bytes != int64(len("rewritten, longer\n")+len("listed\n")) {
		t.Errorf("%d files, %d bytes", res.Files, res.Bytes)
	}
	if got := treeNames(t, s, res.Tree); got != "rewritten same" {
		t.Errorf("the snapshot holds %s", got)
	}
	root, err := parseID(res.Tree)
	must(t, err)
	entries, err := s.obj.tree(root)
	must(t, err)
	data, err := s.obj.content(entries[0].hash)
	must(t, err)
	if string(data) != "rewritten, longer\n" {
		t.Errorf("rewritten holds %q", data)
	}
}

// A file that grows while it is read fails at the cap, whatever its stat
// said.
func TestReadStopsAtTheCap(t *testing.T) {
	t.Parallel()
	for _, size := range []int{0, 49, 50, 51, 4096} {
		data, err := readAllInto(strings.NewReader(strings.Repeat("g", size)), make([]byte, 0, 8), 50)
		switch {
		case size > 50 && !errors.Is(err, errTooLarge):
			t.Errorf("%d bytes past a cap of 50: %v", size, err)
		case size <= 50 && (err != nil || len(data) != size):
			t.Errorf("%d bytes under a cap of 50: %d read, %v", size, len(data), err)
		}
	}
}
