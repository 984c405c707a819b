package tools

import (
	"context"
	"errors"
	"fmt"
	"slices"
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
	if _, err := (AskUserTool{}).Check(" \n"); err == nil || !strings.HasPrefix(err.Error(), "ASK_USER needs a question") {
		t.Errorf("Check = %v", err)
	}
}

// Several questions in one reply are numbered; one asked again is not
// asked again.
func TestQuestionsOfOneReply(t *testing.T) {
	t.Parallel()
	var asked []string
	env := &Env{Interactive: true, Ask: func(_ context.Context, q string) (string, error) {
		asked = append(asked, q)
		return fmt.Sprintf("answer %d", len(asked)), nil
	}}
	inputs := []string{"Which name?", "Which colour?", "  which   NAME? ", "Which name?"}
	in := env.Questions(inputs)
	var got []string
	for _, q := range inputs {
		got = append(got, runTool(t, AskUserTool{}, in, q).Output)
	}
	if want := []string{"Question 1 of 2: Which name?", "Question 2 of 2: Which colour?"}; !slices.Equal(asked, want) {
		t.Errorf("asked %q, want %q", asked, want)
	}
	if want := []string{"answer 1", "answer 2", "answer 1", "answer 1"}; !slices.Equal(got, want) {
		t.Errorf("answers %q, want %q", got, want)
	}
	// One question is asked as it is.
	asked = nil
	if e := env.Questions([]string{"Which name?"}); e != env {
		t.Error("one question changed the env")
	}
	// The same question four times is asked once, without a number.
	in = env.Questions([]string{"Why?", "Why?", "Why?", "Why?"})
	for range 4 {
		runTool(t, AskUserTool{}, in, "Why?")
	}
	if !slices.Equal(asked, []string{"Why?"}) {
		t.Errorf("asked %q, want once", asked)
	}
}
