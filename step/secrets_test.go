package step

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/devagent/dev/llm"
	"github.com/devagent/dev/redact"
	"github.com/devagent/dev/tools"
)

// streamed streams its replies in pieces of 5 bytes, reasoning first.
type streamed struct{ replies []llm.Reply }

func (s *streamed) Stream(_ context.Context, _ llm.Request, onDelta func(llm.Delta)) (llm.Reply, error) {
	r := s.replies[0]
	s.replies = s.replies[1:]
	for _, part := range []struct{ text, field string }{{r.Reasoning, "reasoning"}, {r.Content, "content"}} {
		for i := 0; i < len(part.text); i += 5 {
			piece := part.text[i:min(len(part.text), i+5)]
			if part.field == "reasoning" {
				onDelta(llm.Delta{Reasoning: piece})
			} else {
				onDelta(llm.Delta{Content: piece})
			}
		}
	}
	r.FinishReason = "stop"
	return r, nil
}

// ran keeps the input its tool ran with.
type ran struct{ input *string }

func (ran) Name() string   { return "ECHO" }
func (ran) Doc() tools.Doc { return tools.Doc{Name: "ECHO"} }
func (r ran) Check(input string) (tools.Checked, error) {
	return tools.Bind(input, tools.AsWritten, r.Run)
}
func (r ran) Run(_ context.Context, _ *tools.Env, input string) tools.Result {
	*r.input = input
	return tools.Result{Tool: "ECHO", OK: true, Output: "ran"}
}

// The model's own text is masked wherever the conversation stores or
// shows it (issue 30): a rejected reply, reasoning and content as they
// stream, thoughts, tasks, tool inputs; the tool runs with its input as
// the model wrote it.
func TestModelTextIsStoredAndShownMasked(t *testing.T) {
	t.Parallel()
	const secret = "tok-Q7v2Lx9pR4mW8kT3"
	gh := "ghp_" + strings.Repeat("a1B2", 9)
	says := "the token " + secret + " and the key " + gh
	c, rec := conversation()
	var input string
	c.Tools = tools.NewRegistry(ran{&input}, tools.DoneTool{})
	c.Secrets = redact.New([]string{"DEV_TOKEN=" + secret}, "")
	c.Model = &streamed{replies: []llm.Reply{
		{Reasoning: "Thinking of " + says, Content: "I will use " + says + "."},
		{Reasoning: "Now " + says, Content: "# Agent Response\n\n## Thoughts\nUse " + says + ".\n\n## Task List\n- [~] send " + says +
			"\n\n## Tool Choice\nECHO\n\n## Tool Input\n" + says + "\n"},
	}}
	c.State.Requests = nil
	ctx := context.Background()
	reply, err := c.Request(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	_, perr := c.Parse(reply)
	if perr == nil || c.Reject(reply, perr) {
		t.Fatalf("the first reply was not rejected: %v", perr)
	}
	state, _ := json.Marshal(c.State) // the rejected reply, before a good one drops it
	reply, err = c.Request(ctx, 2)
	if err != nil {
		t.Fatal(err)
	}
	resp, perr := c.Parse(reply)
	if perr != nil {
		t.Fatal(perr)
	}
	c.Accept(resp, 2)
	c.Act(ctx, resp)
	if input != says {
		t.Errorf("the tool ran with %q, want the input as written", input)
	}
	after, _ := json.Marshal(c.State)
	var shown strings.Builder
	for _, e := range rec.events {
		fmt.Fprintf(&shown, "%+v\n", e)
	}
	for where, text := range map[string]string{"the state with the rejected reply": string(state), "the state": string(after), "the events": shown.String()} {
		for _, s := range []string{secret, gh} {
			if strings.Contains(text, s) {
				t.Errorf("%s hold %s:\n%s", where, s, text)
			}
		}
		if !strings.Contains(text, "[REDACTED:$DEV_TOKEN]") || !strings.Contains(text, "[REDACTED:github-token]") {
			t.Errorf("%s do not show the secrets masked:\n%s", where, text)
		}
	}
}
