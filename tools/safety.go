package tools

import (
	"context"
	"errors"

	"github.com/devagent/dev/guard"
	"github.com/devagent/dev/shell"
)

// CheckCommand returns why a command line may not start under env's deny
// rules, or nil: a *guard.Refusal naming the rule, or a *shell.Error when
// the line cannot be read as shell and so cannot be vetted. COMMAND, the
// audit and custom tools call it before starting anything.
func (e *Env) CheckCommand(line string) error {
	d := e.Deny
	if d == nil {
		d = guard.Builtin()
	}
	err := d.Check(line)
	var unreadable *shell.Error
	if !posixShell && errors.As(err, &unreadable) {
		return nil
	}
	return err
}

// RefusedCommand is the result of a command that was not started, and why.
func RefusedCommand(command string, why error) Result {
	return Result{Tool: Command, Summary: oneLine(command, 80), Command: command, ExitCode: -1}.refuse(why.Error() + ".")
}

// RunArgs runs a program with its arguments (argv, without a shell) the
// way COMMAND runs a command line: in env's directory, in its own process
// group, with the same output caps, full-output file, timeout, background
// hand-over and sandbox. extraEnv is added to the environment. command is
// the line as the caller got it; the deny rules are checked on it first.
func RunArgs(ctx context.Context, env *Env, command string, argv, extraEnv []string) Result {
	if err := env.CheckCommand(command); err != nil {
		return RefusedCommand(command, err)
	}
	return newRunner(env).runArgs(ctx, command, argv, extraEnv)
}

// refuse marks r as refused: nothing was done, for the reason given.
func (r Result) refuse(msg string) Result {
	r.OK = false
	r.Output = "Refused: " + msg
	return r
}
