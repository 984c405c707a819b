//go:build !windows

package tools

import (
	"os/exec"
	"time"
)

func shellCommand(command string) *exec.Cmd {
	return exec.Command("sh", "-c", command)
}

func shellName() string { return "sh -c" }

// forcedHow says how a background process that needed KILL was stopped.
func forcedHow(grace time.Duration) string {
	return "it did not stop within " + seconds(grace) + " of TERM, so its process group got KILL"
}

// programCommand runs a program with its arguments, without a shell.
func programCommand(argv []string) *exec.Cmd {
	return exec.Command(argv[0], argv[1:]...)
}

// posixShell: COMMAND lines are POSIX shell, so the deny rules read them
// as such and refuse a line they cannot read.
const posixShell = true
