//go:build linux || darwin

package reaper

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/devagent/dev/bgproc/bgproctest"
	"github.com/devagent/dev/procgroup"
)

const grace = 300 * time.Millisecond

// leave starts, in its own session as dev runs commands, a shell that
// leaves processes behind and exits: a child in its group that ignores
// TERM, a nohup'd one, and (Linux) one in a session of its own. It returns
// the shell's pid, once it has exited, and the pids it left.
func leave(t *testing.T, dir string) (shell int, left []int) {
	t.Helper()
	script := `(trap '' TERM; exec sleep 301) & echo $! > a
nohup sleep 302 > /dev/null 2>&1 & echo $! > b
`
	files := []string{"a", "b"}
	if runtime.GOOS == "linux" {
		script += "setsid sleep 303 & echo $! > c\n"
		files = append(files, "c")
	}
	cmd := exec.Command("sh", "-c", script)
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	shell = cmd.Process.Pid
	for _, f := range files {
		left = append(left, bgproctest.PID(t, filepath.Join(dir, f)))
	}
	if len(left) == 3 {
		leftGroup(t, left[2])
	}
	t.Cleanup(func() {
		for _, pid := range left {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	return shell, left
}

// leftGroup waits until pid, started by `setsid sleep &`, leads a group of
// its own: the shell writes $! right after the fork, before the child has
// called setsid, and a group stopped in between took the child with it (on
// a loaded machine: "StopAll stopped a child that is not its run's").
func leftGroup(t *testing.T, pid int) {
	t.Helper()
	bgproctest.WaitFor(t, fmt.Sprintf("process %d to leave its group (setsid)", pid), func() bool {
		pgid, err := syscall.Getpgid(pid)
		return err == nil && pgid == pid
	})
}

func alive(pids []int) []int {
	var out []int
	for _, pid := range pids {
		if !bgproctest.Gone(pid) {
			out = append(out, pid)
		}
	}
	return out
}

// TestStopAllStopsWhatCommandsLeft: the processes a finished command left
// behind are stopped, KILL for one that ignores TERM; on Linux, as a
// subreaper, StopOrphans then stops one that left the group with setsid
// (and, here, has no run id).
func TestStopAllStopsWhatCommandsLeft(t *testing.T) {
	if runtime.GOOS == "linux" {
		if err := AdoptOrphans(); err != nil {
			t.Fatal(err)
		}
	}
	dir := t.TempDir()
	r, left, err := Open(dir, grace)
	if err != nil || left != 0 {
		t.Fatal(left, err)
	}
	// Recorded before the shell exits, as dev records a command when it
	// starts: the shell is started first, recorded, then awaited.
	cmd := exec.Command("sh", "-c", `(trap '' TERM; exec sleep 301) & echo $! > a
nohup sleep 302 > /dev/null 2>&1 & echo $! > b
read x < gate`)
	if runtime.GOOS == "linux" {
		cmd.Args[2] = "setsid sleep 303 & echo $! > c\n" + cmd.Args[2]
	}
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := syscall.Mkfifo(filepath.Join(dir, "gate"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if err := r.Record(cmd.Process.Pid); err != nil {
		t.Fatal(err)
	}
	var pids []int
	for _, f := range []string{"a", "b", "c"} {
		if f == "c" && runtime.GOOS != "linux" {
			continue
		}
		pids = append(pids, bgproctest.PID(t, filepath.Join(dir, f)))
	}
	if len(pids) == 3 {
		leftGroup(t, pids[2])
	}
	t.Cleanup(func() {
		for _, pid := range pids {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	os.WriteFile(filepath.Join(dir, "gate"), []byte("go\n"), 0o600)
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, FileName)); err != nil {
		t.Fatalf("the group was not recorded: %v", err)
	}
	if n := r.StopAll(grace); n == 0 {
		t.Error("StopAll signalled nothing")
	}
	if left := alive(pids[:2]); len(left) > 0 {
		t.Errorf("still running after StopAll: %v", left)
	}
	if runtime.GOOS == "linux" {
		if left := alive(pids[2:]); len(left) != 1 {
			t.Errorf("StopAll stopped a child that is not its run's: %v left of %v", left, pids[2:])
		}
		if n := StopOrphans(grace); n == 0 {
			t.Error("StopOrphans signalled nothing")
		}
		if left := alive(pids); len(left) > 0 {
			t.Errorf("still running after StopOrphans: %v", left)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, FileName)); !os.IsNotExist(err) {
		t.Errorf("the record is left: %v", err)
	}
}

// TestOpenReapsADeadRun: a run that never called StopAll (killed) leaves
// its record; the next Open stops the groups that are still its own, and
// leaves alone a group whose leader is another process now.
func TestOpenReapsADeadRun(t *testing.T) {
	dir := t.TempDir()
	dead, _, err := Open(dir, grace)
	if err != nil {
		t.Fatal(err)
	}
	shell, left := leave(t, t.TempDir())
	if err := dead.Record(shell); err != nil {
		t.Fatal(err)
	}
	// A group that is not the one recorded: same id, another start time.
	other := exec.Command("sleep", "300")
	other.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := other.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { other.Process.Kill(); other.Wait() })
	leader, err := procgroup.Find(other.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	start := leader.Start
	boot, _ := bootID()
	f, err := os.OpenFile(filepath.Join(dir, FileName), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(f, "%s %d %d\n%s %d", boot, other.Process.Pid, start+1, boot, other.Process.Pid) // and a line cut short
	f.Close()

	next, n, err := Open(dir, grace)
	if err != nil {
		t.Fatal(err)
	}
	inGroup := left[:2] // the setsid one left the group: only a live dev adopts it
	if still := alive(inGroup); len(still) > 0 || n != 1 {
		t.Errorf("reaped %d groups; still running: %v", n, still)
	}
	if bgproctest.Gone(other.Process.Pid) {
		t.Error("a process that only shares the recorded group id was stopped")
	}
	// The record is the new run's now.
	if data, err := os.ReadFile(filepath.Join(dir, FileName)); err != nil || string(data) != "run "+next.run+"\n" {
		t.Errorf("the record holds %q (%v), want the new run's id only", data, err)
	}
}

// TestOpenReapsByRunID: a process a dead run started but had not recorded
// yet (it was killed in between), or one that left its group, is found by
// the run id in its environment; a process of another run is not.
func TestOpenReapsByRunID(t *testing.T) {
	dir := t.TempDir()
	dead, _, err := Open(dir, grace)
	if err != nil {
		t.Fatal(err)
	}
	start := func(env []string) *exec.Cmd {
		cmd := exec.Command("sleep", "300")
		cmd.Env = append(os.Environ(), env...)
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
		return cmd
	}
	unrecorded := start(dead.Env())
	other := start([]string{EnvVar + "=ffffffffffffffffffffffffffffffff"})
	// Start returns once the exec began, and the kernel sets up the new
	// environment a moment later; read before, /proc/PID/environ is empty
	// (on a loaded machine, Open found nothing to stop).
	for _, cmd := range []*exec.Cmd{unrecorded, other} {
		bgproctest.WaitFor(t, fmt.Sprintf("process %d's environment", cmd.Process.Pid), func() bool {
			env, err := environ(cmd.Process.Pid)
			return err == nil && len(env) > 0
		})
	}
	exited := make(chan struct{})
	go func() { unrecorded.Wait(); close(exited) }()
	if _, n, err := Open(dir, grace); err != nil || n != 1 {
		t.Errorf("Open stopped %d, %v; want the one process", n, err)
	}
	<-exited // Open returns once it is gone; a hang here is the failure
	if bgproctest.Gone(other.Process.Pid) {
		t.Error("a process of another run was stopped")
	}
}
