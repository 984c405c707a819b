package mcp

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// process is a stdio server's process. dev owns its pipes (not exec), so
// that waiting for the process never races with the SDK reading its output,
// and the process runs in its own process group so that what it starts can
// be stopped with it.
type process struct {
	cmd     *exec.Cmd
	exited  chan struct{} // closed when Wait returned
	waitErr error         // set before exited is closed
}

// stderrDrain bounds how long, after the server exits, its stderr is still
// read while a process it left behind holds it open.
const stderrDrain = time.Second

// startProcess starts command with the environment of dev plus env, in dir,
// inside sb when it is not nil, stderr into log, and returns the transport
// over its stdin and stdout.
func startProcess(command string, args, env []string, dir string, sb Sandbox, log *stderrLog) (*process, sdk.Transport, error) {
	cmd := exec.Command(command, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	cmd.Stderr = log
	cmd.WaitDelay = stderrDrain
	isolate(cmd)
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
	if err := cmd.Start(); err != nil {
		for _, f := range []*os.File{inR, inW, outR, outW} {
			f.Close()
		}
		return nil, nil, err
	}
	// The child has its own copies; keeping ours would hide its exit
	// from the reader (no EOF) and its end of input from it.
	inR.Close()
	outW.Close()
	p := &process{cmd: cmd, exited: make(chan struct{})}
	go func() {
		p.waitErr = cmd.Wait()
		close(p.exited)
	}()
	return p, &sdk.IOTransport{Reader: outR, Writer: inW}, nil
}

// waitExit reports whether the process exits within d.
func (p *process) waitExit(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-p.exited:
		return true
	case <-t.C:
		return false
	}
}

// exitCode is the exit status after exit, -1 when a signal ended it.
func (p *process) exitCode() int {
	<-p.exited
	if p.cmd.ProcessState == nil {
		return -1
	}
	return p.cmd.ProcessState.ExitCode()
}

// state says how the process ended: "exit status 1", "signal: killed".
func (p *process) state() string {
	<-p.exited
	if p.cmd.ProcessState == nil {
		return fmt.Sprintf("not started: %v", p.waitErr)
	}
	return p.cmd.ProcessState.String()
}

// killWait bounds the wait for a killed process group to be gone: KILL is
// delivered asynchronously, and a child still running a moment after Close
// would outlive dev's own exit.
const killWait = 500 * time.Millisecond

// stop ends the process once its input is closed (the session's Close does
// that): it may exit by itself within grace, then gets TERM, then KILL; what
// it left running in its process group is killed too. It returns when the
// process has exited.
func (p *process) stop(grace time.Duration) error {
	if !p.waitExit(grace) {
		terminate(p.cmd)
		if !p.waitExit(grace) {
			kill(p.cmd)
			<-p.exited
		}
	}
	kill(p.cmd) // children left behind
	awaitGroup(p.cmd, killWait)
	var exit *exec.ExitError
	if p.waitErr != nil && !errors.As(p.waitErr, &exit) && !errors.Is(p.waitErr, exec.ErrWaitDelay) {
		return p.waitErr
	}
	return nil
}
