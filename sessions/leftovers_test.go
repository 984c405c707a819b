package sessions

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestRememberWaitsForTheFile: the directory map names a session only once
// its file exists, so a dev that dies before its first save leaves no
// entry pointing nowhere.
func TestRememberWaitsForTheFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := NewStore(dir, nil)
	project := t.TempDir()
	sess, _ := s.New("", project, "p", "m")
	if err := s.Remember(project, sess.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, mapFile)); !os.IsNotExist(err) {
		t.Fatalf("the map was written before the session's file: %v", err)
	}
	if _, err := s.Last(project); !errors.Is(err, ErrNoSession) {
		t.Errorf("Last before the first save: %v, want ErrNoSession", err)
	}
	if err := s.Save(sess); err != nil {
		t.Fatal(err)
	}
	if id, err := s.Last(project); err != nil || id != sess.ID {
		t.Errorf("Last after the first save = %q, %v; want %q", id, err, sess.ID)
	}
	// Another store (another dev) saving the session does not map it: the
	// intent belongs to the dev that asked.
	other := NewStore(dir, nil)
	sess2, _ := other.New("", t.TempDir(), "p", "m")
	if err := other.Save(sess2); err != nil {
		t.Fatal(err)
	}
	if m := readMapFile(t, dir); len(m) != 1 {
		t.Errorf("map = %v, want the one remembered session", m)
	}
}

// TestLoadReportsDeadRunInterrupted: a session saved as active whose lock
// no dev holds is shown as interrupted; held, in this process or another,
// it is active.
func TestLoadReportsDeadRunInterrupted(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := NewStore(dir, nil)
	sess, _ := s.New(someID, t.TempDir(), "p", "m")
	if err := s.Save(sess); err != nil {
		t.Fatal(err)
	}
	status := func() Status {
		t.Helper()
		got, err := s.Load(someID)
		if err != nil {
			t.Fatal(err)
		}
		return got.Status
	}
	if got := status(); got != Interrupted {
		t.Errorf("never locked: %q, want interrupted", got)
	}
	release, err := s.Lock(someID)
	if err != nil {
		t.Fatal(err)
	}
	if got := status(); got != Active {
		t.Errorf("locked by this process: %q, want active", got)
	}
	release()
	if got := status(); got != Interrupted {
		t.Errorf("released: %q, want interrupted", got)
	}
	if _, err := os.Stat(s.lockPath(someID)); runtime.GOOS != "windows" && !os.IsNotExist(err) {
		t.Errorf("the lock file is left after release: %v", err)
	}
	c := startChild(t, "lock", dir, someID, "")
	c.expect(t, "locked")
	if got := status(); got != Active {
		t.Errorf("locked by another process: %q, want active", got)
	}
	c.kill(t)
	if got := status(); got != Interrupted {
		t.Errorf("its holder killed: %q, want interrupted", got)
	}
	if list, err := s.List(); err != nil || len(list) != 1 || list[0].Status != Interrupted {
		t.Errorf("List = %v, %v; want it interrupted", list, err)
	}
}

// TestCorruptSessionFiles: a session file that is not a session is an
// ErrCorrupt naming the file and the field, or the place of a syntax error.
func TestCorruptSessionFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := NewStore(dir, nil)
	path := filepath.Join(dir, someID+".json")
	head := `{"id":"` + someID + `","status":"complete"`
	tests := []struct {
		name, content, want string
	}{
		{"truncated", head + `,"history":[{"role":"us`, "is corrupt: line 1, column 87: unexpected end of JSON input"},
		{"syntax", head + ",\n  \"history\": [}\n", "is corrupt: line 2, column 15: invalid character '}'"},
		{"empty", "", "is corrupt: the file is empty"},
		{"wrong type", head + `,"history":"none"}`, "is corrupt: field history: json: cannot unmarshal string"},
		{"list element", head + `,"history":[{"role":"user","content":"a"},{"role":"user","content":7}]}`, "is corrupt: field history[1]:"},
		{"time", head + `,"createdAt":"yesterday"}`, "is corrupt: field createdAt:"},
		{"status", `{"id":"` + someID + `","status":"sleeping"}`, `is corrupt: field status: "sleeping" is not active, complete, failed or interrupted`},
		{"other id", `{"id":"11111111-2222-4333-8444-555555555555","status":"complete"}`, `is corrupt: field id: "11111111-2222-4333-8444-555555555555", but the file is named after ` + someID},
		{"not an object", `[]`, "is corrupt: "},
	}
	for _, tt := range tests {
		if err := os.WriteFile(path, []byte(tt.content), 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := s.Load(someID)
		var ce *CorruptError
		if !errors.Is(err, ErrCorrupt) || !errors.As(err, &ce) || ce.Path != path ||
			!strings.Contains(err.Error(), "session file "+path+" "+tt.want) {
			t.Errorf("%s: Load error = %v, want ErrCorrupt: session file %s %s", tt.name, err, path, tt.want)
		}
	}
	// Listed, not hidden.
	good := "11111111-2222-4333-8444-555555555555"
	if err := s.Save(&Session{ID: good, Status: Complete}); err != nil {
		t.Fatal(err)
	}
	entries, err := s.Entries()
	if err != nil || len(entries) != 2 {
		t.Fatalf("Entries = %v, %v; want 2", entries, err)
	}
	for _, e := range entries {
		switch e.ID {
		case someID:
			if !errors.Is(e.Err, ErrCorrupt) || e.Session != nil || e.Path != path || e.ModTime.IsZero() {
				t.Errorf("the corrupt entry: %+v", e)
			}
		case good:
			if e.Err != nil || e.Session == nil {
				t.Errorf("the good entry: %+v", e)
			}
		}
	}
	if list, err := s.List(); err != nil || len(list) != 1 || list[0].ID != good {
		t.Errorf("List = %v, %v; want the readable session", list, err)
	}
}

// TestPruneSweepsDeadLeftovers: whatever the retention, the lock files no
// dev holds and the temporary files of sessions no dev holds are removed;
// those of a session in use are kept.
func TestPruneSweepsDeadLeftovers(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := NewStore(dir, nil)
	dead, live := someID, "11111111-2222-4333-8444-555555555555"
	for _, id := range []string{dead, live} {
		if err := s.Save(&Session{ID: id, Status: Active}); err != nil {
			t.Fatal(err)
		}
	}
	c := startChild(t, "lock", dir, live, "")
	c.expect(t, "locked")
	// fresh: a lock file no dev holds yet, as a dev that is locking it
	// right now has it; it stays until it is older than freshLock.
	fresh := "22222222-2222-4222-8222-222222222222"
	leftovers := []string{dead + ".lock", fresh + ".lock", "." + dead + ".json.tmp-1", "." + live + ".json.tmp-2", ".directory-map.json.tmp-3", ".other.tmp-4"}
	old := time.Now().Add(-freshLock - time.Second)
	for _, name := range leftovers {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte("{"), 0o600); err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(name, fresh) {
			if err := os.Chtimes(path, old, old); err != nil {
				t.Fatal(err)
			}
		}
	}
	if n, err := s.Prune(0); n != 0 || err != nil {
		t.Fatalf("Prune(0) = %d, %v", n, err)
	}
	assertFiles(t, dir, dead+".json", live+".json", live+".lock", fresh+".lock", "."+live+".json.tmp-2", ".other.tmp-4", "directory-map.lock")
	c.kill(t)
}
