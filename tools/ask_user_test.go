package tools

import (
	"context"
	"errors"
	"strings"
	"testing"
)

func TestAskUser(t *testing.T) {
	t.Parallel()
	var asked string
	interactive := &Env{Interactive: true, Ask: func(_ context.Context, q string) (string, error) {
		asked = q
		return " JWT \n", nil
	}}
	r := runTool(t, AskUserTool{}, interactive, "\nJWT or sessions?\n")
	if !r.OK || r.Output != "JWT" || asked != "JWT or sessions?" || r.Summary != "JWT or sessions?" {
		t.Errorf("%+v, asked %q", r, asked)
	}

	automated := &Env{Interactive: false, Ask: interactive.Ask}
	r = runTool(t, AskUserTool{}, automated, "JWT or sessions?")
	want := "Error: no user is available: this is an automated run. Make a reasonable assumption, state it in your Thoughts, and go on."
	if r.OK || r.Output != want {
		t.Errorf("automated: %q", r.Output)
	}

	failing := &Env{Interactive: true, Ask: func(context.Context, string) (string, error) {
		return "", errors.New("interrupted")
	}}
	if r = runTool(t, AskUserTool{}, failing, "Q?"); r.OK || r.Output != "Error: the question could not be asked: interrupted." {
		t.Errorf("failing Ask: %q", r.Output)
	}
	interrupted := &Env{Interactive: true, Ask: func(context.Context, string) (string, error) {
		return "", context.Canceled
	}}
	if r = runTool(t, AskUserTool{}, interrupted, "Q?"); r.OK || r.Output != "Error: the user interrupted the request instead of answering." {
		t.Errorf("interrupted Ask: %q", r.Output)
	}
	empty := &Env{Interactive: true, Ask: func(context.Context, string) (string, error) { return "  ", nil }}
	if r = runTool(t, AskUserTool{}, empty, "Q?"); !r.OK || r.Output != "(the user gave an empty answer)" {
		t.Errorf("empty answer: %q", r.Output)
	}
	if err := (AskUserTool{}).Check(" \n"); err == nil || !strings.HasPrefix(err.Error(), "ASK_USER needs a question") {
		t.Errorf("Check = %v", err)
	}
}
