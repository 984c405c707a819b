//go:build !windows

package mcp

import (
	"os/exec"
	"syscall"
)

// isolate starts the server in a session of its own: its own process group,
// so that it and its children are stopped together, and no controlling
// terminal, so that nothing it runs can prompt on the user's terminal.
func isolate(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
}

func terminate(cmd *exec.Cmd) { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM) }

func kill(cmd *exec.Cmd) { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
