package procgroup

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// szomb is a zombie's p_stat (sys/proc.h).
const szomb = 5

// dieWithParent: only Linux kills a process with its parent.
func dieWithParent(*syscall.SysProcAttr) {}

// Processes lists every process (sysctl kern.proc.all, as ps does).
func Processes() ([]Process, error) {
	all, err := unix.SysctlKinfoProcSlice("kern.proc.all")
	if err != nil {
		return nil, err
	}
	out := make([]Process, 0, len(all))
	for _, k := range all {
		out = append(out, toProcess(k))
	}
	return out, nil
}

// Find reads the process pid (the sysctl ps reads); an error means it is
// gone.
func Find(pid int) (Process, error) {
	k, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
	if err != nil {
		return Process{}, err
	}
	return toProcess(*k), nil
}

func toProcess(k unix.KinfoProc) Process {
	p := Process{
		PID:    int(k.Proc.P_pid),
		PPID:   int(k.Eproc.Ppid),
		PGID:   int(k.Eproc.Pgid),
		Start:  uint64(k.Proc.P_starttime.Sec)*1e6 + uint64(k.Proc.P_starttime.Usec),
		Zombie: k.Proc.P_stat == szomb,
	}
	p.SID, _ = unix.Getsid(p.PID)
	return p
}
