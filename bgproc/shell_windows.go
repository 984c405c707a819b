//go:build windows

package bgproc

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
)

// Shell is what runs a command line (Command.Line).
const Shell = "cmd /C"

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

// programCommand runs a program with its arguments, without a shell. `dir`
// is no program on Windows but a builtin of cmd.exe, so it runs there; its
// arguments are quoted for cmd, and a caller that runs words without a
// shell has already refused the characters cmd would act on.
func programCommand(argv []string) *exec.Cmd {
	if strings.EqualFold(argv[0], "dir") {
		if _, err := exec.LookPath(argv[0]); err != nil {
			quoted := make([]string, len(argv))
			for i, a := range argv {
				quoted[i] = syscall.EscapeArg(a)
			}
			cmd := shellCommand(strings.Join(quoted, " "))
			return cmd
		}
	}
	return exec.Command(argv[0], argv[1:]...)
}
