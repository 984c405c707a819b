package app

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/aymanbagabas/go-udiff"

	"github.com/devagent/dev/guard"
	"github.com/devagent/dev/tools"
)

// The approval modes of SPEC §13: whether a command or a file change needs
// the user's yes is guard's decision; asking (or refusing under -p) is
// here.

// approve is tools.Env.Approve: it lets through what needs no approval,
// refuses under -p what would need one, and asks the user otherwise.
func (a *App) approve(ctx context.Context, act tools.Action) tools.Verdict {
	command := act.Command != ""
	// "Always" remembers exactly what was allowed: a command line, a file,
	// or an MCP call with its input.
	always := act.Command
	need := a.approvals.EditNeedsApproval(act.Abs)
	what := "this change to " + act.Path
	switch {
	case act.MCP:
		// allowCommands names MCP tools as it names commands.
		always = act.Command + " " + act.Input
		need = a.approvals.Mode != guard.Auto && !a.approvals.Allow.Allows(act.Command) && !a.approvals.Always.Command(always)
		what = "the MCP call " + act.Command
	case command:
		need = a.approvals.CommandNeedsApproval(act.Command)
		what = "the command `" + act.Command + "`"
	}
	if a.initRun {
		var refused string
		if need, refused = a.initApproval(act); refused != "" {
			return tools.Verdict{Why: refused}
		}
	}
	if !need {
		return tools.Verdict{Allowed: true}
	}
	if a.opts.Automated || (a.opts.Ask == nil && a.opts.Approve == nil) {
		return tools.Verdict{Why: fmt.Sprintf("%s needs the user's approval (approval: %s), and in an unattended run (-p) nobody can give it, so it is not allowed. "+
			"Do without it, or say in your DONE summary what the user should do.", what, a.approvals.Mode)}
	}
	answer, err := a.askApproval(ctx, act)
	if err != nil {
		if errors.Is(err, context.Canceled) || ctx.Err() != nil {
			return tools.Verdict{Why: "the user interrupted the question about " + what + "."}
		}
		return tools.Verdict{Why: "the user could not be asked about " + what + ": " + err.Error()}
	}
	if answer.Allow {
		if answer.Always && command {
			a.approvals.Always.AllowCommand(always)
		} else if answer.Always {
			a.approvals.Always.AllowFile(act.Abs)
		}
		return tools.Verdict{Allowed: true}
	}
	why := "the user did not allow " + what + "."
	if reason := strings.TrimSpace(answer.Reason); reason != "" {
		why += " Their reason: " + reason
	}
	return tools.Verdict{Why: why}
}

// Approval is what the user is asked to allow, for a client that shows
// the action itself (an editor's permission dialog with the command, or
// the file's old and new text) rather than the question's text.
type Approval struct {
	Action tools.Action
	// Question is the question as the terminal asks it.
	Question string
}

// Answer is the user's answer to an Approval.
type Answer struct {
	Allow bool
	// Always allows this exact command (or MCP call), or changes to this
	// file, for the rest of the session.
	Always bool
	// Reason is why not, told to the model when not allowed.
	Reason string
}

// askApproval asks the user about act: through Approve when the client
// shows actions itself, else with the question's text through Ask, whose
// answer is y, n (a reason may follow) or a.
func (a *App) askApproval(ctx context.Context, act tools.Action) (Answer, error) {
	// Shown masked, as all the model's text (SPEC §13); what runs is the
	// command as written.
	shown := act
	for _, s := range []*string{&shown.Command, &shown.Input, &shown.Old, &shown.New} {
		*s = a.redactor.Redact(*s)
	}
	if a.opts.Approve != nil {
		return a.opts.Approve(ctx, Approval{Action: shown, Question: question(shown)})
	}
	text, err := a.opts.Ask(ctx, question(shown))
	if err != nil {
		return Answer{}, err
	}
	reply, reason, _ := strings.Cut(strings.TrimSpace(text), " ")
	switch strings.ToLower(reply) {
	case "y", "yes":
		return Answer{Allow: true}, nil
	case "a", "always":
		return Answer{Allow: true, Always: true}, nil
	}
	return Answer{Reason: reason}, nil
}

// question shows what the user is asked to allow: the command, or the
// diff of the change as it will be written.
func question(act tools.Action) string {
	if act.MCP {
		return fmt.Sprintf("Call the MCP tool %s with this input?\n  %s\n[y]es, [n]o (a reason may follow), [a]lways this exact call", act.Command, act.Input)
	}
	if act.Command != "" {
		return fmt.Sprintf("Run this command?\n  %s\n[y]es, [n]o (a reason may follow: n use make), [a]lways this exact command", strings.ReplaceAll(act.Command, "\n", "\n  "))
	}
	old := "a/" + act.Path
	if !act.Existed {
		old = "/dev/null"
	}
	diff := udiff.Unified(old, "b/"+act.Path, act.Old, act.New)
	if diff == "" {
		diff = "(no change to its content)\n"
	}
	verb := "Change"
	if !act.Existed {
		verb = "Create"
	}
	return fmt.Sprintf("%s %s?\n%s[y]es, [n]o (a reason may follow), [a]lways for this file", verb, act.Path, diff)
}

// newApprovals is the approval policy of the settings; "always" answers
// last for the process.
func newApprovals(mode string, allow []string) (guard.Approvals, error) {
	list, err := guard.NewAllow(allow)
	if err != nil {
		return guard.Approvals{}, fmt.Errorf("allowCommands: %w", err)
	}
	return guard.Approvals{Mode: guard.Mode(mode), Allow: list, Always: &guard.Always{}}, nil
}
