package tools

// COMMAND's runs, the custom tools' and the auditor's: the checks of SPEC
// §13 before, bgproc.Foreground to run, and the result's text after.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/devagent/dev/bgproc"
	"github.com/devagent/dev/capture"
	"github.com/devagent/dev/textfmt"
)

const (
	// defaultCommandTimeout applies when Env.CommandTimeout is not set.
	defaultCommandTimeout = 30 * time.Second
	// killGrace is how long a stopped command may take to exit after TERM
	// before its process group is killed.
	killGrace = bgproc.DefaultGrace
)

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
	timeout time.Duration // 0 means Env.CommandTimeout
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

// runCommand runs j in the foreground (bgproc.Foreground) and says what
// came of it. SPEC §13 decides first, for every command alike: a denied
// command, or one the user did not approve, never starts.
func runCommand(ctx context.Context, env *Env, j job) Result {
	summary := j.summary
	if summary == "" {
		summary = j.command
	}
	res := Result{Tool: j.tool, Summary: textfmt.Summary(summary, 80), Command: j.command, ExitCode: -1}
	if j.argv != nil && len(j.argv) == 0 {
		return res.fail("the command is empty.")
	}
	if err := env.CheckCommand(j.command); err != nil {
		return res.refuse(err.Error() + ".")
	}
	if v := env.approve(ctx, Action{Tool: j.tool, Command: j.command, Input: j.input}); !v.Allowed {
		return res.refuse(v.Why)
	}
	// exec blames the shell when the directory is missing; name the cause.
	if info, err := os.Stat(env.Dir); env.Dir != "" && (err != nil || !info.IsDir()) {
		return res.fail(fmt.Sprintf("cannot run the command: the working directory %s is missing or not a directory.", env.Dir))
	}
	fg := bgproc.Foreground{Timeout: env.CommandTimeout, Grace: killGrace, Background: env.Background,
		Sandbox: env.Sandbox, Groups: env.Groups, Live: env.Live}
	if fg.Timeout <= 0 {
		fg.Timeout = defaultCommandTimeout
	}
	if j.timeout > 0 {
		fg.Timeout = j.timeout
	}
	if j.background {
		fg.Timeout = backgroundStart
	}
	out := capture.New(env.OutputDir, env.Spills)
	ended, err := fg.Run(ctx, bgproc.Command{Line: j.command, Argv: j.argv, Dir: env.Dir, Stdin: j.stdin, Env: j.env}, out)
	out.Close()
	if err != nil {
		return res.fail(fmt.Sprintf("cannot start the command: %v.", err))
	}
	switch ended.How {
	case bgproc.Finished:
		res = finished(ended.Process, out, res)
		if j.background {
			res.Output += fmt.Sprintf("\nIt ended within its first %s, so it did not go on in the background.", seconds(fg.Timeout))
		}
		return res
	case bgproc.Interrupted:
		return stopped(out, res, "Command interrupted by the user; it was stopped (its whole process group).", "")
	case bgproc.Adopted:
		return adopted(ended.Info, out, res, fg.Timeout, j.background)
	}
	return stopped(out, res,
		fmt.Sprintf("Command timed out after %s; it was stopped (its whole process group).", seconds(fg.Timeout)),
		"Run long-lived processes (servers, watchers) in the background with their output in a file, e.g. `nohup npm run dev > dev.log 2>&1 &`, then read the file; split long jobs into shorter commands.")
}

func finished(p *bgproc.Process, out *capture.Output, res Result) Result {
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

// adopted says that the command went on in the background as info, with
// what it printed in the foreground; asked: it ended with `&`.
func adopted(info bgproc.Info, out *capture.Output, res Result, timeout time.Duration, asked bool) Result {
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

func stopped(out *capture.Output, res Result, what, hint string) Result {
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
