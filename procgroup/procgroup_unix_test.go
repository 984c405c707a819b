//go:build unix

package procgroup_test

import (
	"errors"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/devagent/dev/bgproc/bgproctest"
	"github.com/devagent/dev/procgroup"
)

// start runs script with sh in dir, in a group of its own.
func start(t *testing.T, dir, script string) *procgroup.Group {
	t.Helper()
	cmd := exec.Command("sh", "-c", script)
	cmd.Dir = dir
	g, err := procgroup.Start(cmd, procgroup.Options{DieWithParent: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Stop(0) })
	return g
}

func TestStopEndsTheWholeGroup(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	g := start(t, dir, "sleep 300 & echo $! > child.pid; wait")
	child := bgproctest.PID(t, filepath.Join(dir, "child.pid"))
	if g.Wait(10 * time.Millisecond) {
		t.Fatal("the leader exited by itself")
	}
	if forced := g.Stop(10 * time.Second); forced {
		t.Error("TERM was enough, yet Stop reports KILL")
	}
	if !bgproctest.Gone(child) {
		t.Error("Stop returned while the leader's child runs")
	}
	if !g.Stopped() || g.ExitCode() != -1 || g.State() != "signal: terminated" {
		t.Errorf("stopped %v, exit code %d, state %q", g.Stopped(), g.ExitCode(), g.State())
	}
}

func TestProcessTableShowsTheGroup(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	g := start(t, dir, "echo $$ > leader.pid; exec sleep 300")
	pid := bgproctest.PID(t, filepath.Join(dir, "leader.pid"))
	if pid != g.PID() {
		t.Fatalf("the shell is %d, the leader %d", pid, g.PID())
	}
	p, err := procgroup.Find(pid)
	if errors.Is(err, errors.ErrUnsupported) {
		t.Skip("no process table here")
	}
	if err != nil {
		t.Fatal(err)
	}
	if p.PID != pid || p.PGID != pid || p.SID != pid || p.Start == 0 || p.Zombie {
		t.Errorf("procgroup.Find(%d) = %+v, want the leader of its own group and session", pid, p)
	}
	procs, err := procgroup.Processes()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(procs, p) {
		t.Errorf("Processes lists no %+v", p)
	}
	if !procgroup.Alive(pid) {
		t.Error("a group whose leader runs is not alive")
	}
	g.Stop(10 * time.Second)
	if procgroup.Alive(pid) {
		t.Error("a stopped group is alive")
	}
	if _, err := procgroup.Find(pid); err == nil {
		t.Error("Find finds a process that was reaped")
	}
}
