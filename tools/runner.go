package tools

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/devagent/dev/bgproc"
	"github.com/devagent/dev/textfmt"
)

const (
	// defaultCommandTimeout applies when Env.CommandTimeout is not set.
	defaultCommandTimeout = 30 * time.Second
	// killGrace is how long a stopped command may take to exit after TERM
	// before its process group is killed.
	killGrace = bgproc.DefaultGrace
	// pipeGrace is how long, after the command exits, its output is still
	// read while a process it left behind holds the pipe open. What the
	// command printed before it exited is in the pipe already, but the
	// goroutine copying it may wait for a core: on a loaded machine 250 ms
	// lost a command's whole output (TestCommandResults, once in CI-like
	// load), so a second.
	pipeGrace = time.Second
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

// job is one command for the runner: COMMAND's, a custom tool's, or an
// audit command run as an argument vector.
type job struct {
	tool    string // the tool the result is of
	command string // the command as written: run by the shell, checked, shown
	// argv, when set, is run as a program and its arguments, without a
	// shell; command is then only how the caller wrote it.
	argv []string
	// stdin is the command's input ("" for COMMAND: stdin is empty) and env
	// what is added to its environment.
	stdin   string
	env     []string
	summary string        // for display; "" means the command
	timeout time.Duration // 0 means the runner's
	input   string        // the tool's input as the model wrote it
	// background: the command ended with a lone `&` (a server, a
	// watcher), which was taken off: it goes to the background after
	// backgroundStart, as if it had outlived the timeout.
	background bool
}

// backgroundStart is how long a command written to run in the background
// (`npm run dev &`) runs in the foreground first, for the result to show
// how it started.
const backgroundStart = time.Second

// startProcess starts the job's command (the platform shell with its
// command line, or its program and arguments) in dir, in its own process
// group without a terminal, stdin the job's (empty for COMMAND), stdout and
// stderr into one bgproc output (so that their order is kept) mirrored to
// out until the command is handed to the background. A sandbox, when
// given, confines the process and everything it starts.
func startProcess(dir string, j job, sandbox Sandbox, out io.Writer) (*bgproc.Process, error) {
	cmd := shellCommand(j.command)
	if j.argv != nil {
		cmd = programCommand(j.argv)
	}
	cmd.Dir = dir
	// exec keeps the last value of a repeated variable, so these win.
	cmd.Env = append(append(os.Environ(), nonInteractive...), j.env...)
	if j.stdin != "" {
		cmd.Stdin = strings.NewReader(j.stdin)
	}
	// The command is finished when the shell exits, even if a child it left
	// in the background still holds the pipe: Wait stops reading then.
	cmd.WaitDelay = pipeGrace
	if sandbox != nil {
		if err := sandbox.Wrap(cmd); err != nil {
			return nil, err
		}
	}
	return bgproc.Start(cmd, out)
}

// runner runs commands in the foreground. What becomes of a command that
// outlives the timeout is decided in one place, timedOut: it is handed to
// the background manager, or stopped when there is none.
type runner struct {
	env        *Env // for the checks of SPEC §13
	dir        string
	outputDir  string
	spills     *Spills // nil: saved output is neither masked nor counted
	timeout    time.Duration
	grace      time.Duration
	background Background // nil: commands past the timeout are stopped
	sandbox    Sandbox    // nil: not confined
	groups     Groups     // nil: not recorded
	live       func([]byte)
}

func newRunner(env *Env) *runner {
	r := &runner{env: env, dir: env.Dir, outputDir: env.OutputDir, spills: env.Spills, timeout: env.CommandTimeout, grace: killGrace,
		background: env.Background, sandbox: env.Sandbox, groups: env.Groups, live: env.Live}
	if r.timeout <= 0 {
		r.timeout = defaultCommandTimeout
	}
	return r
}

// run runs j in the foreground until it exits, is interrupted, or outlives
// its timeout. SPEC §13 decides first, for every command alike: a denied
// command, or one the user did not approve, never starts.
func (r *runner) run(ctx context.Context, j job) Result {
	summary := j.summary
	if summary == "" {
		summary = j.command
	}
	res := Result{Tool: j.tool, Summary: textfmt.Summary(summary, 80), Command: j.command, ExitCode: -1}
	if j.argv != nil && len(j.argv) == 0 {
		return res.fail("the command is empty.")
	}
	if err := r.env.CheckCommand(j.command); err != nil {
		return res.refuse(err.Error() + ".")
	}
	if v := r.env.approve(ctx, Action{Tool: j.tool, Command: j.command, Input: j.input}); !v.Allowed {
		return res.refuse(v.Why)
	}
	// exec blames the shell when the directory is missing; name the cause.
	if info, err := os.Stat(r.dir); r.dir != "" && (err != nil || !info.IsDir()) {
		return res.fail(fmt.Sprintf("cannot run the command: the working directory %s is missing or not a directory.", r.dir))
	}
	timeout := r.timeout
	if j.timeout > 0 {
		timeout = j.timeout
	}
	if j.background {
		timeout = backgroundStart
	}
	out := newOutput(r.outputDir, r.spills)
	if r.groups != nil {
		j.env = append(j.env, r.groups.Env()...)
	}
	var mirror io.Writer = out
	if r.live != nil {
		mirror = io.MultiWriter(out, liveWriter(r.live))
	}
	p, err := startProcess(r.dir, j, r.sandbox, mirror)
	if err != nil {
		return res.fail(fmt.Sprintf("cannot start the command: %v.", err))
	}
	if r.groups != nil {
		// Best effort: what a command started carries the mark too, which
		// is how a dev killed before this line is cleaned up after.
		_ = r.groups.Record(p.PID())
	}
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case <-p.Done():
		res = r.finished(p, out, res)
		if j.background {
			res.Output += fmt.Sprintf("\nIt ended within its first %s, so it did not go on in the background.", seconds(timeout))
		}
		return res
	case <-ctx.Done():
		p.Stop(r.grace)
		return r.stopped(out, res, "Command interrupted by the user; it was stopped (its whole process group).", "")
	case <-timer.C:
		return r.timedOut(p, out, res, timeout, j.background)
	}
}

func (r *runner) finished(p *bgproc.Process, out *output, res Result) Result {
	out.close()
	res.ExitCode = p.ExitCode()
	var b strings.Builder
	switch {
	case res.ExitCode == 0:
		res.OK = true
		b.WriteString("Command succeeded (exit code 0).\n")
	case res.ExitCode > 0:
		fmt.Fprintf(&b, "Command failed (exit code %d).\n", res.ExitCode)
	default:
		fmt.Fprintf(&b, "Command ended without an exit code (%s).\n", p.State())
	}
	b.WriteString(out.String())
	if errors.Is(p.WaitErr(), exec.ErrWaitDelay) {
		b.WriteString("\nNote: a process the command started in the background still holds its output open; what it prints from now on is not captured.")
	}
	res.Output = b.String()
	return res
}

// timedOut decides the fate of a command still running after the timeout:
// the background manager takes it over, output and all; without one (or
// when it is shutting down) it is stopped.
func (r *runner) timedOut(p *bgproc.Process, out *output, res Result, timeout time.Duration, asked bool) Result {
	if r.background != nil {
		// From here on the output goes to the manager only: the foreground
		// record holds bytes [0, seen), the manager serves what follows.
		seen := p.Output().Detach()
		if info, err := r.background.Adopt(p, res.Command, seen); err == nil {
			out.close()
			res.OK = true
			res.Attrs = append(res.Attrs, [2]string{"background", info.ID})
			started := fmt.Sprintf("Command still running after %s: it goes on in the background as %s. Output so far:", seconds(timeout), info.ID)
			if asked {
				started = fmt.Sprintf("Started in the background as %s (the command ends with &). Its output in the first %s:", info.ID, seconds(timeout))
			}
			res.Output = fmt.Sprintf("%s\n%s\n%s %s shows what it prints next and whether it ended; %s %s stops it.",
				started, out.String(), ReadBackground, info.ID, KillBackground, info.ID)
			return res
		}
		// Not taken (dev is exiting): stop it, keeping what came since.
		p.Stop(r.grace)
		_, _ = out.Write(p.Output().ReadFrom(seen).Data)
	} else {
		p.Stop(r.grace)
	}
	return r.stopped(out, res,
		fmt.Sprintf("Command timed out after %s; it was stopped (its whole process group).", seconds(timeout)),
		"Run long-lived processes (servers, watchers) in the background with their output in a file, e.g. `nohup npm run dev > dev.log 2>&1 &`, then read the file; split long jobs into shorter commands.")
}

func (r *runner) stopped(out *output, res Result, what, hint string) Result {
	out.close()
	res.ExitCode = -1
	var b strings.Builder
	b.WriteString(what)
	b.WriteString(" Output so far:\n")
	b.WriteString(out.String())
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

// liveWriter passes a command's output to Env.Live; it never fails, so the
// command's own record of its output never misses a byte.
type liveWriter func([]byte)

func (f liveWriter) Write(p []byte) (int, error) {
	f(p)
	return len(p), nil
}
