package reaper

import (
	"errors"
	"strconv"

	"golang.org/x/sys/unix"
)

// szomb is a zombie's p_stat (sys/proc.h).
const szomb = 5

// AdoptOrphans: macOS has no subreapers; orphans go to launchd.
func AdoptOrphans() error { return errors.ErrUnsupported }

// bootID names the boot by its time: start times are wall-clock times, and
// a process of another boot must not pass for one of this boot.
func bootID() (string, error) {
	tv, err := unix.SysctlTimeval("kern.boottime")
	if err != nil {
		return "", err
	}
	return strconv.FormatInt(tv.Sec, 10), nil
}

// startTime is when pid started, in microseconds since 1970 (what ps shows
// as lstart, from the same sysctl).
func startTime(pid int) (uint64, error) {
	k, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
	if err != nil {
		return 0, err
	}
	return toProc(*k).start, nil
}

// processes lists every process (sysctl kern.proc.all, as ps does).
func processes() ([]proc, error) {
	all, err := unix.SysctlKinfoProcSlice("kern.proc.all")
	if err != nil {
		return nil, err
	}
	out := make([]proc, 0, len(all))
	for _, k := range all {
		out = append(out, toProc(k))
	}
	return out, nil
}

func toProc(k unix.KinfoProc) proc {
	p := proc{
		pid:    int(k.Proc.P_pid),
		ppid:   int(k.Eproc.Ppid),
		pgid:   int(k.Eproc.Pgid),
		start:  uint64(k.Proc.P_starttime.Sec)*1e6 + uint64(k.Proc.P_starttime.Usec),
		zombie: k.Proc.P_stat == szomb,
	}
	p.sid, _ = unix.Getsid(p.pid)
	return p
}
