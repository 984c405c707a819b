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
