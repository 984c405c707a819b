package ui

import (
	"strings"
	"testing"

	"github.com/devagent/dev/event"
)

// While a question waits the live part is gone and stays gone: the ticker
// draws nothing. Once answered, the command asked about shows again,
// timed from the answer.
func TestQuestionStopsTheLivePart(t *testing.T) {
	t.Parallel()
	for _, escapes := range []bool{true, false} {
		var buf syncBuffer
		term := liveTerminal(&buf, escapes)
		term.Emit(event.ToolStarted{Agent: event.Worker, Tool: "COMMAND", Input: "ls -la"})
		before := buf.String()
		answered := term.Question()
		erased := strings.TrimPrefix(buf.String(), before)
		if strings.Contains(erased, "ls -la") || erased == "" {
			t.Errorf("escapes %v: the live part is not erased for the question: %q", escapes, erased)
		}
		asked := buf.String()
		term.redraw() // what the ticker would do
		if drawn := strings.TrimPrefix(buf.String(), asked); drawn != "" {
			t.Errorf("escapes %v: drawn while the question waits: %q", escapes, drawn)
		}
		answered()
		if drawn := strings.TrimPrefix(buf.String(), asked); !strings.Contains(drawn, "ls -la 0s") {
			t.Errorf("escapes %v: the command does not show again once answered: %q", escapes, drawn)
		}
		term.Emit(event.ToolFinished{Agent: event.Worker, Input: "ls -la"})
	}
	// A question while nothing is live (ASK_USER) leaves it so.
	var buf syncBuffer
	term := liveTerminal(&buf, true)
	term.Question()()
	if buf.String() != "" {
		t.Errorf("drawn around a question with no live part: %q", buf.String())
	}
}

// A server that sends only keep-alives while it processes a long prompt is
// said to be there, with how long ago it last was: the user can decide to
// wait (SPEC §10; issue 22's break 8).
func TestKeepAlivesShowTheServerIsThere(t *testing.T) {
	t.Parallel()
	var buf syncBuffer
	term := liveTerminal(&buf, false)
	term.Emit(event.RequestStarted{Agent: event.Worker, Step: 1})
	if !strings.Contains(buf.String(), "Waiting for the model...") {
		t.Fatalf("waiting: %q", buf.String())
	}
	term.Emit(event.ServerAlive{Agent: event.Worker})
	term.redraw()
	if got := buf.String(); !strings.Contains(got, "⠋ Server working on the prompt... 0s · alive 0s ago") {
		t.Errorf("after a keep-alive: %q", got)
	}
	mark := len(buf.String())
	term.Emit(event.Streaming{Agent: event.Worker, Content: "# Agent Response\n", Chunks: 1, Tokens: 3, Estimated: true})
	term.redraw()
	if got := buf.String()[mark:]; strings.Contains(got, "alive") || !strings.Contains(got, "Thinking...") {
		t.Errorf("once the reply streams: %q", got)
	}
	term.Emit(event.ReplyParsed{Agent: event.Worker})
}
