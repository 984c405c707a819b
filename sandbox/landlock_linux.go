package sandbox

import (
	"fmt"
	"syscall"

	"github.com/landlock-lsm/go-landlock/landlock"
	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
)

// Landlock's write rights, by the ABI version that brought them. Reading,
// executing and device ioctls are not handled, so they stay unrestricted.
const (
	writeV1 = ll.AccessFSWriteFile | ll.AccessFSRemoveDir | ll.AccessFSRemoveFile | ll.AccessFSMakeChar |
		ll.AccessFSMakeDir | ll.AccessFSMakeReg | ll.AccessFSMakeSock | ll.AccessFSMakeFifo |
		ll.AccessFSMakeBlock | ll.AccessFSMakeSym
	// ABI 2: moving and linking files between directories.
	referV2 = ll.AccessFSRefer
	// ABI 3: truncate(2). Before it, truncating a file by path is not
	// restricted.
	truncateV3 = ll.AccessFSTruncate
)

// Available reports whether Landlock can enforce the sandbox, with what
// is in force or why not.
func Available() (bool, string) {
	abi, err := ll.LandlockGetABIVersion()
	if err != nil || abi < 1 {
		why := "no Landlock support"
		if err != nil {
			why = err.Error()
		}
		return false, fmt.Sprintf("Landlock is not available (%s); it needs Linux 5.13 or later with Landlock enabled (lsm=…,landlock), and no seccomp filter blocking it", why)
	}
	msg := fmt.Sprintf("Landlock ABI %d", abi)
	if abi < 3 {
		msg += " (before ABI 3, Linux 6.2, truncate(2) of a file outside the writable directories is not prevented)"
	}
	return true, msg
}

// handled is the set of write rights this kernel can restrict.
func handled() (landlock.AccessFSSet, error) {
	abi, err := ll.LandlockGetABIVersion()
	if err != nil {
		return 0, err
	}
	var set uint64
	if abi >= 1 {
		set |= writeV1
	}
	if abi >= 2 {
		set |= referV2
	}
	if abi >= 3 {
		set |= truncateV3
	}
	if set == 0 {
		return 0, fmt.Errorf("no file-system rights in Landlock ABI %d", abi)
	}
	return landlock.AccessFSSet(set), nil
}

// restrict confines this process and its future children: writes only
// inside p's directories and files. Missing directories are skipped (a
// build cache that does not exist yet cannot be created).
func restrict(p policy) error {
	set, err := handled()
	if err != nil {
		return err
	}
	cfg, err := landlock.NewConfig(set)
	if err != nil {
		return err
	}
	fileRights := set & landlock.AccessFSSet(ll.AccessFSWriteFile|truncateV3)
	return cfg.RestrictPaths(
		landlock.PathAccess(set, p.Dirs...).IgnoreIfMissing(),
		landlock.PathAccess(fileRights, p.Files...).IgnoreIfMissing(),
	)
}

func execve(path string, argv, env []string) error {
	return syscall.Exec(path, argv, env)
}
