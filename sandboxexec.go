package main

import (
	"fmt"
	"os"

	"github.com/devagent/dev/sandbox"
)

// exitSandboxHelper is the exit code of a sandbox helper that could not
// confine itself; like a shell's 126, the command did not run.
const exitSandboxHelper = 126

// sandboxHelper makes this process the sandbox helper when its arguments
// ask for it (`dev __sandbox-exec POLICY PATH -- ARGV…`, started by the
// sandbox for every confined command): it confines itself and becomes the
// command, never returning. ok is false for an ordinary start. It runs
// first in main, before anything else is set up.
func sandboxHelper(args []string) (code int, ok bool) {
	if !sandbox.IsHelper(args) {
		return 0, false
	}
	err := sandbox.Exec(args[2:])
	fmt.Fprintf(os.Stderr, "dev: sandbox: %v\n", err)
	return exitSandboxHelper, true
}
