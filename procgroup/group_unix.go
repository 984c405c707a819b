//go:build !windows

package procgroup

import (
	"os/exec"
	"syscall"
)

// isolate starts the command in a new session: its own process group, so
// that the whole tree can be signalled, and no controlling terminal, so a
// program that opens /dev/tty to prompt fails instead of waiting forever.
func isolate(cmd *exec.Cmd, opts Options) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setsid = true
	if opts.DieWithParent {
		dieWithParent(cmd.SysProcAttr)
	}
}

func (s Signal) unix() syscall.Signal {
	if s == Kill {
		return syscall.SIGKILL
	}
	return syscall.SIGTERM
}

// SignalGroup sends s to every process of group pgid; an error means there
// is no such group left.
func SignalGroup(pgid int, s Signal) error {
	return syscall.Kill(-pgid, s.unix())
}

// SignalProcess sends s to the one process pid.
func SignalProcess(pid int, s Signal) error {
	return syscall.Kill(pid, s.unix())
}

// Current is the group of this process.
func Current() int { return syscall.Getpgrp() }

// alive reports whether any process of group pgid is left, not counting
// zombies: orphans wait for init to reap them, which some container inits
// do slowly. Without a process table every member counts, zombie or not.
func alive(pgid int) bool {
	if syscall.Kill(-pgid, 0) != nil {
		return false
	}
	procs, err := Processes()
	if err != nil {
		return true
	}
	for _, p := range procs {
		if p.PGID == pgid && !p.Zombie {
			return true
		}
	}
	return false
}
