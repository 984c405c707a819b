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

// startProcess runs command through the platform shell in dir, in its own
// process group without a terminal, stdin empty, stdout and stderr into one
// bgproc output (so that their order is kept) mirrored to out until the
// command is handed to the background.
func startProcess(dir, command string, out io.Writer) (*bgproc.Process, error) {
	cmd := shellCommand(command)
	cmd.Dir = dir
	// exec keeps the last value of a repeated variable, so these win.
	cmd.Env = append(os.Environ(), nonInteractive...)
	// The command is finished when the shell exits, even if a child it left
	// in the background still holds the pipe: Wait stops reading then.
	cmd.WaitDelay = pipeGrace
	return bgproc.Start(cmd, out)
}

// runner runs commands in the foreground. What becomes of a command that
// outlives the timeout is decided in one place, timedOut: it is handed to
// the background manager, or stopped when there is none.
type runner struct {
	dir        string
	outputDir  string
	timeout    time.Duration
	grace      time.Duration
	background Background // nil: commands past the timeout are stopped
	live       func([]byte)
}

func newRunner(env *Env) *runner {
	r := &runner{dir: env.Dir, outputDir: env.OutputDir, timeout: env.CommandTimeout, grace: killGrace, background: env.Background, live: env.Live}
	if r.timeout <= 0 {
		r.timeout = defaultCommandTimeout
	}
	return r
}

func (r *runner) run(ctx context.Context, command string) Result {
	res := Result{Tool: Command, Summary: textfmt.Summary(command, 80), Command: command, ExitCode: -1}
	// exec blames the shell when the directory is missing; name the cause.
	if info, err := os.Stat(r.dir); r.dir != "" && (err != nil || !info.IsDir()) {
		return res.fail(fmt.Sprintf("cannot run the command: the working directory %s is missing or not a directory.", r.dir))
	}
	out := newOutput(r.outputDir)
	var mirror io.Writer = out
	if r.live != nil {
		mirror = io.MultiWriter(out, liveWriter(r.live))
	}
	p, err := startProcess(r.dir, command, mirror)
	if err != nil {
		return res.fail(fmt.Sprintf("cannot start the command: %v.", err))
	}
	timer := time.NewTimer(r.timeout)
	defer timer.Stop()
	select {
	case <-p.Done():
		return r.finished(p, out, res)
	case <-ctx.Done():
		p.Stop(r.grace)
		return r.stopped(out, res, "Command interrupted by the user; it was stopped (its whole process group).", "")
	case <-timer.C:
		return r.timedOut(p, out, res)
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
func (r *runner) timedOut(p *bgproc.Process, out *output, res Result) Result {
	if r.background != nil {
		// From here on the output goes to the manager only: the foreground
		// record holds bytes [0, seen), the manager serves what follows.
		seen := p.Output().Detach()
		if info, err := r.background.Adopt(p, res.Command, seen); err == nil {
			out.close()
			res.OK = true
			res.Attrs = append(res.Attrs, [2]string{"background", info.ID})
			res.Output = fmt.Sprintf("Command still running after %s: it goes on in the background as %s. Output so far:\n%s\n"+
				"%s %s shows what it prints next and whether it ended; %s %s stops it.",
				seconds(r.timeout), info.ID, out.String(), ReadBackground, info.ID, KillBackground, info.ID)
			return res
		}
		// Not taken (dev is exiting): stop it, keeping what came since.
		p.Stop(r.grace)
		_, _ = out.Write(p.Output().ReadFrom(seen).Data)
	} else {
		p.Stop(r.grace)
	}
	return r.stopped(out, res,
		fmt.Sprintf("Command timed out after %s; it was stopped (its whole process group).", seconds(r.timeout)),
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
