//go:build unix

package bgproctest

import (
	"bytes"
	"errors"
	"os"
	"runtime"
	"strconv"
	"syscall"
)

// Gone reports whether pid no longer runs. A zombie counts as gone: an
// orphan waits for init to reap it, which some container inits do slowly.
func Gone(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return true
	}
	if runtime.GOOS != "linux" {
		return false
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true // no /proc entry: gone
	}
	i := bytes.LastIndexByte(stat, ')')
	return i > 0 && len(stat) > i+2 && stat[i+2] == 'Z'
}
