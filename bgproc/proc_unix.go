//go:build !windows

package bgproc

import (
	"os/exec"
	"syscall"
)

// isolate starts the command in a new session: its own process group, so
// that the whole tree can be signalled, and no controlling terminal, so a
// program that opens /dev/tty to prompt fails instead of waiting forever.
func isolate(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setsid = true
	dieWithParent(cmd.SysProcAttr)
}

// terminate sends TERM to the process group; an error means there is no
// such group left.
func terminate(cmd *exec.Cmd) error {
	return syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
}

func kill(cmd *exec.Cmd) {
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
}

// groupAlive reports whether any process of the group is left, not
// counting zombies: orphans wait for init to reap them, which some
// container inits do slowly.
func groupAlive(cmd *exec.Cmd) bool {
	pgid := cmd.Process.Pid
	return syscall.Kill(-pgid, 0) == nil && !onlyZombies(pgid)
}
