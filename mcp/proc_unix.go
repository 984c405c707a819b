//go:build !windows

package mcp

import (
	"os/exec"
	"syscall"
	"time"
)

// isolate starts the server in a session of its own: its own process group,
// so that it and its children are stopped together, and no controlling
// terminal, so that nothing it runs can prompt on the user's terminal.
func isolate(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
}

func terminate(cmd *exec.Cmd) { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM) }

func kill(cmd *exec.Cmd) { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }

// awaitGroup waits, at most limit, until no process of cmd's group is
// left (zombies waiting for their reaper count as gone: they run nothing).
func awaitGroup(cmd *exec.Cmd, limit time.Duration) {
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) && groupAlive(cmd.Process.Pid) {
		time.Sleep(5 * time.Millisecond) // a kill's delivery has no event to wait on
	}
}
