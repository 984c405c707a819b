package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A corrupt directory-map.json heals: it is set aside and rebuilt from the
// session files, with a warning naming it. Before, --resume, checkpoints,
// diff and rewind failed everywhere (exit 1), and the next dev -p replaced
// the map with its one entry, so every other directory lost --resume.
func TestCorruptDirectoryMapHeals(t *testing.T) {
	w := newWorld(t, nil)
	a, b, c := w.dir, t.TempDir(), t.TempDir()
	w.srv.Script(done("A."), done("B."))
	w.run("--no-audit", "-p", "in a").expect(t, 0)
	w.run("--no-audit", "-C", b, "-p", "in b").expect(t, 0)
	mapPath := filepath.Join(w.home, "sessions", "directory-map.json")
	if err := os.WriteFile(mapPath, []byte(`{"`+a+`": "trunc`), 0o600); err != nil {
		t.Fatal(err)
	}

	cmd, _, stderr := w.command(t.Context(), "checkpoints") // the first to read the map
	cmd.Dir = b
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if code := exitCode(t, cmd); code != 0 || !strings.Contains(stderr.String(), "directory-map.json") || !strings.Contains(stderr.String(), "rebuilt from the session files") {
		t.Errorf("dev checkpoints with a corrupt map: exit %d, stderr:\n%s", code, stderr)
	}
	w.srv.Script(done("C."), done("A again."), done("B again."))
	w.run("--no-audit", "-C", c, "-p", "in c").expect(t, 0)
	for dir, prompt := range map[string]string{a: "in a", b: "in b"} {
		r := w.run("--no-audit", "-C", dir, "--resume", "-p", "again")
		r.expect(t, 0)
		if !strings.Contains(r.stderr, prompt) && !strings.Contains(r.stderr, "resum") {
			t.Errorf("--resume in %s: stderr:\n%s", dir, r.stderr)
		}
	}
	if n := len(w.sessions()); n != 3 {
		t.Errorf("%d sessions, want 3 (each --resume continued its directory's)", n)
	}
	aside, _ := filepath.Glob(filepath.Join(w.home, "sessions", "directory-map.json.corrupt-*"))
	if len(aside) != 1 {
		t.Errorf("the corrupt map set aside: %v", aside)
	}
}
