//go:build unix

package realserver

import (
	"os"
	"syscall"
)

// lockFile takes an exclusive lock on f, waiting for it; closing f
// releases it.
func lockFile(f *os.File) error { return syscall.Flock(int(f.Fd()), syscall.LOCK_EX) }
