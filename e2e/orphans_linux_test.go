package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

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

// After a SIGKILL of dev, the command's shell dies with it (PDEATHSIG),
// but not the program the shell forked: dash forks even a line's one
// program (`sh -c 'sleep 300'` is a shell and its child sleep), and that
// child is not dev's, so it gets no signal. It goes on, reparented, until
// a dev opens that session again (issue 30 asked docs/processes.md to say
// so): a new session in the same directory leaves it; `--session ID`
// (or --resume, while it is the directory's last session) stops it.
func TestKilledDevForkedProgramLivesUntilTheSessionIsOpened(t *testing.T) {
	w := newWorld(t, map[string]any{"commandTimeout": 600})
	w.srv.Script(reply("Wait.", "COMMAND", "echo $$ > shell.txt; sleep 301"), done("never"))
	cmd, _, _ := w.command(t.Context(), "-p", "wait", "--no-audit")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	shell := bgproctest.PID(t, filepath.Join(w.dir, "shell.txt"))
	var forked int
	bgproctest.WaitFor(t, "the shell to fork its program", func() bool {
		children, _ := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", shell, shell))
		f := strings.Fields(string(children))
		if len(f) == 1 {
			forked, _ = strconv.Atoi(f[0])
		}
		return forked > 0
	})
	t.Cleanup(func() { syscall.Kill(forked, syscall.SIGKILL) })
	killed := time.Now()
	cmd.Process.Kill()
	cmd.Wait()
	id := w.onlySession().ID
	bgproctest.WaitFor(t, "the shell to die with dev", func() bool { return bgproctest.Gone(shell) })
	if bgproctest.Gone(forked) {
		t.Fatal("the forked program died with dev; docs/processes.md says it lives on")
	}
	w.srv.Script(done("Other work."))
	w.run("-p", "other work", "--no-audit").expect(t, 0)
	if bgproctest.Gone(forked) {
		t.Fatal("a new session in the same directory stopped the forked program; docs/processes.md says it does not")
	}
	lived := time.Since(killed)
	w.srv.Script(done("Resumed."))
	r := w.run("--session", id, "-p", "go on", "--no-audit")
	r.expect(t, 0)
	if !bgproctest.Gone(forked) {
		t.Errorf("the forked program %d runs on after its session was opened again", forked)
	}
	if !strings.Contains(r.stderr, "dev: stopped 1 process groups or processes an earlier run of this session left running") {
		t.Errorf("stderr does not say what was stopped:\n%s", r.stderr)
	}
	t.Logf("the forked program outlived the SIGKILLed dev and a new session's run in its directory (%s), until dev --session opened its session", lived.Round(time.Millisecond))
}
