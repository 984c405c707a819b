package step

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/devagent/dev/event"
	"github.com/devagent/dev/llm"
	"github.com/devagent/dev/parser"
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

// The grammar goes with every request; the record says whether the server
// took it; a rejection is told once.
func TestGrammarSentAndRecorded(t *testing.T) {
	t.Parallel()
	c, rec := conversation()
	c.Params.Grammar = "root ::= x"
	shaped := reply(template("a"))
	shaped.Constrained = true
	dropped := reply(template("b"))
	dropped.GrammarRejected, dropped.GrammarError = true, "Failed to initialize samplers: failed to parse grammar"
	s := &scripted{replies: []llm.Reply{shaped, dropped, reply(template("c"))}}
	c.Model = s
	c.Append(llm.Message{Role: llm.RoleUser, Content: "do it"})
	for i := range 3 {
		if _, err := c.Request(context.Background(), i+1); err != nil {
			t.Fatal(err)
		}
	}
	for i, r := range s.requests {
		if r.Grammar != "root ::= x" {
			t.Errorf("request %d carried grammar %q", i, r.Grammar)
		}
	}
	var constrained []bool
	for _, r := range c.State.Requests {
		constrained = append(constrained, r.Constrained)
	}
	if constrained[0] != true || constrained[1] || constrained[2] {
		t.Errorf("records constrained %v, want true, false, false", constrained)
	}
	warnings := 0
	for _, e := range rec.events {
		if w, ok := e.(event.Warning); ok && strings.Contains(w.Message, "rejected the reply grammar") {
			warnings++
		}
	}
	if warnings != 1 {
		t.Errorf("%d warnings about the rejected grammar, want 1", warnings)
	}
}
