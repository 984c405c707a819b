//go:build windows

package bgproc

import (
	"errors"
	"os/exec"
	"strconv"
	"syscall"
)

// isolate starts the command in a new process group with no console input.
func isolate(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.CreationFlags |= syscall.CREATE_NEW_PROCESS_GROUP
}

// terminate has no gentle form on Windows: kill does the work.
func terminate(*exec.Cmd) error { return errors.ErrUnsupported }

// kill ends the process tree; taskkill /T follows child processes.
func kill(cmd *exec.Cmd) {
	if err := exec.Command("taskkill", "/T", "/F", "/PID", strconv.Itoa(cmd.Process.Pid)).Run(); err != nil {
		_ = cmd.Process.Kill()
	}
}

// groupAlive cannot see what is left of a tree whose root exited (and the
// root's pid may be reused): Stop kills only a running root's tree.
func groupAlive(*exec.Cmd) bool { return false }
