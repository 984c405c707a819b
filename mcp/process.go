package mcp

import (
	"errors"
	"os"
	"os/exec"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/devagent/dev/procgroup"
)

// stderrDrain bounds how long, after the server exits, its stderr is still
// read while a process it left behind holds it open.
const stderrDrain = time.Second

// startProcess starts command with the environment of dev plus env, in dir,
// inside sb when it is not nil, stderr into log, and returns the transport
// over its stdin and stdout. dev owns the pipes (not exec), so that waiting
// for the process never races with the SDK reading its output; the process
// leads its own process group (a session of its own on Unix: nothing it
// runs can prompt on the user's terminal) so that what it starts is stopped
// with it.
func startProcess(command string, args, env []string, dir string, sb Sandbox, log *stderrLog) (*procgroup.Group, sdk.Transport, error) {
	cmd := exec.Command(command, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	cmd.Stderr = log
	cmd.WaitDelay = stderrDrain
	if sb != nil {
		if err := sb.Wrap(cmd); err != nil {
			return nil, nil, err
		}
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, nil, err
	}
	cmd.Stdin, cmd.Stdout = inR, outW
	g, err := procgroup.Start(cmd, procgroup.Options{})
	if err != nil {
		for _, f := range []*os.File{inR, inW, outR, outW} {
			f.Close()
		}
		return nil, nil, err
	}
	// The child has its own copies; keeping ours would hide its exit
	// from the reader (no EOF) and its end of input from it.
	inR.Close()
	outW.Close()
	return g, &sdk.IOTransport{Reader: outR, Writer: inW}, nil
}

// stopProcess ends a server's process once its input is closed (the
// session's Close does that): it may exit by itself within grace; then its
// process group gets TERM, and KILL after grace. What the server left
// running in its group is stopped too. It returns when the process has
// exited, with the error of waiting for it, if any.
func stopProcess(g *procgroup.Group, grace time.Duration) error {
	g.Wait(grace)
	g.Stop(grace)
	err := g.WaitErr()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) && !errors.Is(err, exec.ErrWaitDelay) {
		return err
	}
	return nil
}
