package sessions

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const day = 24 * time.Hour

// saveAt saves a session as if at time at, locked and released as by a past
// run (which removes its lock file), with a session directory holding an
// output file.
func saveAt(t *testing.T, s *Store, clk *clock, id string, at time.Time) {
	t.Helper()
	clk.set(at)
	if err := s.Save(&Session{ID: id, WorkingDirectory: "/w/" + id}); err != nil {
		t.Fatal(err)
	}
	release, err := s.Lock(id)
	if err != nil {
		t.Fatal(err)
	}
	release()
	if err := os.MkdirAll(s.Dir(id), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(s.Dir(id), "output-1.txt"), []byte("out"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := s.Remember("/w/"+id, id); err != nil {
		t.Fatal(err)
	}
}

func sessionFiles(id string) []string { return []string{id + ".json", id} }

func TestPrune(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	now := time.Now().UTC().Truncate(time.Second)
	clk := newClock(now)
	s := NewStore(dir, clk.now)
	var (
		old       = "11111111-0000-4000-8000-000000000000"
		older     = "22222222-0000-4000-8000-000000000000"
		atLimit   = "33333333-0000-4000-8000-000000000000"
		recent    = "44444444-0000-4000-8000-000000000000"
		oldLocked = "55555555-0000-4000-8000-000000000000"
	)
	saveAt(t, s, clk, old, now.Add(-30*day-time.Second))
	saveAt(t, s, clk, older, now.Add(-400*day))
	saveAt(t, s, clk, atLimit, now.Add(-30*day))
	saveAt(t, s, clk, recent, now.Add(-time.Hour))
	saveAt(t, s, clk, oldLocked, now.Add(-60*day))
	clk.set(now)

	holder := startChild(t, "lock", dir, oldLocked, "")
	holder.expect(t, "locked")

	if n, err := s.Prune(0); n != 0 || err != nil {
		t.Fatalf("Prune(0) = %d, %v; want nothing removed", n, err)
	}
	var all []string
	for _, id := range []string{old, older, atLimit, recent, oldLocked} {
		all = append(all, sessionFiles(id)...)
	}
	assertFiles(t, dir, append(all, oldLocked+".lock", "directory-map.json", "directory-map.lock")...)

	n, err := s.Prune(30 * day)
	if n != 2 || err != nil {
		t.Fatalf("Prune(30 days) = %d, %v; want 2 removed", n, err)
	}
	var kept []string
	for _, id := range []string{atLimit, recent, oldLocked} {
		kept = append(kept, sessionFiles(id)...)
	}
	assertFiles(t, dir, append(kept, oldLocked+".lock", "directory-map.json", "directory-map.lock")...)
	m := readMapFile(t, dir)
	want := map[string]string{"/w/" + atLimit: atLimit, "/w/" + recent: recent, "/w/" + oldLocked: oldLocked}
	for k, v := range want {
		abs, _ := filepath.Abs(k)
		if m[abs] != v {
			t.Errorf("map[%s] = %q, want %q", abs, m[abs], v)
		}
	}
	if len(m) != len(want) {
		t.Errorf("map = %v, want the entries of kept sessions only", m)
	}

	// Once its holder is gone, the locked session goes too.
	holder.kill(t)
	if n, err := s.Prune(30 * day); n != 1 || err != nil {
		t.Fatalf("Prune after the holder died = %d, %v; want 1", n, err)
	}
	if _, err := os.Stat(filepath.Join(dir, oldLocked+".json")); !os.IsNotExist(err) {
		t.Errorf("%s.json still there: %v", oldLocked, err)
	}
	// A pruned session can be locked and saved again from scratch.
	release, err := s.Lock(old)
	if err != nil {
		t.Fatalf("Lock of a pruned session: %v", err)
	}
	release()
}

// Files that cannot tell their session's UpdatedAt are aged by their
// modification time.
func TestPruneLeftovers(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	now := time.Now()
	s := NewStore(dir, func() time.Time { return now })
	long := now.Add(-90 * day)
	var (
		corruptOld   = "11111111-0000-4000-8000-000000000000"
		corruptNew   = "22222222-0000-4000-8000-000000000000"
		orphanDirOld = "33333333-0000-4000-8000-000000000000"
		orphanDirNew = "44444444-0000-4000-8000-000000000000"
		orphanLock   = "55555555-0000-4000-8000-000000000000"
	)
	files := []struct {
		name string
		dir  bool
		old  bool
	}{
		{corruptOld + ".json", false, true},
		{corruptNew + ".json", false, false},
		{orphanDirOld, true, true},
		{orphanDirNew, true, false},
		{orphanLock + ".lock", false, true},
		{"." + corruptOld + ".json.tmp-1", false, true},
		{"." + corruptOld + ".json.tmp-2", false, false},
		{"notes.txt", false, true},
	}
	for _, f := range files {
		path := filepath.Join(dir, f.name)
		var err error
		if f.dir {
			err = os.Mkdir(path, 0o700)
		} else {
			err = os.WriteFile(path, []byte("{not json"), 0o600)
		}
		if err != nil {
			t.Fatal(err)
		}
		if f.old {
			if err := os.Chtimes(path, long, long); err != nil {
				t.Fatal(err)
			}
		}
	}
	n, err := s.Prune(30 * day)
	if n != 3 || err != nil {
		t.Fatalf("Prune = %d, %v; want 3 (old corrupt file, old directory, old lock)", n, err)
	}
	// The recent temporary file goes too: no dev holds its session, so it
	// is a dead run's (SPEC §11).
	assertFiles(t, dir, corruptNew+".json", orphanDirNew, "notes.txt", "directory-map.lock")
}

// Prune reads only the start of a session file when that is enough to
// keep the session; every other case is decided as before, by the whole
// file or the modification times.
func TestPruneReadsOnlyWhatDecides(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	now := time.Now().UTC().Truncate(time.Second)
	s := NewStore(dir, func() time.Time { return now })
	recentT, oldT := now.Add(-time.Hour), now.Add(-90*day)
	head := func(id string, updated time.Time) string {
		return `{"id":"` + id + `","createdAt":"` + updated.Format(time.RFC3339) + `","updatedAt":"` + updated.Format(time.RFC3339) + `","history":[`
	}
	whole := func(id string, updated time.Time) string {
		return head(id, updated) + `{"role":"user","content":"hi"}],"audits":[]}`
	}
	late := func(id string, updated time.Time) string {
		return `{"id":"` + id + `","history":[{"role":"user","content":"` + strings.Repeat("x", 2*headSize) + `"}],"updatedAt":"` + updated.Format(time.RFC3339) + `"}`
	}
	cases := []struct {
		id      string
		content string
		mtime   time.Time
		kept    bool
	}{
		// A recent session, as dev leaves it.
		{"11111111-0000-4000-8000-000000000000", whole("11111111-0000-4000-8000-000000000000", recentT), recentT, true},
		// Copied back from a backup: a new file of an old session.
		{"22222222-0000-4000-8000-000000000000", whole("22222222-0000-4000-8000-000000000000", oldT), recentT, false},
		// An old file that says it is recent (its clock was ahead).
		{"33333333-0000-4000-8000-000000000000", whole("33333333-0000-4000-8000-000000000000", recentT), oldT, true},
		// A recent head, then garbage: aged by its recent file.
		{"44444444-0000-4000-8000-000000000000", head("44444444-0000-4000-8000-000000000000", recentT) + "garbage", recentT, true},
		// A recent head, then garbage, in an old file: aged by the file.
		{"55555555-0000-4000-8000-000000000000", head("55555555-0000-4000-8000-000000000000", recentT) + "garbage", oldT, false},
		// updatedAt after a long history, edited by hand.
		{"66666666-0000-4000-8000-000000000000", late("66666666-0000-4000-8000-000000000000", oldT), recentT, false},
		{"77777777-0000-4000-8000-000000000000", late("77777777-0000-4000-8000-000000000000", recentT), recentT, true},
	}
	var want []string
	for _, c := range cases {
		path := filepath.Join(dir, c.id+".json")
		if err := os.WriteFile(path, []byte(c.content), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(path, c.mtime, c.mtime); err != nil {
			t.Fatal(err)
		}
		if c.kept {
			want = append(want, c.id+".json")
		}
	}
	if _, err := s.Prune(30 * day); err != nil {
		t.Fatal(err)
	}
	assertFiles(t, dir, append(want, "directory-map.lock")...)
}

func TestPruneEmptyStore(t *testing.T) {
	t.Parallel()
	s := NewStore(filepath.Join(t.TempDir(), "never-written"), nil)
	if n, err := s.Prune(day); n != 0 || err != nil {
		t.Errorf("Prune of a missing directory = %d, %v", n, err)
	}
}
