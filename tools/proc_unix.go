//go:build !windows

package tools

import "time"

// forcedHow says how a background process that needed KILL was stopped.
func forcedHow(grace time.Duration) string {
	return "it did not stop within " + seconds(grace) + " of TERM, so its process group got KILL"
}

// posixShell: COMMAND lines are POSIX shell, so the deny rules read them
// as such and refuse a line they cannot read.
const posixShell = true
