//go:build unix

package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The editor is a shell script, hence unix only.
func TestConfigOpensTheEditor(t *testing.T) {
	w := newWorld(t, nil)
	os.Remove(filepath.Join(w.home, "config.json"))
	// The "editor" records the file it was given and what it held.
	editor := filepath.Join(w.dir, "editor.sh")
	w.write("editor.sh", "#!/bin/sh\necho \"$1\" > \""+w.dir+"/opened\"\ncat \"$1\" > \""+w.dir+"/seen\"\n")
	if err := os.Chmod(editor, 0o755); err != nil {
		t.Fatal(err)
	}
	w.extra = []string{"EDITOR=" + editor}
	w.run("config").expect(t, 0)
	if got := strings.TrimSpace(w.read("opened")); got != filepath.Join(w.home, "config.json") {
		t.Errorf("the editor opened %q", got)
	}
	var cfg map[string]any
	if err := json.Unmarshal([]byte(w.read("seen")), &cfg); err != nil || cfg["model"] != "devstral-small-2507" || cfg["maxLoops"] != 1000.0 {
		t.Errorf("the file was not created with the defaults first: %v\n%s", err, w.read("seen"))
	}
	w.extra = []string{"VISUAL=" + editor, "EDITOR=false"}
	w.run("config").expect(t, 0) // VISUAL wins over EDITOR
	w.extra = []string{"EDITOR=false"}
	if r := w.run("config"); r.code != 1 || !strings.Contains(r.stderr, "config.json") {
		t.Errorf("a failing editor: exit %d, stderr:\n%s", r.code, r.stderr)
	}
}
