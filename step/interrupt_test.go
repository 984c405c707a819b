package step

import (
	"context"
	"testing"

	"github.com/devagent/dev/event"
	"github.com/devagent/dev/llm"
	"github.com/devagent/dev/redact"
)

// halfway streams its pieces, then the user interrupts the reply.
type halfway struct {
	pieces    []llm.Delta
	interrupt func()
}

func (h halfway) Stream(ctx context.Context, _ llm.Request, onDelta func(llm.Delta)) (llm.Reply, error) {
	for _, d := range h.pieces {
		onDelta(d)
	}
	h.interrupt()
	<-ctx.Done()
	return llm.Reply{}, ctx.Err()
}

// A reply interrupted while it streams is kept in the request records,
// marked interrupted, its reasoning out and secrets masked, and told to
// the renderers; the history, which the model reads, gets nothing of it.
func TestInterruptedReplyIsKept(t *testing.T) {
	t.Parallel()
	c, rec := conversation()
	c.Append(llm.Message{Role: llm.RoleUser, Content: "do it"})
	c.Secrets = redact.New([]string{"DEV_PASSWORD=hunter2hunter2"}, "")
	ctx, cancel := context.WithCancel(context.Background())
	c.Model = halfway{interrupt: cancel, pieces: []llm.Delta{
		{Reasoning: "thinking hard"},
		{Content: "<think>more</think># Agent Response\n\n## Thoughts\n"},
		{Content: "The password is hunter2hunter2, and"},
	}}
	if _, err := c.Request(ctx, 1); err == nil {
		t.Fatal("an interrupted request succeeded")
	}
	if len(c.State.History) != 1 {
		t.Errorf("the partial reply entered the history: %+v", c.State.History)
	}
	if len(c.State.Requests) != 1 {
		t.Fatalf("%d request records, want 1", len(c.State.Requests))
	}
	r := c.State.Requests[0]
	want := "# Agent Response\n\n## Thoughts\nThe password is [REDACTED:$DEV_PASSWORD], and"
	if !r.Interrupted || r.Partial != want || !r.Estimated || r.CompletionTokens == 0 || r.Purpose != "audit" {
		t.Errorf("record %+v", r)
	}
	var told []event.ReplyInterrupted
	for _, e := range rec.events {
		if e, ok := e.(event.ReplyInterrupted); ok {
			told = append(told, e)
		}
	}
	if len(told) != 1 || told[0].Content != want {
		t.Errorf("events %+v", told)
	}
}
