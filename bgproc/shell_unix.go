//go:build !windows

package bgproc

import "os/exec"

// Shell is what runs a command line (Command.Line).
const Shell = "sh -c"

func shellCommand(command string) *exec.Cmd {
	return exec.Command("sh", "-c", command)
}

// programCommand runs a program with its arguments, without a shell.
func programCommand(argv []string) *exec.Cmd {
	return exec.Command(argv[0], argv[1:]...)
}
