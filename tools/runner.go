package tools

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"
)

const (
	// defaultCommandTimeout applies when Env.CommandTimeout is not set.
	defaultCommandTimeout = 30 * time.Second
	// killGrace is how long a stopped command may take to exit after TERM
	// before its process group is killed.
	killGrace = 2 * time.Second
	// pipeGrace is how long, after the command exits, its output is still
	// read while a process it left behind holds the pipe open.
	pipeGrace = 250 * time.Millisecond
)

// nonInteractive makes the usual prompting tools give up instead of waiting
// for a user that is not there.
var nonInteractive = []string{
	"CI=1",
	"PAGER=cat",
	"GIT_PAGER=cat",
	"GIT_EDITOR=true",
	"GIT_TERMINAL_PROMPT=0",
	"DEBIAN_FRONTEND=noninteractive",
	"npm_config_yes=true",
}

// process is one started shell command.
type process struct {
	cmd     *exec.Cmd
	out     *output
	done    chan struct{} // closed when Wait returned
	waitErr error         // Wait's error, once done is closed
}

// startProcess runs command through the platform shell in dir, in its own
// process group without a terminal, stdin empty (exec's default), stdout
// and stderr into one writer so that exec shares one pipe between them and
// their order is kept.
func startProcess(dir, command string, out *output) (*process, error) {
	cmd := shellCommand(command)
	cmd.Dir = dir
	// exec keeps the last value of a repeated variable, so these win.
	cmd.Env = append(os.Environ(), nonInteractive...)
	cmd.Stdout, cmd.Stderr = out, out
	// The command is finished when the shell exits, even if a child it left
	// in the background still holds the pipe: Wait stops reading then.
	cmd.WaitDelay = pipeGrace
	isolate(cmd)
	p := &process{cmd: cmd, out: out, done: make(chan struct{})}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	go func() {
		p.waitErr = cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

// stop ends the whole process group: TERM, then KILL after grace (at once
// where there is no TERM), and waits until Wait returned.
func (p *process) stop(grace time.Duration) {
	if terminate(p.cmd) == nil {
		select {
		case <-p.done:
		case <-time.After(grace):
		}
	}
	// Also after a prompt exit: children that ignored TERM share the group.
	kill(p.cmd)
	<-p.done
}

// exitCode is the command's exit status, -1 when it did not exit by itself.
func (p *process) exitCode() int {
	if p.cmd.ProcessState == nil {
		return -1
	}
	return p.cmd.ProcessState.ExitCode()
}

// runner runs commands in the foreground. What becomes of a command that
// outlives the timeout is decided in one place, timedOut, so that it can
// be handed to a background manager there instead of being stopped.
type runner struct {
	dir       string
	outputDir string
	timeout   time.Duration
	grace     time.Duration
}

func newRunner(env *Env) *runner {
	r := &runner{dir: env.Dir, outputDir: env.OutputDir, timeout: env.CommandTimeout, grace: killGrace}
	if r.timeout <= 0 {
		r.timeout = defaultCommandTimeout
	}
	return r
}

func (r *runner) run(ctx context.Context, command string) Result {
	res := Result{Tool: Command, Summary: oneLine(command, 80), Command: command, ExitCode: -1}
	// exec blames the shell when the directory is missing; name the cause.
	if info, err := os.Stat(r.dir); r.dir != "" && (err != nil || !info.IsDir()) {
		return res.fail(fmt.Sprintf("cannot run the command: the working directory %s is missing or not a directory.", r.dir))
	}
	p, err := startProcess(r.dir, command, newOutput(r.outputDir))
	if err != nil {
		return res.fail(fmt.Sprintf("cannot start the command: %v.", err))
	}
	timer := time.NewTimer(r.timeout)
	defer timer.Stop()
	select {
	case <-p.done:
		return r.finished(p, res)
	case <-ctx.Done():
		p.stop(r.grace)
		return r.stopped(p, res, "Command interrupted by the user; it was stopped (its whole process group).", "")
	case <-timer.C:
		return r.timedOut(p, res)
	}
}

func (r *runner) finished(p *process, res Result) Result {
	p.out.close()
	res.ExitCode = p.exitCode()
	var b strings.Builder
	switch {
	case res.ExitCode == 0:
		res.OK = true
		b.WriteString("Command succeeded (exit code 0).\n")
	case res.ExitCode > 0:
		fmt.Fprintf(&b, "Command failed (exit code %d).\n", res.ExitCode)
	default:
		fmt.Fprintf(&b, "Command ended without an exit code (%v).\n", p.cmd.ProcessState)
	}
	b.WriteString(p.out.String())
	if errors.Is(p.waitErr, exec.ErrWaitDelay) {
		b.WriteString("\nNote: a process the command started in the background still holds its output open; what it prints from now on is not captured.")
	}
	res.Output = b.String()
	return res
}

// timedOut decides the fate of a command still running after the timeout:
// for now it is stopped.
func (r *runner) timedOut(p *process, res Result) Result {
	p.stop(r.grace)
	return r.stopped(p, res,
		fmt.Sprintf("Command timed out after %s; it was stopped (its whole process group).", seconds(r.timeout)),
		"Run long-lived processes (servers, watchers) in the background with their output in a file, e.g. `nohup npm run dev > dev.log 2>&1 &`, then read the file; split long jobs into shorter commands.")
}

func (r *runner) stopped(p *process, res Result, what, hint string) Result {
	p.out.close()
	res.ExitCode = -1
	var b strings.Builder
	b.WriteString(what)
	b.WriteString(" Output so far:\n")
	b.WriteString(p.out.String())
	if hint != "" {
		b.WriteString("\n" + hint)
	}
	return res.fail(b.String())
}

// seconds writes a duration as whole seconds, or milliseconds below one.
func seconds(d time.Duration) string {
	if d < time.Second {
		return fmt.Sprintf("%d ms", d.Milliseconds())
	}
	return fmt.Sprintf("%d s", int(d.Round(time.Second).Seconds()))
}
