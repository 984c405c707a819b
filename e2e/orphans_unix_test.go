//go:build unix

package e2e

import (
	"bufio"
	"context"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"github.com/devagent/dev/bgproc/bgproctest"
	"github.com/devagent/dev/llm/llmtest"
)

// lingerCommand is a command that ends at once but leaves processes
// behind, each writing its pid to a file of the project: one in a subshell
// holding the command's output open, one under nohup and, on Linux, one in
// a session of its own. lingerPIDs reads them.
func lingerCommand() string {
	c := "(sleep 300 & echo $! > linger1)\nnohup sleep 301 > /dev/null 2>&1 & echo $! > linger2\n"
	if runtime.GOOS == "linux" {
		c += "setsid sleep 302 > /dev/null 2>&1 & echo $! > linger3\n"
	}
	return "```sh\n" + c + "echo started\n```"
}

func (w *world) lingerPIDs() []int {
	w.t.Helper()
	var pids []int
	for _, name := range []string{"linger1", "linger2", "linger3"} {
		if name == "linger3" && runtime.GOOS != "linux" {
			continue
		}
		pid := bgproctest.PID(w.t, filepath.Join(w.dir, name))
		pids = append(pids, pid)
		w.t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })
	}
	return pids
}

func running(pids []int) []int {
	var out []int
	for _, pid := range pids {
		if !bgproctest.Gone(pid) {
			out = append(out, pid)
		}
	}
	return out
}

// TestNoProcessOutlivesDev: whichever way dev ends, the processes its
// commands left behind are stopped before it exits. They all survived
// before (the issue: DONE, Ctrl+C and SIGTERM).
func TestNoProcessOutlivesDev(t *testing.T) {
	t.Parallel()
	unauthorized := llmtest.Response{Status: 401, Body: `{"error":{"message":"bad key","type":"invalid_request_error"}}`}
	for _, tc := range []struct {
		name string
		code int
		end  func(w *world) int // runs dev to its end, returns its exit code
	}{
		{"DONE", 0, func(w *world) int {
			w.srv.Script(reply("Start.", "COMMAND", lingerCommand()), done("Started."))
			return w.run("-p", "start things", "--no-audit").code
		}},
		{"error", 1, func(w *world) int {
			w.srv.Script(reply("Start.", "COMMAND", lingerCommand()), unauthorized)
			return w.run("-p", "start things", "--no-audit").code
		}},
		{"Ctrl+C", 130, func(w *world) int { return w.signalled(syscall.SIGINT) }},
		{"SIGTERM", 130, func(w *world) int { return w.signalled(syscall.SIGTERM) }},
		{"SIGHUP", 130, func(w *world) int { return w.signalled(syscall.SIGHUP) }}, // a closed terminal, a dropped ssh
		{"closed stdout", 130, func(w *world) int { return w.stdoutClosed() }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t, nil)
			if code := tc.end(w); code != tc.code {
				t.Errorf("exit code %d, want %d", code, tc.code)
			}
			pids := w.lingerPIDs()
			if left := running(pids); len(left) > 0 {
				t.Errorf("%d of %d processes the command left outlive dev: %v", len(left), len(pids), left)
			}
			if want := map[int]string{0: "complete", 1: "failed", 130: "interrupted"}[tc.code]; string(w.onlySession().Status) != want {
				t.Errorf("session status %q, want %q", w.onlySession().Status, want)
			}
		})
	}
}

// signalled runs the lingering command, then sends sig to dev while its
// next request hangs.
func (w *world) signalled(sig syscall.Signal) int {
	w.srv.Script(reply("Start.", "COMMAND", lingerCommand()), llmtest.Response{Content: "x", Hang: true})
	cmd, _, _ := w.startUntilHanging("-p", "start things", "--no-audit")
	if err := cmd.Process.Signal(sig); err != nil {
		w.t.Fatal(err)
	}
	return exitCode(w.t, cmd)
}

// stdoutClosed runs dev with --json into a pipe that the test closes when
// the second request comes; the reply to it runs a long command, which dev,
// failing to write its events, must stop.
func (w *world) stdoutClosed() int {
	cmd, _, stderr := w.command(w.t.Context(), "-p", "start things", "--no-audit", "--json")
	cmd.Stdout = nil
	out, err := cmd.StdoutPipe()
	if err != nil {
		w.t.Fatal(err)
	}
	w.srv.Script(reply("Start.", "COMMAND", lingerCommand()), llmtest.Response{Respond: func(ctx context.Context, req llmtest.Request) llmtest.Response {
		out.Close() // like `dev … | head -1` once head has its line
		return reply("Wait.", "COMMAND", "sleep 303")
	}})
	if err := cmd.Start(); err != nil {
		w.t.Fatal(err)
	}
	go func() { // read, as a pipeline does, until the pipe is closed
		sc := bufio.NewScanner(out)
		for sc.Scan() {
		}
	}()
	code := exitCode(w.t, cmd)
	if !strings.Contains(stderr.String(), "interrupted") {
		w.t.Errorf("stderr does not say the run was interrupted:\n%s", stderr)
	}
	return code
}

// TestKilledDevLeftoversStoppedOnResume: after SIGKILL, which no process
// can handle, what dev's commands left runs on; the next dev that opens
// the session stops it. It used to survive for good (the issue: 467
// processes left by 230 crashed runs).
func TestKilledDevLeftoversStoppedOnResume(t *testing.T) {
	w := newWorld(t, nil)
	w.srv.Script(reply("Start.", "COMMAND", lingerCommand()), llmtest.Response{Content: "x", Hang: true})
	cmd, _, _ := w.startUntilHanging("-p", "start things", "--no-audit")
	cmd.Process.Kill()
	cmd.Wait()
	pids := w.lingerPIDs()
	if left := running(pids); len(left) != len(pids) {
		t.Fatalf("the leftovers should outlive a SIGKILLed dev; running: %v of %v", left, pids)
	}
	w.srv.Script(done("Resumed."))
	r := w.run("--resume", "-p", "go on", "--no-audit")
	r.expect(t, 0)
	// The setsid one too: it carries the dead run's id.
	if left := running(pids); len(left) > 0 {
		t.Errorf("still running after the resume: %v", left)
	}
	// The group, and on Linux the setsid one, found by the run id.
	want := "dev: stopped 1 process groups or processes an earlier run"
	if runtime.GOOS == "linux" {
		want = "dev: stopped 2 process groups or processes an earlier run"
	}
	if !strings.Contains(r.stderr, want) {
		t.Errorf("stderr does not say what was stopped:\n%s", r.stderr)
	}
}

func killPID(pid int) { syscall.Kill(pid, syscall.SIGKILL) }

// TestKilledDevTakesItsCommandAlong (Linux): the command dev runs dies with
// dev, even by SIGKILL, without waiting for a later dev (PR_SET_PDEATHSIG).
func TestKilledDevTakesItsCommandAlong(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("only Linux kills a process with its parent")
	}
	w := newWorld(t, nil)
	w.srv.Script(reply("Wait.", "COMMAND", "echo $$ > pid.txt; exec sleep 300"), done("never"))
	cmd, _, _ := w.command(t.Context(), "-p", "wait", "--no-audit")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := bgproctest.PID(t, filepath.Join(w.dir, "pid.txt"))
	t.Cleanup(func() { killPID(pid) })
	cmd.Process.Kill()
	cmd.Wait()
	bgproctest.WaitFor(t, "the command to die with dev", func() bool { return bgproctest.Gone(pid) })
}
