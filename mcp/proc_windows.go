package mcp

import (
	"os/exec"
	"syscall"
	"time"
)

// isolate gives the server a process group of its own, so that Ctrl+C in
// dev's console does not reach it.
func isolate(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: syscall.CREATE_NEW_PROCESS_GROUP}
}

// terminate: Windows has no TERM; the kill that follows ends the process.
func terminate(*exec.Cmd) {}

func kill(cmd *exec.Cmd) { _ = cmd.Process.Kill() }

// awaitGroup: on Windows the process's own kill is waited for by stop.
func awaitGroup(*exec.Cmd, time.Duration) {}
