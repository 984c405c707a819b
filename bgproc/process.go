package bgproc

import (
	"io"
	"os/exec"

	"github.com/devagent/dev/procgroup"
)

// Process is a started command in its own process group (on Unix a new
// session: no controlling terminal; on Linux killed with dev), stdin as the
// caller set it (empty when not set), stdout and stderr into one Output so
// that their order is kept. Its Group tells how it ended and stops it with
// everything it started (Stop).
type Process struct {
	*procgroup.Group
	out *Output
}

// Start starts cmd (its path, arguments, directory, environment and stdin
// set by the caller) with its output into a new Output that copies to
// mirror until Detach. A command that runs in the foreground and ends in
// time never needs more than this; a Manager takes over one that outlives
// its foreground.
func Start(cmd *exec.Cmd, mirror io.Writer) (*Process, error) {
	out := NewOutput(mirror)
	// cmd.Stdin is kept: nil is empty; a custom tool gives its input.
	cmd.Stdout, cmd.Stderr = out, out
	g, err := procgroup.Start(cmd, procgroup.Options{DieWithParent: true})
	if err != nil {
		return nil, err
	}
	return &Process{Group: g, out: out}, nil
}

// Output is where the process's output goes.
func (p *Process) Output() *Output { return p.out }
