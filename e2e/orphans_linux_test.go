package e2e

import (
	"path/filepath"
	"syscall"
	"testing"

	"github.com/devagent/dev/bgproc/bgproctest"
)

// A process a command moved out of its group and stripped of dev's run id
// is found only as dev's adopted orphan (dev is the subreaper of what its
// commands start): dev stops it as it exits.
func TestAdoptedOrphanStoppedOnExit(t *testing.T) {
	w := newWorld(t, nil)
	w.srv.Script(reply("Start.", "COMMAND", "env -u DEV_RUN_ID setsid sleep 304 > /dev/null 2>&1 & echo $! > orphan\necho started"), done("Started."))
	w.run("--no-audit", "-p", "start it").expect(t, 0)
	pid := bgproctest.PID(t, filepath.Join(w.dir, "orphan"))
	t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })
	if !bgproctest.Gone(pid) {
		t.Errorf("the orphan %d outlives dev", pid)
	}
}
