package tools

import (
	"context"
	"errors"
	"fmt"
	"slices"
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

// readQuestion reads ASK_USER's input: the question.
func readQuestion(input string) (string, error) {
	if q := strings.TrimSpace(input); q != "" {
		return q, nil
	}
	return "", fmt.Errorf("ASK_USER needs a question, e.g.:\n%s", AskUserTool{}.Doc().Example)
}

// Check implements Tool.
func (t AskUserTool) Check(input string) (Checked, error) {
	return Bind(input, readQuestion, t.run)
}

func (AskUserTool) run(ctx context.Context, env *Env, q string) Result {
	r := Result{Tool: AskUser, Summary: textfmt.Summary(q, 80)}
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

// Questions is env for the tools of one reply whose ASK_USER inputs are
// questions, in order: several questions are put to the user as
// "Question 1 of 3: …", and a question asked again in the same reply (the
// same words, case and spacing aside) is not asked again: it gets the
// first one's answer. With one question, env itself.
func (e *Env) Questions(questions []string) *Env {
	var distinct []string
	for _, q := range questions {
		if k := questionKey(q); k != "" && !slices.Contains(distinct, k) {
			distinct = append(distinct, k)
		}
	}
	if e == nil || e.Ask == nil || len(questions) < 2 {
		return e
	}
	ask, answers := e.Ask, map[string]string{}
	in := *e
	in.Ask = func(ctx context.Context, question string) (string, error) {
		k := questionKey(question)
		if answer, ok := answers[k]; ok {
			return answer, nil
		}
		shown := question
		if n := len(distinct); n > 1 {
			shown = fmt.Sprintf("Question %d of %d: %s", slices.Index(distinct, k)+1, n, question)
		}
		answer, err := ask(ctx, shown)
		if err == nil {
			answers[k] = answer
		}
		return answer, err
	}
	return &in
}

// questionKey is what tells two questions apart: their words, in lower
// case.
func questionKey(q string) string { return strings.Join(strings.Fields(strings.ToLower(q)), " ") }
