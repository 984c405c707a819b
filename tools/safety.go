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
	d := guard.Builtin()
	if e != nil && e.Deny != nil {
		d = e.Deny
	}
	err := d.Check(line)
	var unreadable *shell.Error
	if !posixShell && errors.As(err, &unreadable) {
		return nil
	}
	return err
}

// RunArgs runs a program with its arguments (argv, without a shell) the
// way COMMAND runs a command line: in env's directory, in its own process
// group, with the same output caps, full-output file, timeout, background
// hand-over and sandbox. extraEnv is added to the environment. command is
// the line as the caller got it; the deny rules are checked on it first.
func RunArgs(ctx context.Context, env *Env, command string, argv, extraEnv []string) Result {
	return runCommand(ctx, env, job{tool: Command, command: command, argv: nonNil(argv), env: extraEnv})
}

// refuse marks r as refused: nothing was done, for the reason given.
func (r Result) refuse(msg string) Result {
	r.OK = false
	r.Output = "Refused: " + msg
	return r
}

// Masked returns r with mask (e.g. redact.Redactor.Redact) applied to all
// its text that leaves dev: output, summary, attribute values, command and
// files. The loop calls it once on every result, before the result is
// emitted, stored or sent, so that all of them see the same text.
func (r Result) Masked(mask func(string) string) Result {
	if mask == nil {
		return r
	}
	r.Output, r.Summary, r.Command = mask(r.Output), mask(r.Summary), mask(r.Command)
	if r.Attrs != nil {
		attrs := make([][2]string, len(r.Attrs))
		for i, a := range r.Attrs {
			attrs[i] = [2]string{a[0], mask(a[1])}
		}
		r.Attrs = attrs
	}
	if r.Files != nil {
		files := make([]string, len(r.Files))
		for i, f := range r.Files {
			files[i] = mask(f)
		}
		r.Files = files
	}
	return r
}

// nonNil keeps an empty argument vector apart from none.
func nonNil(argv []string) []string {
	if argv == nil {
		return []string{}
	}
	return argv
}
