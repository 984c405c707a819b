package bgproc

import (
	"context"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"
)

// pipeGrace is how long, after a foreground command exits, its output is
// still read while a process it left behind holds the pipe open. What the
// command printed before it exited is in the pipe already, but the
// goroutine copying it may wait for a core: on a loaded machine 250 ms
// lost a command's whole output (TestCommandResults, once in CI-like
// load), so a second.
const pipeGrace = time.Second

// nonInteractive makes the usual prompting tools give up instead of
// waiting for a user that is not there.
var nonInteractive = []string{
	"CI=1",
	"PAGER=cat",
	"GIT_PAGER=cat",
	"GIT_EDITOR=true",
	"GIT_TERMINAL_PROMPT=0",
	"DEBIAN_FRONTEND=noninteractive",
	"npm_config_yes=true",
}

// Command is a command to run: a line for the platform's shell (Shell),
// or a program and its arguments.
type Command struct {
	// Line is the command as written: run by the shell unless Argv is
	// set, and what the Manager calls the process if it adopts it.
	Line string
	// Argv, when set, is run as a program and its arguments, without a
	// shell.
	Argv []string
	Dir  string // the working directory
	// Stdin is the command's input ("": empty); Env is added to dev's
	// environment, after the settings that keep prompting tools from
	// waiting for a user (CI=1, PAGER=cat, …), so it wins over them.
	Stdin string
	Env   []string
}

// Adopter takes over a process still running when its foreground time is
// up (a *Manager): the model has seen its output up to seen.
type Adopter interface {
	Adopt(p *Process, command string, seen int64) (Info, error)
}

// Sandbox confines a command before it starts (a *sandbox.Sandbox): it
// rewrites cmd so that the program runs under the confinement, or fails.
type Sandbox interface {
	Wrap(cmd *exec.Cmd) error
}

// Groups marks the processes of commands and records their groups (a
// *reaper.Reaper).
type Groups interface {
	// Env is added to every command's environment: the mark by which what
	// a command started is found, whatever group it moves to.
	Env() []string
	// Record notes the group led by pid, a command just started.
	Record(pid int) error
}

// Foreground runs commands in the foreground until they end, are
// interrupted, or outlive Timeout; a command that outlives it is handed to
// Background, output and all, or stopped when there is none. What becomes
// of such a command is decided in one place, Run.
type Foreground struct {
	Timeout time.Duration // how long a command runs in the foreground; > 0
	Grace   time.Duration // TERM-to-KILL grace when a command is stopped; DefaultGrace when 0
	// Background takes over commands still running at Timeout. Nil: they
	// are stopped.
	Background Adopter
	Sandbox    Sandbox // nil: not confined
	Groups     Groups  // nil: neither marked nor recorded
	// Live, when set, receives what the command prints as it prints it
	// (stdout and stderr, in order), until it ends or moves to the
	// background. It is called from the goroutine reading the output, so
	// it must not block; the bytes are only valid during the call.
	Live func(p []byte)
}

// Ending is how a foreground command ended.
type Ending int

// How a foreground command ends.
const (
	// Finished: it exited by itself (any exit code, or a signal dev did
	// not send).
	Finished Ending = iota
	// Interrupted: the context was cancelled; the command was stopped,
	// its whole process group.
	Interrupted
	// TimedOut: it was still running at the timeout and was stopped: no
	// Background, or it took no more processes (dev is exiting).
	TimedOut
	// Adopted: it was still running at the timeout and Background took
	// it over; it runs on.
	Adopted
)

// Ended is what became of a foreground command.
type Ended struct {
	How     Ending
	Process *Process // its exit code, state and WaitErr once it exited
	Info    Info     // Adopted: the background process it became
}

// Run starts c in its own process group without a terminal, stdout and
// stderr into out (in order) while it runs in the foreground, and waits
// until it ends, ctx is cancelled or the timeout passes. out has all the
// command printed before Run returns, except for an adopted command: the
// Manager serves what it prints after. The error is a command that could
// not start (or be confined).
func (f Foreground) Run(ctx context.Context, c Command, out io.Writer) (Ended, error) {
	grace := f.Grace
	if grace <= 0 {
		grace = DefaultGrace
	}
	if f.Groups != nil {
		c.Env = append(c.Env[:len(c.Env):len(c.Env)], f.Groups.Env()...)
	}
	var mirror io.Writer = out
	if f.Live != nil {
		mirror = io.MultiWriter(out, liveWriter(f.Live))
	}
	p, err := f.start(c, mirror)
	if err != nil {
		return Ended{}, err
	}
	if f.Groups != nil {
		// Best effort: what a command started carries the mark too, which
		// is how a dev killed before this line is cleaned up after.
		_ = f.Groups.Record(p.PID())
	}
	timer := time.NewTimer(f.Timeout)
	defer timer.Stop()
	select {
	case <-p.Done():
		return Ended{How: Finished, Process: p}, nil
	case <-ctx.Done():
		p.Stop(grace)
		return Ended{How: Interrupted, Process: p}, nil
	case <-timer.C:
	}
	if f.Background == nil {
		p.Stop(grace)
		return Ended{How: TimedOut, Process: p}, nil
	}
	// From here on the output goes to the manager only: out holds bytes
	// [0, seen), the manager serves what follows.
	seen := p.Output().Detach()
	if info, err := f.Background.Adopt(p, c.Line, seen); err == nil {
		return Ended{How: Adopted, Process: p, Info: info}, nil
	}
	// Not taken (dev is exiting): stop it, keeping what came since.
	p.Stop(grace)
	_, _ = out.Write(p.Output().ReadFrom(seen).Data)
	return Ended{How: TimedOut, Process: p}, nil
}

// start starts c with its output into one Output (so that the order of
// stdout and stderr is kept) mirrored to out until it is handed to the
// background; a sandbox, when given, confines the process and everything
// it starts.
func (f Foreground) start(c Command, out io.Writer) (*Process, error) {
	cmd := shellCommand(c.Line)
	if c.Argv != nil {
		cmd = programCommand(c.Argv)
	}
	cmd.Dir = c.Dir
	// exec keeps the last value of a repeated variable, so c.Env wins.
	cmd.Env = append(append(os.Environ(), nonInteractive...), c.Env...)
	if c.Stdin != "" {
		cmd.Stdin = strings.NewReader(c.Stdin)
	}
	// The command is finished when the shell exits, even if a child it left
	// in the background still holds the pipe: Wait stops reading then.
	cmd.WaitDelay = pipeGrace
	if f.Sandbox != nil {
		if err := f.Sandbox.Wrap(cmd); err != nil {
			return nil, err
		}
	}
	return Start(cmd, out)
}

// liveWriter passes a command's output to Foreground.Live; it never fails,
// so the command's own record of its output never misses a byte.
type liveWriter func([]byte)

func (f liveWriter) Write(p []byte) (int, error) {
	f(p)
	return len(p), nil
}
