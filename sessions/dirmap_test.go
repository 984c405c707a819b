package sessions

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestRememberAndLast(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := NewStore(dir, nil)
	project := filepath.Join(t.TempDir(), "project")

	if _, err := s.Last(project); !errors.Is(err, ErrNoSession) {
		t.Fatalf("Last with no map: %v, want ErrNoSession", err)
	}

	a, _ := s.New("", project, "first", "m")
	b, _ := s.New("", project, "second", "m")
	for _, sess := range []*Session{a, b} {
		if err := s.Save(sess); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Remember(project, a.ID); err != nil {
		t.Fatal(err)
	}
	if id, err := s.Last(project); err != nil || id != a.ID {
		t.Fatalf("Last = %q, %v; want %q", id, err, a.ID)
	}
	// The path is cleaned, so the same directory spelled differently finds it.
	if id, err := s.Last(project + string(filepath.Separator) + "." + string(filepath.Separator)); err != nil || id != a.ID {
		t.Errorf("Last of an uncleaned path = %q, %v; want %q", id, err, a.ID)
	}
	if err := s.Remember(project, b.ID); err != nil {
		t.Fatal(err)
	}
	if id, err := s.Last(project); err != nil || id != b.ID {
		t.Fatalf("Last after a second Remember = %q, %v; want %q", id, err, b.ID)
	}
	if _, err := s.Last(filepath.Join(project, "sub")); !errors.Is(err, ErrNoSession) {
		t.Errorf("Last of a subdirectory: %v, want ErrNoSession", err)
	}

	// The map is plain JSON: absolute directory -> session id.
	m := readMapFile(t, dir)
	if len(m) != 1 || m[project] != b.ID {
		t.Errorf("directory-map.json = %v, want {%q: %q}", m, project, b.ID)
	}

	// A session whose file is gone cannot be resumed.
	if err := os.Remove(filepath.Join(dir, b.ID+".json")); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Last(project); !errors.Is(err, ErrNoSession) {
		t.Errorf("Last when the session file is gone: %v, want ErrNoSession", err)
	}

	if err := s.Remember(project, "not-an-id"); !errors.Is(err, ErrBadID) {
		t.Errorf("Remember with a bad id: %v, want ErrBadID", err)
	}
	if err := s.Remember("", a.ID); err == nil {
		t.Error("Remember with no directory succeeded")
	}
}

func TestRememberRelativeDirectory(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := NewStore(dir, nil)
	if err := s.Save(&Session{ID: someID}); err != nil {
		t.Fatal(err)
	}
	if err := s.Remember("rel", someID); err != nil {
		t.Fatal(err)
	}
	abs, err := filepath.Abs("rel")
	if err != nil {
		t.Fatal(err)
	}
	if id, err := s.Last(abs); err != nil || id != someID {
		t.Errorf("Last(%q) = %q, %v; want %q", abs, id, err, someID)
	}
}

// A corrupt map is set aside and rebuilt from the session files (each
// records its working directory), with a warning naming both files: it was
// replaced by a map of one entry before, and every other directory lost
// --resume.
func TestCorruptDirectoryMap(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	clock := time.Date(2026, 11, 26, 15, 0, 0, 0, time.UTC)
	s := NewStore(dir, func() time.Time { clock = clock.Add(time.Minute); return clock })
	var warnings []string
	s.OnWarning(func(w string) { warnings = append(warnings, w) })
	a, b, c := t.TempDir(), t.TempDir(), t.TempDir()
	ids := []string{"10000000-0000-4000-8000-000000000000", "20000000-0000-4000-8000-000000000000", "30000000-0000-4000-8000-000000000000"}
	for i, d := range []string{a, a, b} { // a's last session is the second
		if err := s.Save(&Session{ID: ids[i], WorkingDirectory: d}); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(dir, "directory-map.json")
	corrupt := []byte(`{"/a": `)
	if err := os.WriteFile(path, corrupt, 0o600); err != nil {
		t.Fatal(err)
	}
	if id, err := s.Last(b); err != nil || id != ids[2] {
		t.Errorf("Last(b) with a corrupt map = %q, %v; want %s", id, err, ids[2])
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], path) || !strings.Contains(warnings[0], "directory-map.json.corrupt-") {
		t.Fatalf("warnings %q, want one naming %s and where it was set aside", warnings, path)
	}
	aside, _ := filepath.Glob(filepath.Join(dir, "directory-map.json.corrupt-*"))
	if len(aside) != 1 {
		t.Fatalf("set aside: %v", aside)
	}
	if kept, _ := os.ReadFile(aside[0]); string(kept) != string(corrupt) {
		t.Errorf("the file set aside holds %q", kept)
	}
	// A later session elsewhere keeps every other directory's entry.
	if err := s.Remember(c, ids[0]); err != nil {
		t.Fatal(err)
	}
	for d, want := range map[string]string{a: ids[1], b: ids[2], c: ids[0]} {
		if id, err := s.Last(d); err != nil || id != want {
			t.Errorf("Last(%s) = %q, %v; want %s", d, id, err, want)
		}
	}
	if len(warnings) != 1 {
		t.Errorf("warned again: %q", warnings)
	}

	// Corrupt again, and the first to touch it is a Remember.
	if err := os.WriteFile(path, []byte("not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := s.Remember(c, ids[2]); err != nil {
		t.Fatal(err)
	}
	for d, want := range map[string]string{a: ids[1], b: ids[2], c: ids[2]} {
		if id, err := s.Last(d); err != nil || id != want {
			t.Errorf("after a Remember on a corrupt map, Last(%s) = %q, %v; want %s", d, id, err, want)
		}
	}
}

// TestRememberConcurrently has processes and goroutines remember distinct
// directories at the same time: no entry may be lost.
func TestRememberConcurrently(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	const (
		processes  = 4
		goroutines = 8
		each       = 20
	)
	id := func(n int) string { return fmt.Sprintf("%08d-0000-4000-8000-000000000000", n) }
	// The map names only sessions whose file exists.
	for n := range processes + goroutines {
		if err := os.WriteFile(filepath.Join(dir, id(n)+".json"), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}

	var children []*child
	for p := range processes {
		c := startChild(t, "remember", dir, id(p), strconv.Itoa(each))
		c.expect(t, "ready")
		children = append(children, c)
	}
	for _, c := range children {
		if _, err := c.stdin.Write([]byte("go\n")); err != nil {
			t.Fatal(err)
		}
	}
	s := NewStore(dir, nil)
	var wg sync.WaitGroup
	errs := make(chan error, goroutines*each)
	for g := range goroutines {
		wg.Go(func() {
			for i := range each {
				if err := s.Remember(rememberedDir(id(processes+g), i), id(processes+g)); err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	for _, c := range children {
		c.expect(t, "done")
	}

	m := readMapFile(t, dir)
	for n := range processes + goroutines {
		for i := range each {
			if got := m[rememberedDir(id(n), i)]; got != id(n) {
				t.Errorf("entry %s = %q, want %q", rememberedDir(id(n), i), got, id(n))
			}
		}
	}
	if len(m) != (processes+goroutines)*each {
		t.Errorf("map has %d entries, want %d", len(m), (processes+goroutines)*each)
	}
	files := []string{"directory-map.json", "directory-map.lock"}
	for n := range processes + goroutines {
		files = append(files, id(n)+".json")
	}
	assertFiles(t, dir, files...)
}

func readMapFile(t *testing.T, dir string) map[string]string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "directory-map.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]string
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	return m
}
