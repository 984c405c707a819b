//go:build unix

package tools

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/devagent/dev/bgproc/bgproctest"
	"github.com/devagent/dev/capture"
)

func TestCommandResults(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, input string
		ok          bool
		code        int
		want        string
	}{
		{"success without output", "true", true, 0, "Command succeeded (exit code 0).\n(no output)"},
		{"failure", "echo oops; exit 3", false, 3, "Command failed (exit code 3).\noops"},
		{"interleaved stdout and stderr", "echo a; echo b >&2; echo c", true, 0, "Command succeeded (exit code 0).\na\nb\nc"},
		{"fenced block", "```bash\necho one\necho two\n```", true, 0, "Command succeeded (exit code 0).\none\ntwo"},
		{"non-interactive environment", `echo "$CI $PAGER $GIT_PAGER $GIT_EDITOR $GIT_TERMINAL_PROMPT $DEBIAN_FRONTEND $npm_config_yes"`,
			true, 0, "Command succeeded (exit code 0).\n1 cat cat true 0 noninteractive true"},
		{"stdin is empty", "cat; wc -c | tr -d ' '", true, 0, "Command succeeded (exit code 0).\n0"},
		{"no terminal", "test -t 0 || echo no-tty; (exec 3</dev/tty) 2>/dev/null || echo no-controlling-tty", true, 0,
			"Command succeeded (exit code 0).\nno-tty\nno-controlling-tty"},
		{"killed by a signal", "kill -9 $$", false, -1, "Command ended without an exit code (signal: killed).\n(no output)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			env := newEnv(t, nil)
			r := runTool(t, CommandTool{}, env, tt.input)
			if r.OK != tt.ok || r.ExitCode != tt.code || r.Output != tt.want {
				t.Errorf("OK=%v ExitCode=%d Output=%q, want %v %d %q", r.OK, r.ExitCode, r.Output, tt.ok, tt.code, tt.want)
			}
			if r.Command != commandArg(tt.input) {
				t.Errorf("Command = %q", r.Command)
			}
		})
	}
}

func TestCommandWorkingDirectory(t *testing.T) {
	t.Parallel()
	env := newEnv(t, map[string]string{"here.txt": ""})
	r := runTool(t, CommandTool{}, env, "pwd; ls")
	dir, _ := filepath.EvalSymlinks(env.Dir)
	if want := "Command succeeded (exit code 0).\n" + dir + "\nhere.txt"; r.Output != want {
		t.Errorf("%q, want %q", r.Output, want)
	}
	env.Dir = filepath.Join(env.Dir, "missing")
	r = runTool(t, CommandTool{}, env, "true")
	if r.OK || r.Output != "Error: cannot run the command: the working directory "+env.Dir+" is missing or not a directory." {
		t.Errorf("%q", r.Output)
	}
}

func TestCommandTimeoutKillsTheGroup(t *testing.T) {
	t.Parallel()
	env := newEnv(t, nil)
	env.CommandTimeout = time.Second
	// A grandchild writes its pid then waits; the shell waits for it.
	input := "echo started; sh -c 'echo $$ > grandchild.pid; exec sleep 30' & wait"
	start := time.Now()
	r := runTool(t, CommandTool{}, env, input)
	if elapsed := time.Since(start); elapsed > 5*time.Second {
		t.Errorf("took %v", elapsed)
	}
	want := "Error: Command timed out after 1 s; it was stopped (its whole process group). Output so far:\nstarted\nRun long-lived processes"
	if r.OK || r.ExitCode != -1 || !strings.HasPrefix(r.Output, want) {
		t.Errorf("OK=%v ExitCode=%d Output=%q", r.OK, r.ExitCode, r.Output)
	}
	pid := bgproctest.PID(t, filepath.Join(env.Dir, "grandchild.pid"))
	bgproctest.WaitFor(t, "the grandchild is gone", func() bool { return bgproctest.Gone(pid) })
}

func TestCommandBackgroundChildDoesNotBlock(t *testing.T) {
	t.Parallel()
	env := newEnv(t, nil)
	start := time.Now()
	r := runTool(t, CommandTool{}, env, "sleep 30 & echo $! > bg.pid; echo done")
	pid := bgproctest.PID(t, filepath.Join(env.Dir, "bg.pid"))
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
	if elapsed := time.Since(start); elapsed > 5*time.Second {
		t.Errorf("took %v: the left-behind child blocked the command", elapsed)
	}
	want := "Command succeeded (exit code 0).\ndone\nNote: a process the command started in the background still holds its output open; what it prints from now on is not captured."
	if !r.OK || r.Output != want {
		t.Errorf("%q", r.Output)
	}
}

func TestCommandInterrupted(t *testing.T) {
	t.Parallel()
	env := newEnv(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	marker := filepath.Join(env.Dir, "started")
	go func() {
		deadline := time.Now().Add(5 * time.Second)
		for time.Now().Before(deadline) {
			if _, err := os.Stat(marker); err == nil {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		cancel()
	}()
	start := time.Now()
	r := runToolCtx(t, ctx, CommandTool{}, env, "echo before; touch started; sleep 30")
	if elapsed := time.Since(start); elapsed > 5*time.Second {
		t.Errorf("took %v", elapsed)
	}
	want := "Error: Command interrupted by the user; it was stopped (its whole process group). Output so far:\nbefore"
	if r.OK || r.ExitCode != -1 || r.Output != want {
		t.Errorf("OK=%v ExitCode=%d Output=%q", r.OK, r.ExitCode, r.Output)
	}
}

// Not parallel: it measures the allocations of the whole process.
func TestCommandHugeOutputBoundedMemory(t *testing.T) {
	env := newEnv(t, nil)
	const size = 50 << 20
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	r := runTool(t, CommandTool{}, env, "yes 0123456789abcdef | head -c "+strconv.Itoa(size))
	runtime.ReadMemStats(&after)
	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("allocated %d KB", alloc>>10)
	if alloc > 8<<20 {
		t.Errorf("allocated %d MB for %d MB of output", alloc>>20, size>>20)
	}
	if !r.OK || len(r.Output) > capture.OutputHead+capture.OutputTail+400 {
		t.Fatalf("OK=%v, %d bytes of output", r.OK, len(r.Output))
	}
	i := strings.Index(r.Output, "full output saved in ")
	if i < 0 {
		t.Fatalf("no saved path in %q", r.Output[:capture.OutputHead+300])
	}
	saved, _, _ := strings.Cut(r.Output[i+len("full output saved in "):], "]")
	if filepath.Dir(saved) != env.OutputDir {
		t.Errorf("saved in %s, want under %s", saved, env.OutputDir)
	}
	info, err := os.Stat(saved)
	if err != nil || info.Size() != size {
		t.Fatalf("saved file: %v, %v", info, err)
	}
	if !strings.Contains(r.Output, "[… 50.0 MB cut (3083326 lines of 50.0 MB in all, 3084047 lines) …") {
		t.Errorf("marker: %q", r.Output[capture.OutputHead-100:capture.OutputHead+300])
	}
}

// recorded is a Groups that keeps the pids it is given.
type recorded struct{ pids []int }

func (r *recorded) Env() []string { return []string{"DEV_TEST_MARK=42"} }

func (r *recorded) Record(pid int) error {
	r.pids = append(r.pids, pid)
	return nil
}

// TestCommandRecordsItsGroup: the shell that leads a command's group is
// recorded as it starts, so that dev can stop the group when it ends, and
// the command's environment holds the mark.
func TestCommandRecordsItsGroup(t *testing.T) {
	t.Parallel()
	groups := &recorded{}
	env := &Env{Dir: t.TempDir(), CommandTimeout: time.Minute, Groups: groups}
	r := runTool(t, CommandTool{}, env, `echo "$$ $DEV_TEST_MARK"`)
	out, ok := strings.CutSuffix(strings.TrimPrefix(r.Output, "Command succeeded (exit code 0).\n"), " 42")
	if !ok {
		t.Errorf("the command's environment lacks the mark: %s", r.Output)
	}
	shell, err := strconv.Atoi(out)
	if err != nil {
		t.Fatalf("%v: %s", err, r.Output)
	}
	if len(groups.pids) != 1 || groups.pids[0] != shell {
		t.Errorf("recorded %v, want the shell %d", groups.pids, shell)
	}
}
