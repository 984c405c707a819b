package bgproc

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
)

// dieWithParent has the process killed when dev dies (PR_SET_PDEATHSIG),
// even by SIGKILL: a command dev was starting at that moment never runs,
// and one it ran (the shell, or what the shell exec'd) stops at once; what
// the command started itself is left to the next dev (package reaper).
// Linux sends the signal when the thread that started the process ends,
// which Go does only for a goroutine locked to its thread that exits; dev
// locks none.
func dieWithParent(attr *syscall.SysProcAttr) {
	attr.Pdeathsig = syscall.SIGKILL
}

// onlyZombies reports whether every process of group pgid that /proc
// shows is a zombie. When /proc cannot be read it reports false.
func onlyZombies(pgid int) bool {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return false
	}
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue // gone meanwhile
		}
		// pid (comm) state ppid pgrp …; comm may hold spaces and parentheses.
		i := bytes.LastIndexByte(stat, ')')
		if i < 0 {
			continue
		}
		fields := bytes.Fields(stat[i+1:])
		if len(fields) < 3 || string(fields[2]) != strconv.Itoa(pgid) {
			continue
		}
		if state := fields[0][0]; state != 'Z' && state != 'X' {
			return false
		}
	}
	return true
}
