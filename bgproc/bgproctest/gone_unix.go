//go:build unix

package bgproctest

import (
	"errors"
	"syscall"

	"github.com/devagent/dev/procgroup"
)

// Gone reports whether pid no longer runs. A zombie counts as gone: an
// orphan waits for init to reap it, which some container inits do slowly.
// Where the process table cannot be read, only a reaped process is gone.
func Gone(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return true
	}
	p, err := procgroup.Find(pid)
	if errors.Is(err, errors.ErrUnsupported) {
		return false
	}
	return err != nil || p.Zombie
}
