package tools

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"go.uber.org/goleak"

	"github.com/devagent/dev/sandbox"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata/")

func TestMain(m *testing.M) {
	// The test binary is the sandbox helper of the sandboxed tests, as dev is.
	if sandbox.IsHelper(os.Args) {
		err := sandbox.Exec(os.Args[2:])
		fmt.Fprintln(os.Stderr, "sandbox helper:", err)
		os.Exit(126)
	}
	goleak.VerifyTestMain(m)
}

// newEnv is an Env over a fresh directory holding files (path → content).
func newEnv(t *testing.T, files map[string]string) *Env {
	t.Helper()
	dir := t.TempDir()
	writeTree(t, dir, files)
	return &Env{Dir: dir, OutputDir: filepath.Join(t.TempDir(), "out")}
}

func writeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// runTool runs tool after checking that its input passes Check.
func runTool(t *testing.T, tool Tool, env *Env, input string) Result {
	t.Helper()
	return runToolCtx(t, context.Background(), tool, env, input)
}

// runToolCtx is runTool under ctx.
func runToolCtx(t *testing.T, ctx context.Context, tool Tool, env *Env, input string) Result {
	t.Helper()
	call, err := tool.Check(input)
	if err != nil {
		t.Fatalf("Check(%q) = %v", input, err)
	}
	r := call.Run(ctx, env)
	if r.Tool != tool.Name() {
		t.Errorf("Result.Tool = %q, want %q", r.Tool, tool.Name())
	}
	return r
}

// golden compares got with testdata/<name>.golden, rewriting it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	p := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(p, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("output differs from %s:\n--- got\n%s\n--- want\n%s", p, got, want)
	}
}
