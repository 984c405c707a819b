//go:build !windows

package tools

import (
	"os/exec"
	"syscall"
)

func shellCommand(command string) *exec.Cmd {
	return exec.Command("sh", "-c", command)
}

// isolate starts the command in a new session: its own process group, so
// that the whole tree can be signalled, and no controlling terminal, so a
// program that opens /dev/tty to prompt fails instead of waiting forever.
func isolate(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
}

func terminate(cmd *exec.Cmd) error {
	return syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
}

func kill(cmd *exec.Cmd) {
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
}

func shellName() string { return "sh -c" }
