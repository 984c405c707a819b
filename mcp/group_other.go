//go:build !linux && !windows

package mcp

import "syscall"

// groupAlive reports whether a process of group pgid still exists
// (zombies included: outside Linux there is no cheap way to tell them).
func groupAlive(pgid int) bool { return syscall.Kill(-pgid, 0) == nil }
