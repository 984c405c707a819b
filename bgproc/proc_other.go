//go:build !linux && !windows

package bgproc

import "syscall"

// dieWithParent: only Linux kills a process with its parent.
func dieWithParent(*syscall.SysProcAttr) {}

// onlyZombies cannot tell without /proc: the group counts as alive while
// any member, zombie or not, is left.
func onlyZombies(int) bool { return false }
