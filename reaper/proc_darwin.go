package reaper

import (
	"bytes"
	"encoding/binary"
	"errors"
	"strconv"

	"golang.org/x/sys/unix"
)

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

// environ is the environment pid started with, NUL-separated NAME=value,
// from kern.procargs2 (as ps -E reads it): argc, the executable's path,
// NUL padding, argc arguments, then the environment.
func environ(pid int) ([]byte, error) {
	buf, err := unix.SysctlRaw("kern.procargs2", pid)
	if err != nil {
		return nil, err
	}
	if len(buf) < 4 {
		return nil, errors.New("short procargs2")
	}
	argc := int(binary.LittleEndian.Uint32(buf))
	rest := buf[4:]
	i := bytes.IndexByte(rest, 0) // the executable's path
	if i < 0 {
		return nil, errors.New("malformed procargs2")
	}
	rest = bytes.TrimLeft(rest[i:], "\x00")
	for range argc {
		i := bytes.IndexByte(rest, 0)
		if i < 0 {
			return nil, errors.New("malformed procargs2")
		}
		rest = rest[i+1:]
	}
	return rest, nil
}
