package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// With sandbox workspace, a COMMAND may write in the working directory and
// not outside it, and so may the processes it leaves in the background.
func TestSandboxWorkspaceConfinesCommandsAndTheirChildren(t *testing.T) {
	outside := t.TempDir()
	w := newWorld(t, map[string]any{"sandbox": "workspace", "commandTimeout": 1})
	w.extra = sandboxEnv(t, outside)
	w.srv.Script(
		reply("Write.", "COMMAND", `echo in > inside.txt; echo out > "$OUT/outside.txt" || echo "refused outside"`),
		// A child that goes on after its command ended, and a command handed
		// to the background after the timeout.
		reply("Background.", "COMMAND", `(sleep 0.2; echo late > late-inside.txt; echo late > "$OUT/late-outside.txt") & echo started`),
		reply("Wait.", "COMMAND", `while [ ! -e late-inside.txt ]; do sleep 0.05; done; echo bg > bg-inside.txt; echo bg > "$OUT/bg.txt" 2>/dev/null || echo "bg refused"; exec sleep 5`),
		done("Done."),
	)
	r := w.run("--no-audit", "-p", "try to write")
	r.expect(t, 0)
	for _, f := range []string{"inside.txt", "late-inside.txt", "bg-inside.txt"} {
		if _, err := os.Stat(filepath.Join(w.dir, f)); err != nil {
			t.Errorf("%s was not written inside the workspace: %v", f, err)
		}
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Errorf("written outside the workspace: %v", entries)
	}
	if told := lastUser(w.srv.Requests()[1]); !strings.Contains(told, "refused outside") {
		t.Errorf("the command's refusal is not in its output: %q", told)
	}
}

// --sandbox workspace on the command line wins over the file's off.
func TestSandboxFlag(t *testing.T) {
	outside := t.TempDir()
	w := newWorld(t, map[string]any{"sandbox": "off"})
	w.extra = sandboxEnv(t, outside)
	w.srv.Script(reply("Write.", "COMMAND", `echo out > "$OUT/x.txt"`), done("Done."))
	w.run("--no-audit", "--sandbox", "workspace", "-p", "write").expect(t, 0)
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Errorf("written outside with --sandbox workspace: %v", entries)
	}
}

// sandboxEnv points dev's temporary directory, which the sandbox lets
// commands write, away from the system's (where every test directory is),
// and names the directory outside the workspace as $OUT.
func sandboxEnv(t *testing.T, outside string) []string {
	tmp := filepath.Join(t.TempDir(), "tmp")
	if err := os.Mkdir(tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	return []string{"TMPDIR=" + tmp, "OUT=" + outside}
}
