package procgroup_test

import (
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/devagent/dev/bgproc/bgproctest"
	"github.com/devagent/dev/procgroup"
)

// TestStopCountsZombiesAsGone: dev is the subreaper of what its commands
// orphan and does not reap those orphans while it runs, so a finished
// command's group may hold only zombies. They run nothing: Stop needs no
// KILL and does not wait for them.
func TestStopCountsZombiesAsGone(t *testing.T) {
	// Process-wide and for good: this package's tests wait for their
	// children by pid, which orphans given to this process do not disturb.
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		t.Skip("cannot become a subreaper:", err)
	}
	t.Parallel()
	dir := t.TempDir()
	g := start(t, dir, "sleep 0.1 & echo $! > child.pid")
	child := bgproctest.PID(t, filepath.Join(dir, "child.pid"))
	<-g.Done()
	bgproctest.WaitFor(t, "the orphan is a zombie", func() bool {
		p, err := procgroup.Find(child)
		return err == nil && p.Zombie
	})
	if procgroup.Alive(g.PID()) {
		t.Error("a group of zombies is alive")
	}
	if forced := g.Stop(10 * time.Second); forced {
		t.Error("Stop sent KILL to a group of zombies")
	}
}
