//go:build !linux

package sandbox

import "runtime"

// Available reports that this OS has no sandbox dev can use.
func Available() (bool, string) {
	return false, "the OS sandbox uses Linux Landlock; it is not available on " + runtime.GOOS
}

func restrict(policy) error { return ErrUnavailable }

func execve(string, []string, []string) error { return ErrUnavailable }
