package tools

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/devagent/dev/parser"
	"github.com/devagent/dev/textfmt"
)

// AskUser is the tool's name, as the protocol spells it.
const AskUser = "ASK_USER"

// AskUserTool puts a question to the user.
type AskUserTool struct{}

// Name implements Tool.
func (AskUserTool) Name() string { return AskUser }

// Doc implements Tool.
func (AskUserTool) Doc() Doc {
	return describe(AskUser, "ask_user", parser.InputText, ReachNothing, nil)
}

// Check implements Tool.
func (AskUserTool) Check(input string) error {
	if strings.TrimSpace(input) == "" {
		return fmt.Errorf("ASK_USER needs a question, e.g.:\n%s", AskUserTool{}.Doc().Example)
	}
	return nil
}

// Run implements Tool.
func (t AskUserTool) Run(ctx context.Context, env *Env, input string) Result {
	q := strings.TrimSpace(input)
	r := Result{Tool: AskUser, Summary: textfmt.Summary(q, 80)}
	if err := t.Check(input); err != nil {
		return r.fail(err.Error())
	}
	if !env.Interactive || env.Ask == nil {
		return r.fail("no user is available: this is an automated run. Make a reasonable assumption, state it in your Thoughts, and go on.")
	}
	answer, err := env.Ask(ctx, q)
	if err != nil && (errors.Is(err, context.Canceled) || ctx.Err() != nil) {
		// Ctrl+C instead of an answer: an interruption like any other, not
		// a failure of the tool.
		return r.fail("the user interrupted the request instead of answering.")
	}
	if err != nil {
		return r.fail(fmt.Sprintf("the question could not be asked: %v.", err))
	}
	answer = strings.TrimSpace(answer)
	if answer == "" {
		answer = "(the user gave an empty answer)"
	}
	r.OK, r.Output = true, answer
	return r
}
