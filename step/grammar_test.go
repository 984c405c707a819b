package step

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/devagent/dev/event"
	"github.com/devagent/dev/llm"
	"github.com/devagent/dev/parser"
	"github.com/devagent/dev/sessions"
	"github.com/devagent/dev/shape"
	"github.com/devagent/dev/tools"
)

// scripted answers each request with the next reply and keeps the requests.
type scripted struct {
	replies  []llm.Reply
	requests []llm.Request
}

func (s *scripted) Stream(_ context.Context, req llm.Request, onDelta func(llm.Delta)) (llm.Reply, error) {
	s.requests = append(s.requests, req)
	r := s.replies[0]
	s.replies = s.replies[1:]
	if r.Content != "" {
		onDelta(llm.Delta{Content: r.Content})
	}
	return r, nil
}

func reply(content string) llm.Reply { return llm.Reply{Content: content, FinishReason: "stop"} }

// With maxTokens unset, every request carries the default cap of SPEC §18:
// a quarter of the window, at most 16,384, twice that once the model shows
// it reasons; a configured maxTokens is sent as it is.
func TestDefaultReplyCap(t *testing.T) {
	t.Parallel()
	c, _ := conversation()
	c.Window = NewWindow(8192)
	thinking := llm.Reply{Content: "<think>hmm</think>\n" + template("a"), FinishReason: "stop"}
	s := &scripted{replies: []llm.Reply{reply(template("a")), thinking, reply(template("b"))}}
	c.Model = s
	c.Append(llm.Message{Role: llm.RoleUser, Content: "do it"})
	for i := range 3 {
		if _, err := c.Request(context.Background(), i+1); err != nil {
			t.Fatal(err)
		}
	}
	var caps []int
	for _, r := range s.requests {
		caps = append(caps, *r.MaxTokens)
	}
	if caps[0] != 2048 || caps[1] != 2048 || caps[2] != 4096 {
		t.Errorf("max_tokens %v, want 2048, 2048, then 4096 once the model reasoned", caps)
	}
	if got := c.State.Requests[2].MaxTokens; got != 4096 {
		t.Errorf("the request record says maxTokens %d, want 4096", got)
	}

	configured := 300
	c2, _ := conversation()
	c2.Window = NewWindow(8192)
	c2.Params.MaxTokens = &configured
	s2 := &scripted{replies: []llm.Reply{reply(template("a"))}}
	c2.Model = s2
	c2.Append(llm.Message{Role: llm.RoleUser, Content: "do it"})
	if _, err := c2.Request(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	if *s2.requests[0].MaxTokens != 300 {
		t.Errorf("max_tokens %d, want the configured 300", *s2.requests[0].MaxTokens)
	}

	c3, _ := conversation()
	c3.Window = NewWindow(131072)
	c3.Params.Thinking = llm.ThinkingHigh
	s3 := &scripted{replies: []llm.Reply{reply(template("a"))}}
	c3.Model = s3
	c3.Append(llm.Message{Role: llm.RoleUser, Content: "do it"})
	if _, err := c3.Request(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	if *s3.requests[0].MaxTokens != 32768 {
		t.Errorf("max_tokens %d for a model asked to think, want 2×16,384", *s3.requests[0].MaxTokens)
	}
}

// A reply cut by the cap is a format problem that says so and names
// maxTokens, not "does not follow the template"; the user's event carries
// the limit and where it came from.
func TestReplyCutByTheCap(t *testing.T) {
	t.Parallel()
	c, rec := conversation()
	c.Window = NewWindow(8192)
	cut := llm.Reply{Content: "# Agent Response\n\n## Thoughts\nI will write a very long", FinishReason: "length"}
	c.Model = &scripted{replies: []llm.Reply{cut}}
	c.Append(llm.Message{Role: llm.RoleUser, Content: "do it"})
	got, err := c.Request(context.Background(), 1)
	if err != nil {
		t.Fatal(err)
	}
	_, perr := c.Parse(got)
	var fe *parser.FormatError
	if !errors.As(perr, &fe) || !strings.Contains(fe.Message, "cut off at the output limit of 2048 tokens (maxTokens)") ||
		strings.Contains(fe.Message, "template:") || strings.Contains(fe.Message, "does not follow") {
		t.Fatalf("format error %v", perr)
	}
	c.Reject(got, perr)
	var fp event.FormatProblem
	for _, e := range rec.events {
		if p, ok := e.(event.FormatProblem); ok {
			fp = p
		}
	}
	if !fp.Cut || fp.Limit != 2048 || fp.Configured {
		t.Errorf("event %+v, want a cut at the default limit 2048", fp)
	}
	if r := c.State.Requests[0].Rejected; r == nil || !r.Cut || r.Head[0] != "# Agent Response" {
		t.Errorf("record %+v", r)
	}
}

// The retry counter never shows more than its limit: the problem that uses
// the retries up says so instead of counting past it.
func TestRetryCounterStaysWithinItsLimit(t *testing.T) {
	t.Parallel()
	c, rec := conversation()
	c.MaxRetries = 2
	garbage := reply("not a template")
	_, err := c.Parse(garbage)
	exhausted := false
	for range 3 {
		exhausted = c.Reject(garbage, err)
	}
	if !exhausted {
		t.Fatal("three failures did not exhaust 2 retries")
	}
	var seen []string
	for _, e := range rec.events {
		if p, ok := e.(event.FormatProblem); ok {
			if p.Attempt > p.Max {
				t.Errorf("attempt %d of %d shown", p.Attempt, p.Max)
			}
			seen = append(seen, strings.Repeat("!", map[bool]int{true: 1}[p.Final]))
		}
	}
	if strings.Join(seen, ",") != ",,!" {
		t.Errorf("final marks %q, want only the last", seen)
	}
}

// A rejected reply's first and last lines are kept with the request that
// got it, not in the history the model sees.
func TestRejectedReplyKeptWithItsRequest(t *testing.T) {
	t.Parallel()
	c, rec := conversation()
	var long strings.Builder
	long.WriteString("Sure! Here is the code:\n\n")
	for i := range 20 {
		long.WriteString("line " + string(rune('a'+i)) + "\n")
	}
	long.WriteString("\nHope this helps.\n")
	bad := reply(long.String())
	c.Model = &scripted{replies: []llm.Reply{bad, reply(template("a"))}}
	c.Append(llm.Message{Role: llm.RoleUser, Content: "do it"})
	got, _ := c.Request(context.Background(), 1)
	_, err := c.Parse(got)
	c.Reject(got, err)
	r := c.State.Requests[0].Rejected
	if r == nil || strings.Join(r.Head, "|") != "Sure! Here is the code:|line a|line b" ||
		strings.Join(r.Tail, "|") != "line s|line t|Hope this helps." || r.Lines != 24 || !strings.Contains(r.Problem, "Tool Choice") {
		t.Fatalf("rejected record %+v", r)
	}
	var fp event.FormatProblem
	for _, e := range rec.events {
		if p, ok := e.(event.FormatProblem); ok {
			fp = p
		}
	}
	if strings.Join(fp.Head, "|") != strings.Join(r.Head, "|") || fp.Lines != 24 {
		t.Errorf("event %+v", fp)
	}
	next, _ := c.Request(context.Background(), 2)
	resp, err := c.Parse(next)
	if err != nil {
		t.Fatal(err)
	}
	c.Accept(resp, 2)
	for _, m := range c.State.History {
		if strings.Contains(m.Content, "Hope this helps") {
			t.Errorf("the rejected reply stayed in the history: %q", m.Content)
		}
	}
	if c.State.Requests[0].Rejected == nil || c.State.Requests[1].Rejected != nil {
		t.Errorf("records %+v", c.State.Requests)
	}
}

func TestGlimpse(t *testing.T) {
	t.Parallel()
	head, tail, lines := Glimpse("<think>secret</think>\none\n\n two \nthree")
	if strings.Join(head, "|") != "one| two|three" || tail != nil || lines != 4 {
		t.Errorf("Glimpse = %q %q %d", head, tail, lines)
	}
	if h, tl, n := Glimpse("  \n\n"); h != nil || tl != nil || n != 0 {
		t.Errorf("blank reply: %q %q %d", h, tl, n)
	}
	huge := strings.Repeat("é", 1<<20)
	head, _, _ = Glimpse(huge)
	if len(head) != 1 || !strings.HasSuffix(head[0], "…") || len([]rune(head[0])) != glimpseWidth {
		t.Errorf("a 2 MB line is %d runes", len([]rune(head[0])))
	}
}

// shaped is a conversation whose replies the server of kind shapes with
// constrain c, its tools ECHO and DONE.
func shaped(c Constrain, kind llm.ServerKind, replies ...llm.Reply) (*Conversation, *scripted, *recorder) {
	conv, rec := conversation()
	conv.Constrain, conv.Known = c, &shape.Known{Server: llm.ServerInfo{Kind: kind}}
	conv.Offered = []parser.GrammarTool{{Name: "ECHO"}, {Name: tools.Done, Input: parser.InputText}}
	conv.System = "SYSTEM"
	s := &scripted{replies: replies}
	conv.Model = s
	conv.Append(llm.Message{Role: llm.RoleUser, Content: "do it"})
	return conv, s, rec
}

// Constrain is shape.Constrain, named short for the tests.
type Constrain = shape.Constrain

// step takes one step as the loop does: request, parse, then accept or
// reject.
func step(t *testing.T, c *Conversation, n int) error {
	t.Helper()
	got, err := c.Request(context.Background(), n)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := c.Parse(got)
	if err != nil {
		c.Reject(got, err)
		return err
	}
	c.Accept(resp, n)
	return nil
}

// as gives a reply the form of the shape its request carried, as the
// client does.
func as(form llm.Shape, r llm.Reply) llm.Reply {
	r.Shaped = form
	return r
}

func warnings(rec *recorder, about string) int {
	n := 0
	for _, e := range rec.events {
		if w, ok := e.(event.Warning); ok && strings.Contains(w.Message, about) {
			n++
		}
	}
	return n
}

func formsOf(c *Conversation) []sessions.Constrained {
	var out []sessions.Constrained
	for _, r := range c.State.Requests {
		out = append(out, r.Constrained)
	}
	return out
}

// The grammar goes with every request, in the server's field; the record
// says which form the server took; a rejection is told once, and no shape
// goes after it.
func TestGrammarSentAndRecorded(t *testing.T) {
	t.Parallel()
	dropped := reply(template("b"))
	dropped.ShapeRejected, dropped.ShapeError = llm.ShapeGrammar, "Failed to initialize samplers: failed to parse grammar"
	c, s, rec := shaped(shape.Auto, llm.ServerVLLM, as(llm.ShapeGrammar, reply(template("a"))), dropped, reply(template("c")))
	for i := range 3 {
		if err := step(t, c, i+1); err != nil {
			t.Fatal(err)
		}
	}
	g := s.requests[0].Grammar
	if !strings.Contains(g, `"ECHO\n\n## Tool Input\n"`) || s.requests[0].GrammarField != "structured_outputs.grammar" || s.requests[1].Grammar != g {
		t.Errorf("requests 0 and 1 carried %q in %q", g, s.requests[0].GrammarField)
	}
	if s.requests[2].Grammar != "" || s.requests[2].Schema != nil {
		t.Error("a shape went after the rejection")
	}
	if got := formsOf(c); !slices.Equal(got, []sessions.Constrained{"grammar", "", ""}) {
		t.Errorf("records constrained %q, want grammar, none, none", got)
	}
	if n := warnings(rec, "rejected the reply grammar"); n != 1 {
		t.Errorf("%d warnings about the rejected grammar, want 1", n)
	}
}

// A reply to a request with the grammar that does not parse shows a server
// that ignored it: one warning, the request recorded as not shaped, and the
// JSON form from then on on a server that takes it, told to the model in
// the messages, the system prompt unchanged (SPEC §18).
func TestIgnoredGrammarFallsBackToJSON(t *testing.T) {
	t.Parallel()
	free := as(llm.ShapeGrammar, reply("Sure! Here is some Python:\nprint('hi')"))
	json := as(llm.ShapeJSON, reply(`{"thoughts": "Done.", "tasks": [], "calls": [{"tool": "DONE", "summary": "hi"}]}`))
	c, s, rec := shaped(shape.Auto, llm.ServerLlamaCpp, free, json)
	if err := step(t, c, 1); err == nil {
		t.Fatal("the free reply parsed")
	}
	if err := step(t, c, 2); err != nil {
		t.Fatalf("the JSON reply did not parse: %v", err)
	}
	if n := warnings(rec, "the server ignored the reply grammar (sent in grammar)"); n != 1 {
		t.Errorf("%d warnings that the grammar was ignored, want 1: %v", n, rec.events)
	}
	if got := formsOf(c); !slices.Equal(got, []sessions.Constrained{"", "json"}) {
		t.Errorf("records constrained %q, want none, json", got)
	}
	second := s.requests[1]
	if second.Grammar != "" || second.Schema == nil || second.Schema.Name != shape.SchemaName {
		t.Fatalf("the request after the ignored grammar: grammar %q, schema %v", second.Grammar, second.Schema)
	}
	if second.Messages[0].Content != "SYSTEM" || s.requests[0].Messages[0].Content != "SYSTEM" {
		t.Error("the system prompt changed")
	}
	last := second.Messages[len(second.Messages)-1].Content
	if !strings.HasPrefix(last, "Your reply could not be used") || strings.Contains(last, "Answer with the template only") {
		t.Errorf("the format error shows the template's outline, while the JSON form is sent:\n%s", last)
	}
	if note := second.Messages[1]; note.Role != llm.RoleUser || !strings.Contains(note.Content, `"calls": [{"tool": "TOOL_NAME"`) {
		t.Errorf("the model is not told of the JSON form after the system prompt: %+v", note)
	}
	// The JSON reply is the template before the history sees it.
	if h := c.State.History[len(c.State.History)-1].Content; !strings.HasPrefix(h, "# Agent Response\n\n## Thoughts\nDone.") || !strings.Contains(h, "## Tool Choice\nDONE\n\n## Tool Input\nhi") {
		t.Errorf("the history holds %q", h)
	}
}

// A reply to a request in the JSON form that is not in it: the server
// ignored the schema; no shape goes after.
func TestIgnoredJSONForm(t *testing.T) {
	t.Parallel()
	c, s, rec := shaped(shape.JSON, llm.ServerUnknown, as(llm.ShapeJSON, reply("```json\n{}\n```")), reply(template("a")))
	step(t, c, 1)
	if err := step(t, c, 2); err != nil {
		t.Fatal(err)
	}
	if s.requests[0].Schema == nil || s.requests[1].Schema != nil || s.requests[1].Grammar != "" {
		t.Errorf("schemas sent: %v, %v", s.requests[0].Schema, s.requests[1].Schema)
	}
	if n := warnings(rec, "the server ignored the reply's JSON schema (sent in response_format)"); n != 1 {
		t.Errorf("%d warnings, want 1: %v", n, rec.events)
	}
	if got := formsOf(c); !slices.Equal(got, []sessions.Constrained{"", ""}) {
		t.Errorf("records constrained %q", got)
	}
	// With the JSON form sent from the start, every request tells the
	// model of it, in a message after the system prompt.
	if note := s.requests[0].Messages[1]; note.Role != llm.RoleUser || !strings.HasPrefix(note.Content, "Answer with one JSON object") {
		t.Errorf("the first request's note: %+v", note)
	}
	for _, m := range s.requests[1].Messages {
		if strings.Contains(m.Content, "JSON object") {
			t.Error("the note went on without the JSON form")
		}
	}
}

// With constrain auto on Ollama the JSON form comes with the retry after
// the first format error, and stays (SPEC §18).
func TestAutoOnOllamaTurnsToJSONAfterAMiss(t *testing.T) {
	t.Parallel()
	c, s, _ := shaped(shape.Auto, llm.ServerOllama, reply("no template here"),
		as(llm.ShapeJSON, reply(`{"thoughts":"ok","tasks":[],"calls":[{"tool":"ECHO","input":"a"}]}`)),
		as(llm.ShapeJSON, reply(`{"thoughts":"ok","tasks":[{"status":"complete","text":"echo"}],"calls":[{"tool":"DONE","summary":"done"}]}`)))
	for i := range 3 {
		err := step(t, c, i+1)
		if (err != nil) != (i == 0) {
			t.Fatalf("step %d: %v", i+1, err)
		}
	}
	if s.requests[0].Schema != nil {
		t.Error("the first request carried the JSON form")
	}
	for i, r := range s.requests[1:] {
		if r.Schema == nil || r.Messages[0].Content != "SYSTEM" || !strings.Contains(r.Messages[1].Content, "Answer with one JSON object") {
			t.Errorf("request %d lacks the JSON form or its note", i+1)
		}
	}
	// From the JSON form on, each request's prompt is the last one's and
	// more: the server's prompt cache keeps it all.
	third, second := s.requests[2].Messages, s.requests[1].Messages
	kept := second[:len(second)-2] // the failed attempt and its error leave once a reply parses
	if len(third) <= len(kept) {
		t.Fatalf("the third request has %d messages, the second %d", len(third), len(second))
	}
	for i := range kept {
		if third[i] != second[i] {
			t.Errorf("message %d changed between the second and the third request: %q, then %q", i, second[i].Content, third[i].Content)
		}
	}
	if got := formsOf(c); !slices.Equal(got, []sessions.Constrained{"", "json", "json"}) {
		t.Errorf("records constrained %q", got)
	}
	if len(c.State.TaskList) != 1 || c.State.TaskList[0].Text != "echo" {
		t.Errorf("task list %+v", c.State.TaskList)
	}
}

// A model seen to reason in an earlier reply of the run is offered a
// <think> block in the grammar from then on; one not seen to, none.
func TestThinkBlockOnceTheModelReasons(t *testing.T) {
	t.Parallel()
	reasoned := as(llm.ShapeGrammar, reply(template("a")))
	reasoned.Reasoning = "Let me see."
	c, s, _ := shaped(shape.Auto, llm.ServerLlamaCpp, as(llm.ShapeGrammar, reply(template("a"))), reasoned, as(llm.ShapeGrammar, reply(template("b"))))
	for i := range 3 {
		if err := step(t, c, i+1); err != nil {
			t.Fatal(err)
		}
	}
	for i, want := range []bool{false, false, true} {
		if got := strings.Contains(s.requests[i].Grammar, `"<think>"`); got != want {
			t.Errorf("request %d offers a think block: %v, want %v", i, got, want)
		}
	}
}
