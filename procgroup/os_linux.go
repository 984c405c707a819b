package procgroup

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// dieWithParent: see Options.DieWithParent.
func dieWithParent(attr *syscall.SysProcAttr) {
	attr.Pdeathsig = syscall.SIGKILL
}

// Processes lists every process /proc shows.
func Processes() ([]Process, error) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil, err
	}
	var out []Process
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		if p, err := readStat(e.Name()); err == nil {
			out = append(out, p)
		} // else: gone meanwhile
	}
	return out, nil
}

// Find reads the process pid from /proc; an error means it is gone.
func Find(pid int) (Process, error) {
	return readStat(strconv.Itoa(pid))
}

// readStat reads /proc/<pid>/stat: pid (comm) state ppid pgrp session …
// starttime (the 22nd field); comm may hold spaces and parentheses.
func readStat(pid string) (Process, error) {
	stat, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return Process{}, err
	}
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return Process{}, errors.New("malformed stat")
	}
	f := strings.Fields(string(stat[i+1:]))
	if len(f) < 20 {
		return Process{}, fmt.Errorf("stat of %s has %d fields", pid, len(f))
	}
	p := Process{Zombie: f[0] == "Z" || f[0] == "X"}
	p.PID, _ = strconv.Atoi(pid)
	p.PPID, _ = strconv.Atoi(f[1])
	p.PGID, _ = strconv.Atoi(f[2])
	p.SID, _ = strconv.Atoi(f[3])
	p.Start, err = strconv.ParseUint(f[19], 10, 64)
	return p, err
}
