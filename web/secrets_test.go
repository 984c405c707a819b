package web

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/devagent/dev/event"
	"github.com/devagent/dev/history"
	"github.com/devagent/dev/llm"
	"github.com/devagent/dev/llm/llmtest"
	"github.com/devagent/dev/redact"
	"github.com/devagent/dev/sessions"
	"github.com/devagent/dev/step"
	"github.com/devagent/dev/tools"
)

// twoReplies streams a rejected reply, then a DONE.
type twoReplies struct{ replies []string }

func (m *twoReplies) Stream(_ context.Context, _ llm.Request, onDelta func(llm.Delta)) (llm.Reply, error) {
	r := m.replies[0]
	m.replies = m.replies[1:]
	onDelta(llm.Delta{Content: r})
	return llm.Reply{Content: r, FinishReason: "stop"}, nil
}

// The browser reads the session file: the model's text in it (a rejected
// reply, thoughts, a DONE summary), written by a protocol step as dev
// writes it and read back from the file, reaches the page masked (issue
// 30).
func TestSessionPageShowsTheModelsTextMasked(t *testing.T) {
	t.Parallel()
	const id = "5ec2e7a1-0000-4000-8000-000000000030"
	const secret = "tok-Q7v2Lx9pR4mW8kT3"
	says := "the token " + secret + " and the key ghp_" + strings.Repeat("a1B2", 9)
	sess := &sessions.Session{ID: id, WorkingDirectory: "/home/ann/api", OriginalPrompt: "use the token", Model: "m", Status: sessions.Complete}
	sess.History = append(sess.History, history.Request(sess.OriginalPrompt))
	c := &step.Conversation{Agent: event.Worker, Tools: tools.NewRegistry(tools.DoneTool{}), Env: &tools.Env{}, MaxRetries: 2, State: sess,
		Secrets: redact.New([]string{"DEV_TOKEN=" + secret}, ""),
		Model:   &twoReplies{[]string{"I will use " + says + ".", llmtest.Template("Done with "+says+".", "", llmtest.Call{Tool: tools.Done, Input: "Used " + says + "."})}}}
	ctx := context.Background()
	for n := 1; n <= 2; n++ {
		reply, err := c.Request(ctx, n)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := c.Parse(reply)
		if err != nil {
			c.Reject(reply, err)
			continue
		}
		c.Accept(resp, n)
		results, _ := c.Act(ctx, resp)
		c.Append(history.Results(resp.Tools, tools.Held(results), ""))
	}
	store := sessions.NewStore(t.TempDir(), nil)
	if err := store.Save(sess); err != nil {
		t.Fatal(err)
	}
	saved, err := store.Load(id)
	if err != nil {
		t.Fatal(err)
	}
	w := get(t, newTestServer(t, memStore{id: saved}, nil), "/s/"+id)
	if w.Code != http.StatusOK {
		t.Fatalf("status %d", w.Code)
	}
	page := w.Body.String()
	if strings.Contains(page, secret) || strings.Contains(page, "ghp_a1B2") {
		t.Errorf("the page shows a secret of the model's text:\n%s", page)
	}
	for _, want := range []string{"I will use the token [REDACTED:$DEV_TOKEN] and the key [REDACTED:github-token].", "Done with the token [REDACTED:$DEV_TOKEN]", "Used the token [REDACTED:$DEV_TOKEN]"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
}
