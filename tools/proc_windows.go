//go:build windows

package tools

import (
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"
)

func shellCommand(command string) *exec.Cmd {
	shell := os.Getenv("ComSpec")
	if shell == "" {
		shell = filepath.Join(os.Getenv("SystemRoot"), "System32", "cmd.exe")
	}
	cmd := exec.Command(shell)
	// cmd.exe does its own parsing: pass the command line untouched. /S
	// strips only the outer quotes, so quotes inside the command survive.
	cmd.SysProcAttr = &syscall.SysProcAttr{CmdLine: `cmd /S /C "` + command + `"`}
	return cmd
}

func shellName() string { return "cmd /C" }

// forcedHow says how a background process was stopped: Windows has no TERM.
func forcedHow(time.Duration) string {
	return "its process tree was ended (taskkill /T /F)"
}
