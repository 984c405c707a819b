//go:build windows

package procgroup

import (
	"errors"
	"os"
	"os/exec"
	"strconv"
	"syscall"
)

// isolate starts the command in a new process group with no console input,
// so that Ctrl+C in dev's console does not reach it. Windows has no
// die-with-parent flag: opts.DieWithParent changes nothing.
func isolate(cmd *exec.Cmd, opts Options) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.CreationFlags |= syscall.CREATE_NEW_PROCESS_GROUP
	if opts.DieWithParent {
		dieWithParent(cmd.SysProcAttr)
	}
}

// SignalGroup ends the process tree pgid leads; taskkill /T follows child
// processes. There is no gentle form: Term is unsupported.
func SignalGroup(pgid int, s Signal) error {
	if s != Kill {
		return errors.ErrUnsupported
	}
	return exec.Command("taskkill", "/T", "/F", "/PID", strconv.Itoa(pgid)).Run()
}

// SignalProcess ends the one process pid; Term is unsupported.
func SignalProcess(pid int, s Signal) error {
	if s != Kill {
		return errors.ErrUnsupported
	}
	p, err := os.FindProcess(pid)
	if err != nil {
		return err
	}
	defer p.Release()
	return p.Kill()
}

// Current: Windows process groups have no id a process can read.
func Current() int { return 0 }

// alive cannot see what is left of a tree whose root exited (and the
// root's pid may be reused): Stop kills only a running leader's tree.
func alive(int) bool { return false }
