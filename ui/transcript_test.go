package ui

import (
	"bytes"
	"strings"
	"testing"

	"github.com/devagent/dev/llm"
	"github.com/devagent/dev/sessions"
)

// dev sessions show shows the replies dev could not use where they came:
// kept with their request records, never in the history, each placed
// before the accepted reply that followed it, the last ones at the end.
func TestTranscriptShowsRejectedReplies(t *testing.T) {
	t.Parallel()
	template := func(tool, input string) string {
		return "# Agent Response\n\n## Thoughts\nStep.\n\n## Tool Choice\n" + tool + "\n\n## Tool Input\n" + input
	}
	rejected := func(purpose, first string) sessions.Request {
		return sessions.Request{Purpose: purpose, FormatError: true, MaxTokens: 2048,
			Rejected: &sessions.Rejected{Problem: "Your reply has no `## Tool Choice` section.", Head: []string{first}, Lines: 1}}
	}
	sess := &sessions.Session{ID: "s1", Status: sessions.Failed,
		History: []llm.Message{
			{Role: "user", Content: "<user_request>\nlist the files\n</user_request>"},
			{Role: "assistant", Content: template("LIST_DIRECTORY", ".")},
			{Role: "user", Content: `<tool_result tool="LIST_DIRECTORY" ok="true">` + "\na.txt\n</tool_result>"},
			{Role: "assistant", Content: template("READ_FILE", "a.txt")},
			{Role: "user", Content: `<tool_result tool="READ_FILE" ok="true">` + "\nalpha\n</tool_result>"},
		},
		Requests: []sessions.Request{
			rejected("worker", "Sure! one"),
			{Purpose: "worker"},
			rejected("worker", "Sure! two"),
			rejected("worker", "Sure! three"),
			{Purpose: "worker"},
			{Purpose: "compress"},
			rejected("worker", "Sure! four"),
		},
	}
	sess.Requests[6].Rejected.Cut = true
	var out bytes.Buffer
	ShowSession(&Streams{Out: &out, Width: 80, Unicode: true}, sess)
	got := out.String()
	order := []string{"Sure! one", "LIST_DIRECTORY", "Sure! two", "Sure! three", "READ_FILE", "Sure! four"}
	at := -1
	for _, want := range order {
		i := strings.Index(got, want)
		if i < 0 || i < at {
			t.Fatalf("%q missing or out of order (want %q):\n%s", want, order, got)
		}
		at = i
	}
	if !strings.Contains(got, "reply not in the expected format: Your reply has no") || !strings.Contains(got, "reply cut off at maxTokens (2,048 tokens)") {
		t.Errorf("the problems are not shown:\n%s", got)
	}
}
