package ui

import (
	"bytes"
	"strings"
	"testing"

	"github.com/devagent/dev/history"
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
	ShowSession(&Streams{Out: &out, Width: 80, Unicode: true}, sess, Normal)
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

// dev sessions show reads each message by its kind: a command the user
// ran (!) shows as its result, never as the result of the reply before it,
// and does not stop a DONE before it from ending its request; a reply
// calling a custom or MCP tool shows its tools; a DONE whose audit the user
// interrupted was not accepted, so it shows no answer and takes no audit.
func TestShowSessionReadsKinds(t *testing.T) {
	t.Parallel()
	template := func(tool, input string) llm.Message {
		return llm.Message{Role: "assistant", Content: "# Agent Response\n\n## Thoughts\nStep.\n\n## Tool Choice\n" + tool + "\n\n## Tool Input\n" + input}
	}
	request := func(text string) llm.Message {
		return llm.Message{Role: "user", Content: "<user_request>\n" + text + "\n</user_request>"}
	}
	shell := llm.Message{Role: "user", Content: "The user ran a command in the working directory, for you to know:\n" +
		`<tool_result tool="COMMAND" ok="true">` + "\n$ ls\nshell-output\n</tool_result>"}
	showAt := func(level Verbosity, sess *sessions.Session) string {
		var out bytes.Buffer
		ShowSession(&Streams{Out: &out, Width: 80, Unicode: true}, sess, level)
		return out.String()
	}
	show := func(sess *sessions.Session) string { return showAt(Verbose, sess) }
	inOrder := func(t *testing.T, got string, want ...string) {
		t.Helper()
		at := -1
		for _, w := range want {
			i := strings.Index(got[at+1:], w)
			if i < 0 {
				t.Fatalf("%q missing or out of order (want %q):\n%s", w, want, got)
			}
			at += 1 + i
		}
	}

	s1 := &sessions.Session{ID: "s1", Status: sessions.Complete,
		Audits: []sessions.Audit{{Verdict: "PASS", Steps: 1}, {Verdict: "PASS", Steps: 2}},
		History: []llm.Message{
			request("write a.go"),
			template("WRITE_FILE", "a.go\n```go\npackage a\n```"),
			{Role: "user", Content: `<tool_result tool="WRITE_FILE" ok="true">` + "\nCreated a.go\n</tool_result>"},
			shell,
			template("DONE", "First answer."),
			shell,
			request("run the tests"),
			template("RUN_TESTS", "all"),
			{Role: "user", Content: `<tool_result tool="RUN_TESTS" ok="true">` + "\nPASS\n</tool_result>"},
			template("DONE", "Second answer."),
		}}
	got := show(s1)
	inOrder(t, got, "WRITE_FILE", "Created a.go", "shell-output", "audit passed (1 step)", "First answer.", "shell-output",
		"run the tests", "RUN_TESTS", "PASS", "audit passed (2 steps)", "Second answer.")
	// The calm screen: a line per tool, the user's command with its output.
	calm := showAt(Normal, s1)
	inOrder(t, calm, "› write a.go", "✓ WRITE_FILE a.go\n", "› ! (a command; this session did not keep which)", "│ shell-output",
		"audit passed (1 step)", "First answer.", "│ shell-output", "› run the tests", "✓ RUN_TESTS all\n", "audit passed (2 steps)", "Second answer.")
	if strings.Contains(calm, "┌─") {
		t.Errorf("boxes on the calm screen:\n%s", calm)
	}
	if n := strings.Count(got, "WRITE_FILE"); n != 1 {
		t.Errorf("WRITE_FILE shown %d times, want once (a command the user ran is no result of it):\n%s", n, got)
	}
	if strings.Contains(got, "Reply") {
		t.Errorf("a reply calling a custom tool is shown raw:\n%s", got)
	}

	got = show(&sessions.Session{ID: "s2", Status: sessions.Complete,
		Audits: []sessions.Audit{{Verdict: "PASS", Steps: 2}},
		History: []llm.Message{
			request("go"),
			template("DONE", "Not accepted."),
			{Role: "user", Content: "The user interrupted the audit of your DONE."},
			request("again"),
			template("DONE", "Accepted."),
		}})
	inOrder(t, got, "› go", "interrupted the audit", "› again", "audit passed (2 steps)", "Accepted.")
	if strings.Contains(got, "Not accepted.") {
		t.Errorf("the answer of a DONE whose audit was interrupted is shown:\n%s", got)
	}
}

// A reply the history kept that is not in the template shows as a line on
// the calm screen, in a box with -v.
func TestShowSessionRawReply(t *testing.T) {
	t.Parallel()
	sess := &sessions.Session{ID: "s3", Status: sessions.Failed, History: []llm.Message{
		{Role: "user", Content: "<user_request>\ngo\n</user_request>"},
		{Role: "assistant", Content: "Sure! Here is a script.\nprint(1)"},
	}}
	var out bytes.Buffer
	ShowSession(&Streams{Out: &out, Width: 80, Unicode: true}, sess, Normal)
	if got := out.String(); !strings.Contains(got, "! a reply not in the expected format: Sure! Here is a script.\n") || strings.Contains(got, "┌─") {
		t.Errorf("calm:\n%s", got)
	}
	out.Reset()
	ShowSession(&Streams{Out: &out, Width: 80, Unicode: true}, sess, Verbose)
	if got := out.String(); !strings.Contains(got, "┌─ Reply") || !strings.Contains(got, "│ print(1) ") {
		t.Errorf("verbose:\n%s", got)
	}
}

// dev sessions show shows each audit under the request whose DONE it
// checked (the reply it names): DONEs accepted without an audit get none.
// Before, the audits were dealt to the DONEs in order, the second under
// the second request.
func TestShowSessionAuditsUnderTheirRequests(t *testing.T) {
	t.Parallel()
	template := func(tool, input string) llm.Message {
		return llm.Message{Role: "assistant", Content: "# Agent Response\n\n## Thoughts\nStep.\n\n## Tool Choice\n" + tool + "\n\n## Tool Input\n" + input}
	}
	request := func(text string) llm.Message {
		return llm.Message{Role: "user", Content: "<user_request>\n" + text + "\n</user_request>"}
	}
	sess := &sessions.Session{ID: "s4", Status: sessions.Complete,
		Audits: []sessions.Audit{{Verdict: "PASS", Steps: 1, Reply: 1}, {Verdict: "PASS", Steps: 2, Reply: 7}},
		History: []llm.Message{
			request("one"), template("DONE", "First."),
			request("two"), template("DONE", "Second."),
			request("three"), template("DONE", "Third."),
			request("four"), template("DONE", "Fourth."),
		}}
	var out bytes.Buffer
	ShowSession(&Streams{Out: &out, Width: 80, Unicode: true}, sess, Normal)
	requests := strings.Split(out.String(), "\n› ")[1:]
	want := []string{"1 step", "", "", "2 steps"}
	if len(requests) != len(want) {
		t.Fatalf("%d requests shown, want %d:\n%s", len(requests), len(want), out.String())
	}
	for i, text := range requests {
		got := ""
		if _, rest, ok := strings.Cut(text, "audit passed ("); ok {
			got, _, _ = strings.Cut(rest, ")")
		}
		if got != want[i] {
			t.Errorf("request %d shows the audit of %q, want %q:\n%s", i+1, got, want[i], out.String())
		}
	}
}

// dev sessions show shows a reply the user interrupted as far as it had
// streamed, under the interruption, from the request record that kept it
// (SPEC §17, "Ctrl+C keeps what you were reading"); -v shows all of it.
func TestShowSessionPartialReply(t *testing.T) {
	t.Parallel()
	partial := "# Agent Response\n## Thoughts\nI am weighing the three ways" + strings.Repeat("\nmore thought", 10)
	sess := &sessions.Session{ID: "s4", Status: sessions.Interrupted,
		History:  []llm.Message{history.Request("take your time"), history.InterruptedReply()},
		Requests: []sessions.Request{{Purpose: sessions.PurposeWorker, Interrupted: true, Partial: partial}}}
	var out bytes.Buffer
	ShowSession(&Streams{Out: &out, Width: 80, Unicode: true}, sess, Normal)
	got := out.String()
	if !strings.Contains(got, "the reply as far as it had come") || !strings.Contains(got, "│ I am weighing the three ways\n") ||
		!strings.Contains(got, "│ … 5 more lines\n") {
		t.Errorf("calm:\n%s", got)
	}
	out.Reset()
	ShowSession(&Streams{Out: &out, Width: 80, Unicode: true}, sess, Verbose)
	if got := out.String(); strings.Count(got, "│ more thought") != 10 {
		t.Errorf("verbose: want every line of the partial reply:\n%s", got)
	}
}
