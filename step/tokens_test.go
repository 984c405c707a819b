package step

import (
	"context"
	"testing"

	"github.com/devagent/dev/event"
	"github.com/devagent/dev/llm"
)

// streamer streams its reply in the given pieces.
type streamer struct {
	pieces []string
	usage  *llm.Usage
}

func (s streamer) Stream(_ context.Context, _ llm.Request, onDelta func(llm.Delta)) (llm.Reply, error) {
	content := ""
	for _, p := range s.pieces {
		onDelta(llm.Delta{Content: p})
		content += p
	}
	return llm.Reply{Content: content, FinishReason: "stop", Usage: s.usage}, nil
}

// While a reply streams, the token count is an estimate from its
// characters, not the number of pieces; once it is whole, the server's
// count wins when there is one.
func TestTokensOfAReply(t *testing.T) {
	t.Parallel()
	pieces := []string{"# Agent Response\n\n", "## Thoughts\n", "a thought of forty characters or so....\n"}
	for _, tt := range []struct {
		name      string
		usage     *llm.Usage
		in, out   int
		estimated bool
	}{
		{"server count", &llm.Usage{PromptTokens: 1234, CompletionTokens: 56, TotalTokens: 1290}, 1234, 56, false},
		{"estimate", nil, 3, 18, true}, // "SYSTEM"+"do it" is 11 characters; the reply 71
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, rec := conversation()
			c.System = "SYSTEM"
			c.Append(llm.Message{Role: llm.RoleUser, Content: "do it"})
			c.Model = streamer{pieces: pieces, usage: tt.usage}
			if _, err := c.Request(context.Background(), 1); err != nil {
				t.Fatal(err)
			}
			var streamed []event.Streaming
			var got []event.ReplyReceived
			for _, e := range rec.events {
				switch e := e.(type) {
				case event.Streaming:
					streamed = append(streamed, e)
				case event.ReplyReceived:
					got = append(got, e)
				}
			}
			if len(streamed) != 3 {
				t.Fatalf("%d streaming events", len(streamed))
			}
			last := streamed[2]
			if last.Chunks != 3 || last.Tokens != 18 || !last.Estimated || streamed[0].Tokens != 5 {
				t.Errorf("streaming: %+v, first %d tokens", last, streamed[0].Tokens)
			}
			want := event.ReplyReceived{Agent: event.Auditor, PromptTokens: tt.in, CompletionTokens: tt.out, Estimated: tt.estimated}
			if len(got) != 1 || got[0] != want {
				t.Errorf("reply events %+v, want %+v", got, want)
			}
		})
	}
}
