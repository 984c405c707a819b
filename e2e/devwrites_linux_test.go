package e2e

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Issue 30, break 1: a sandboxed command planted a link in the session's
// output directory, command-0000.log → a file outside the sandbox, with an
// old modification time, and put the session's saved output past its cap
// (a sparse file of 300 MB: cheap). dev, unsandboxed, then emptied "the
// oldest saved output" through the link: the file outside became dev's
// note. dev now skips what is not a regular file it made; the file
// outside stays as it was, byte for byte.
func TestSandboxPlantedLinkInSavedOutputReachesNothing(t *testing.T) {
	const id = "0c9e7a52-3f1d-4b8e-a6c4-5d2e8f1b7a93"
	victim := filepath.Join(t.TempDir(), "victim")
	content := bytes.Repeat([]byte("precious\n"), 455) // 4 KB
	if err := os.WriteFile(victim, content, 0o644); err != nil {
		t.Fatal(err)
	}
	// Not touched for a while: on its own mtime, it is the oldest.
	old := time.Now().Add(-24 * time.Hour)
	if err := os.Chtimes(victim, old, old); err != nil {
		t.Fatal(err)
	}
	w := newWorld(t, map[string]any{"sandbox": "workspace"})
	out := filepath.Join(w.home, "sessions", id, "output")
	w.extra = append(sandboxEnv(t, t.TempDir()), "VICTIM="+victim, "SAVED="+out)
	w.srv.Script(
		reply("Plant.", "COMMAND", `echo overwritten 2>/dev/null > "$VICTIM" || echo "direct write refused"
ln -s "$VICTIM" "$SAVED/command-0000.log" && touch -h -d 2000-01-01 "$SAVED/command-0000.log" && echo planted
truncate -s 300M "$SAVED/command-zzzz.log" && echo "past the cap"
seq 1 5000`),
		done("Done."),
	)
	w.run("--no-audit", "--session", id, "-p", "plant a link").expect(t, 0)
	told := lastUser(w.srv.Requests()[1])
	for _, want := range []string{"direct write refused", "planted", "past the cap", "full output saved in"} {
		if !strings.Contains(told, want) {
			t.Errorf("the command's result lacks %q:\n%s", want, told)
		}
	}
	got, err := os.ReadFile(victim)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, content) {
		t.Errorf("the file outside the sandbox changed through the planted link: %d bytes now, %q…", len(got), got[:min(len(got), 80)])
	}
	if target, err := os.Readlink(filepath.Join(out, "command-0000.log")); err != nil || target != victim {
		t.Errorf("the planted link: %q, %v; want it left as it is", target, err)
	}
	// The cap still holds: the sparse file, a regular file in the output
	// directory, was emptied.
	if info, err := os.Stat(filepath.Join(out, "command-zzzz.log")); err != nil {
		t.Error(err)
	} else if info.Size() > 4096 {
		t.Errorf("the file past the cap was not emptied: %d bytes", info.Size())
	}
}
