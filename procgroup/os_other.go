//go:build !linux && !darwin

package procgroup

import (
	"errors"
	"syscall"
)

// dieWithParent: only Linux kills a process with its parent.
func dieWithParent(*syscall.SysProcAttr) {}

// Processes: the process table is read on Linux and macOS only.
func Processes() ([]Process, error) { return nil, errors.ErrUnsupported }

// Find: the process table is read on Linux and macOS only.
func Find(int) (Process, error) { return Process{}, errors.ErrUnsupported }
