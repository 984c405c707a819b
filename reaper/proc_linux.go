package reaper

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// AdoptOrphans makes dev the subreaper of its descendants
// (PR_SET_CHILD_SUBREAPER): a process whose parent exits becomes dev's child
// instead of init's, so that StopAll finds what a command moved out of its
// group (`setsid cmd &`, daemons) as long as dev runs. Orphans that exit
// before dev stay zombies until dev exits: dev cannot wait for them without
// taking the exit status of its own commands.
func AdoptOrphans() error {
	return unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
}

// bootID names the boot: start times count from it.
func bootID() (string, error) {
	b, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(b)), nil
}

// startTime is when pid started, in clock ticks since boot.
func startTime(pid int) (uint64, error) {
	p, err := readProc(strconv.Itoa(pid))
	return p.start, err
}

// processes lists every process /proc shows.
func processes() ([]proc, error) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil, err
	}
	var out []proc
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		if p, err := readProc(e.Name()); err == nil {
			out = append(out, p)
		} // else: gone meanwhile
	}
	return out, nil
}

// readProc reads /proc/<pid>/stat: pid (comm) state ppid pgrp session …
// starttime (the 22nd field); comm may hold spaces and parentheses.
func readProc(pid string) (proc, error) {
	stat, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return proc{}, err
	}
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return proc{}, errors.New("malformed stat")
	}
	f := strings.Fields(string(stat[i+1:]))
	if len(f) < 20 {
		return proc{}, fmt.Errorf("stat of %s has %d fields", pid, len(f))
	}
	p := proc{zombie: f[0] == "Z" || f[0] == "X"}
	p.pid, _ = strconv.Atoi(pid)
	p.ppid, _ = strconv.Atoi(f[1])
	p.pgid, _ = strconv.Atoi(f[2])
	p.sid, _ = strconv.Atoi(f[3])
	p.start, err = strconv.ParseUint(f[19], 10, 64)
	return p, err
}

// environ is the environment pid started with: NUL-separated NAME=value.
func environ(pid int) ([]byte, error) {
	return os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
}
