//go:build linux || darwin

package reaper

import "syscall"

// supported: processes, start times and boots can be read here.
const supported = true

func terminate(ts []target) { signal(ts, syscall.SIGTERM) }
func kill(ts []target)      { signal(ts, syscall.SIGKILL) }

func signal(ts []target, sig syscall.Signal) {
	for _, t := range ts {
		if t.pgid > 0 {
			_ = syscall.Kill(-t.pgid, sig)
		} else {
			_ = syscall.Kill(t.pid, sig)
		}
	}
}

func ownGroup() int { return syscall.Getpgrp() }
