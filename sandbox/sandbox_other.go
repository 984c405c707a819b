//go:build !linux

package sandbox

import "runtime"

// helperPath is never used: New fails where Landlock is not.
const helperPath = ""

// Probe reports that this OS has no sandbox dev can use.
func Probe() Support {
	return Support{Why: "the OS sandbox uses Linux Landlock; it is not available on " + runtime.GOOS}
}

func restrict(policy) error { return ErrUnavailable }

func execve(string, []string, []string) error { return ErrUnavailable }
