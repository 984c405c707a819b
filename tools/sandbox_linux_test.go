package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/devagent/dev/sandbox"
)

// sandboxed gives env a Landlock sandbox over its directory and a private
// temporary directory; outside is a directory it may not write.
func sandboxed(t *testing.T, env *Env) (outside string) {
	t.Helper()
	sb, err := sandbox.New(sandbox.Layout{Dir: env.Dir, SessionOutput: env.OutputDir, TempDir: t.TempDir()}, sandbox.Network{})
	if err != nil {
		t.Fatalf("Landlock is expected on this machine: %v", err)
	}
	env.Sandbox = sb
	return t.TempDir()
}

func TestCommandUnderSandbox(t *testing.T) {
	t.Parallel()
	env := newEnv(t, nil)
	outside := sandboxed(t, env)
	r := runTool(t, CommandTool{}, env, "echo out; echo err >&2; echo dev-stderr > /dev/stderr; echo in > in.txt && echo wrote-inside; "+
		"echo x > "+filepath.Join(outside, "x.txt")+" || echo refused-outside; exit 3")
	for _, want := range []string{"out\n", "err\n", "dev-stderr\n", "wrote-inside\n", "refused-outside"} {
		if !strings.Contains(r.Output, want) {
			t.Errorf("output lacks %q:\n%s", want, r.Output)
		}
	}
	if r.ExitCode != 3 {
		t.Errorf("exit code %d", r.ExitCode)
	}
	if _, err := os.Stat(filepath.Join(outside, "x.txt")); err == nil {
		t.Error("the command wrote outside")
	}
	if got := readFile(t, filepath.Join(env.Dir, "in.txt")); got != "in\n" {
		t.Errorf("in.txt = %q", got)
	}
	// Argument vectors (the audit's) go through the sandbox too.
	r = RunArgs(t.Context(), env, "touch", []string{"touch", filepath.Join(outside, "argv.txt")}, nil)
	if r.OK || !strings.Contains(r.Output, "ermission denied") {
		t.Errorf("touch outside: %+v", r)
	}
}

// A command that outlives the timeout goes on in the background, still
// confined, as does every child it starts.
func TestBackgroundProcessUnderSandbox(t *testing.T) {
	t.Parallel()
	env, _, exits := bgEnv(t, 300*time.Millisecond, time.Second)
	outside := sandboxed(t, env)
	release := mkfifo(t, env.Dir, "release")
	result := mkfifo(t, env.Dir, "result")
	cmd := "echo started; read x < release; " +
		"(echo late > " + filepath.Join(outside, "late.txt") + ") 2>/dev/null; a=$?; " +
		"sh -c 'echo child > child.txt'; echo \"$a $?\" > result"
	r := runTool(t, CommandTool{}, env, cmd)
	id := backgrounded(t, r)
	open(t, release)
	got, err := os.ReadFile(result) // blocks until the background process reports
	if err != nil {
		t.Fatal(err)
	}
	if f := strings.Fields(string(got)); len(f) != 2 || f[0] == "0" || f[1] != "0" {
		t.Errorf("outside/inside exit codes %q, want non-zero then 0", got)
	}
	if info := awaitExit(t, exits); info.ID != id {
		t.Errorf("exit of %s, want %s", info.ID, id)
	}
	if _, err := os.Stat(filepath.Join(outside, "late.txt")); err == nil {
		t.Error("the background process wrote outside")
	}
	if got := readFile(t, filepath.Join(env.Dir, "child.txt")); got != "child\n" {
		t.Errorf("child.txt = %q", got)
	}
}
