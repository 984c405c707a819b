package bgproc

import (
	"io"
	"os/exec"
	"sync/atomic"
	"time"
)

// pollGroup is how often Stop checks whether a process group is empty
// after TERM.
const pollGroup = 20 * time.Millisecond

// Process is a started command in its own process group (on Unix a new
// session: no controlling terminal), stdin as the caller set it (empty when
// not set), stdout and stderr into one Output so that their order is kept.
type Process struct {
	cmd     *exec.Cmd
	out     *Output
	started time.Time
	done    chan struct{} // closed once Wait returned

	// Set before done is closed.
	waitErr error
	ended   time.Time

	stopped atomic.Bool // Stop signalled it while it ran
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
	isolate(cmd)
	p := &Process{cmd: cmd, out: out, done: make(chan struct{})}
	p.started = time.Now()
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	go func() {
		err := cmd.Wait()
		p.waitErr, p.ended = err, time.Now()
		close(p.done)
	}()
	return p, nil
}

// Done is closed when the process has exited and its output is read.
func (p *Process) Done() <-chan struct{} { return p.done }

// Output is where the process's output goes.
func (p *Process) Output() *Output { return p.out }

// PID is the process id, which is also its process group id.
func (p *Process) PID() int { return p.cmd.Process.Pid }

func (p *Process) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// WaitErr is what exec's Wait returned (after Done), e.g. exec.ErrWaitDelay
// when a child kept the output open after the process exited.
func (p *Process) WaitErr() error {
	<-p.done
	return p.waitErr
}

// ExitCode is the exit status after Done, -1 when it was ended by a signal.
func (p *Process) ExitCode() int {
	<-p.done
	if p.cmd.ProcessState == nil {
		return -1
	}
	return p.cmd.ProcessState.ExitCode()
}

// State describes how the process ended (e.g. "exit status 1", "signal:
// killed"), after Done.
func (p *Process) State() string {
	<-p.done
	if p.cmd.ProcessState == nil {
		return "not started"
	}
	return p.cmd.ProcessState.String()
}

// Runtime is how long the process has run, or ran.
func (p *Process) Runtime() time.Duration {
	if p.exited() {
		return p.ended.Sub(p.started)
	}
	return time.Since(p.started)
}

// Stopped reports whether Stop ended the process.
func (p *Process) Stopped() bool { return p.stopped.Load() }

// Stop ends the whole process group: TERM, then KILL to what is left after
// grace (at once where there is no TERM, on Windows: the process tree). It
// also clears out children left behind by a process that already exited.
// It returns when the process has exited; forced reports whether KILL was
// needed.
func (p *Process) Stop(grace time.Duration) (forced bool) {
	if !p.exited() {
		p.stopped.Store(true)
	}
	if terminate(p.cmd) == nil {
		deadline := time.NewTimer(grace)
		defer deadline.Stop()
		select {
		case <-p.done:
			// Children share the group and get the rest of the grace to exit.
			tick := time.NewTicker(pollGroup)
			defer tick.Stop()
		wait:
			for groupAlive(p.cmd) {
				select {
				case <-deadline.C:
					break wait
				case <-tick.C:
				}
			}
		case <-deadline.C:
		}
	}
	if !p.exited() || groupAlive(p.cmd) {
		forced = true
		kill(p.cmd)
	}
	<-p.done
	return forced
}
