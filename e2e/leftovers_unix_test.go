//go:build unix

package e2e

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/devagent/dev/bgproc/bgproctest"
	"github.com/devagent/dev/llm/llmtest"
)

// listed is one row of `dev sessions list --json`.
type listed struct {
	ID     string `json:"id"`
	Status string `json:"status"`
	Error  string `json:"error"`
}

func (w *world) list() []listed {
	w.t.Helper()
	r := w.run("sessions", "list", "--json")
	if r.code != 0 {
		w.t.Fatalf("sessions list: exit %d\n%s", r.code, r.stderr)
	}
	var rows []listed
	if err := json.Unmarshal([]byte(r.stdout), &rows); err != nil {
		w.t.Fatalf("sessions list --json: %v\n%s", err, r.stdout)
	}
	return rows
}

// TestKilledSessionShowsInterrupted: a session whose dev was killed is
// interrupted, not active for ever; --resume takes it over.
func TestKilledSessionShowsInterrupted(t *testing.T) {
	w := newWorld(t, nil)
	w.srv.Script(llmtest.Response{Content: "x", Hang: true})
	cmd, _, _ := w.startUntilHanging("-p", "work", "--no-audit")
	if rows := w.list(); len(rows) != 1 || rows[0].Status != "active" {
		t.Errorf("while dev runs: %+v, want one active session", rows)
	}
	cmd.Process.Kill()
	cmd.Wait()
	if rows := w.list(); len(rows) != 1 || rows[0].Status != "interrupted" {
		t.Errorf("after dev was killed: %+v, want it interrupted", rows)
	}
	w.srv.Script(done("Finished."))
	r := w.run("--resume", "-p", "go on", "--no-audit")
	r.expect(t, 0)
	if s := w.onlySession(); s.Status != "complete" {
		t.Errorf("status %q after the resume", s.Status)
	}
}

// TestDirectoryMapWaitsForTheSessionFile: a dev killed before it saved its
// session leaves no directory-map entry naming it (--resume used to say
// the session "no longer exists").
func TestDirectoryMapWaitsForTheSessionFile(t *testing.T) {
	w := newWorld(t, nil)
	cmd, _, _ := w.command(w.t.Context())
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	stdin, err := cmd.StdinPipe() // open and silent: dev waits at its prompt
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	bgproctest.WaitFor(t, "dev to open its session", func() bool { return strings.Contains(stderr.String(), "new session") })
	cmd.Process.Kill()
	cmd.Wait()
	if len(w.sessions()) != 0 {
		t.Fatal("a session was saved before any message")
	}
	data, err := os.ReadFile(filepath.Join(w.home, "sessions", "directory-map.json"))
	if err == nil && strings.Contains(string(data), w.dir) {
		t.Errorf("the directory map names a session that was never saved:\n%s", data)
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	r := w.run("--resume", "-p", "go on")
	r.expect(t, 2)
	if !strings.Contains(r.stderr, "nothing to resume") || strings.Contains(r.stderr, "no longer exists") {
		t.Errorf("stderr:\n%s", r.stderr)
	}
}

// TestDeadRunFilesCleanedUp: the lock and temporary files of runs that
// died are removed when dev starts, and dev leaves no lock file itself.
func TestDeadRunFilesCleanedUp(t *testing.T) {
	w := newWorld(t, nil)
	dir := filepath.Join(w.home, "sessions")
	dead := "3b241101-e2bb-4255-8caf-4136c566a962"
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	// Older than a lock file that a dev starting beside it may be taking
	// (those stay: sessions' freshLock).
	old := time.Now().Add(-time.Hour)
	for _, name := range []string{dead + ".lock", "." + dead + ".json.tmp-123", ".directory-map.json.tmp-456"} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte("{"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(path, old, old); err != nil {
			t.Fatal(err)
		}
	}
	w.srv.Script(done("Done."))
	w.run("-p", "work", "--no-audit").expect(t, 0)
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if name := e.Name(); strings.HasSuffix(name, ".lock") && name != "directory-map.lock" || strings.Contains(name, ".tmp-") {
			t.Errorf("left in %s: %s", dir, name)
		}
	}
}

// TestCorruptSessionFile: a session file that is not a session is a usage
// error (exit 2, was 1) naming the file and the field, and sessions list
// shows it as unreadable (it used to hide it).
func TestCorruptSessionFile(t *testing.T) {
	w := newWorld(t, nil)
	w.srv.Script(done("Done."))
	w.run("-p", "work", "--no-audit").expect(t, 0)
	s := w.onlySession()
	path := filepath.Join(w.home, "sessions", s.ID+".json")
	data, _ := os.ReadFile(path)
	broken := strings.Replace(string(data), `"status":"complete"`, `"status":42`, 1)
	if broken == string(data) {
		t.Fatalf("no status in %s", data)
	}
	if err := os.WriteFile(path, []byte(broken), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"--resume", "-p", "go on"}, {"sessions", "show", s.ID}} {
		r := w.run(args...)
		r.expect(t, 2)
		if !strings.Contains(r.stderr, "session file "+path+" is corrupt: field status:") {
			t.Errorf("dev %q: stderr does not name the file and the field:\n%s", args, r.stderr)
		}
	}
	rows := w.list()
	if len(rows) != 1 || rows[0].ID != s.ID || rows[0].Status != "unreadable" || !strings.Contains(rows[0].Error, "field status") {
		t.Errorf("sessions list --json: %+v, want the session as unreadable", rows)
	}
	r := w.run("sessions", "list")
	if !strings.Contains(r.stdout, s.ID) || !strings.Contains(r.stdout, "unreadable") {
		t.Errorf("sessions list:\n%s", r.stdout)
	}
}
