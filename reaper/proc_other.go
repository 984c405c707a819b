//go:build !linux && !darwin

package reaper

import "errors"

// supported: without a way to read start times here, nothing is recorded
// or signalled; bgproc stops the commands it runs (Windows: their trees).
const supported = false

// AdoptOrphans is Linux only.
func AdoptOrphans() error { return errors.ErrUnsupported }

func bootID() (string, error)     { return "", errors.ErrUnsupported }
func environ(int) ([]byte, error) { return nil, errors.ErrUnsupported }
