package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The dev binary is its own sandbox helper: `dev __sandbox-exec POLICY PATH
// -- ARGV…` confines itself with Landlock and becomes the command.
func TestSandboxHelperConfinesTheCommand(t *testing.T) {
	t.Parallel()
	in, out := t.TempDir(), t.TempDir()
	policy, err := json.Marshal(map[string][]string{"dirs": {in}, "files": {"/dev/null"}})
	if err != nil {
		t.Fatal(err)
	}
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(binary(t), "__sandbox-exec", string(policy), sh, "--", "sh", "-c",
		`echo in > in.txt && echo inside-ok; echo x > /dev/null && echo null-ok; echo out > "$OUT/out.txt" || echo outside-refused; exit 5`)
	cmd.Dir = in
	cmd.Env = append(os.Environ(), "OUT="+out)
	got, err := cmd.CombinedOutput()
	if exit, ok := err.(*exec.ExitError); !ok || exit.ExitCode() != 5 {
		t.Fatalf("err %v (want the command's exit code 5); output:\n%s", err, got)
	}
	for _, want := range []string{"inside-ok", "null-ok", "outside-refused"} {
		if !strings.Contains(string(got), want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "out.txt")); err == nil {
		t.Error("the confined command wrote outside")
	}
	if _, err := os.Stat(filepath.Join(in, "in.txt")); err != nil {
		t.Error("the confined command could not write inside")
	}
}

func TestSandboxHelperFailsClosed(t *testing.T) {
	t.Parallel()
	marker := filepath.Join(t.TempDir(), "ran")
	cmd := exec.Command(binary(t), "__sandbox-exec", "{not json", "/bin/sh", "--", "sh", "-c", "touch "+marker)
	got, err := cmd.CombinedOutput()
	if exit, ok := err.(*exec.ExitError); !ok || exit.ExitCode() != 126 || !strings.Contains(string(got), "dev: sandbox:") {
		t.Errorf("err %v output %s", err, got)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the command ran without its sandbox")
	}
}
