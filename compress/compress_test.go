package compress

import (
	"context"
	"errors"
	"github.com/devagent/dev/parser"
	"strings"
	"testing"

	"github.com/devagent/dev/llm"
)

// fakeModel answers each request with the next scripted reply or error.
type fakeModel struct {
	script   []any
	requests []llm.Request
}

func (m *fakeModel) Stream(_ context.Context, req llm.Request, _ func(llm.Delta)) (llm.Reply, error) {
	m.requests = append(m.requests, req)
	if len(m.script) == 0 {
		return llm.Reply{}, errors.New("script exhausted")
	}
	next := m.script[0]
	m.script = m.script[1:]
	if err, ok := next.(error); ok {
		return llm.Reply{}, err
	}
	return next.(llm.Reply), nil
}

func conversation() Conversation {
	return Conversation{
		History: msgs(
			"<user_request>\nadd a --verbose flag\n</user_request>",
			"# Agent Response\n\n## Thoughts\nRead main.go.\n\n## Tool Choice\nREAD_FILE\n\n## Tool Input\nmain.go",
			toolMsg("READ_FILE", "package main\n"+strings.Repeat("// filler\n", 3000)+"func main() {}"),
		),
		OriginalRequest: "add a --verbose flag",
		CurrentRequest:  "add a --verbose flag",
		Tasks:           []parser.Task{{Status: "complete", Text: "read main.go"}, {Status: "in-progress", Text: "add the flag"}, {Status: "pending", Text: "test it"}},
		Window:          8192,
	}
}

func TestCompact(t *testing.T) {
	t.Parallel()
	temp := 0.2
	m := &fakeModel{script: []any{llm.Reply{Content: "<think>hmm</think>\nThe user wants a --verbose flag. main.go was read.",
		Usage: &llm.Usage{PromptTokens: 5000, CompletionTokens: 20, TotalTokens: 5020}}}}
	// The parameters are the worker's, grammar included: a summary is
	// prose, so none is sent.
	s := &Summarizer{Model: m, Params: llm.Params{Model: "summariser", Temperature: &temp, Grammar: "root ::= \"# Agent Response\""}}
	c := conversation()
	res, err := s.Compact(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.requests) != 1 {
		t.Fatalf("%d requests, want 1", len(m.requests))
	}
	req := m.requests[0]
	if req.Model != "summariser" || req.Temperature != &temp || len(req.Messages) != 1 || req.Messages[0].Role != llm.RoleUser {
		t.Errorf("request: model %q, %d messages", req.Model, len(req.Messages))
	}
	if req.Grammar != "" || s.Params.Grammar == "" {
		t.Errorf("the summarisation request carries the grammar %q (or Compact changed the summariser's)", req.Grammar)
	}
	prompt := req.Messages[0].Content
	if !strings.Contains(prompt, "You are a context compression assistant.") ||
		!strings.Contains(prompt, "<conversation>\n<message role=\"user\">\n<user_request>\nadd a --verbose flag") {
		t.Errorf("summarisation prompt:\n%.600s", prompt)
	}
	// The window is 8192 tokens: the request must leave room for the summary.
	if got, limit := Tokens(len(prompt)), 8192-Reserve(8192); got > limit {
		t.Errorf("summarisation request of ~%d tokens, more than the %d the window leaves", got, limit)
	}
	if res.Cuts != 1 || !strings.Contains(prompt, "bytes cut") || !strings.Contains(prompt, "func main() {}") {
		t.Errorf("the long READ_FILE result was not shortened in the middle (%d cuts)", res.Cuts)
	}
	want := "[CONTEXT SUMMARY]\n\nThe user wants a --verbose flag. main.go was read.\n\n" +
		"Task list when the conversation was compressed:\n[x] read main.go\n[~] add the flag\n[ ] test it\n\n" +
		"[ORIGINAL REQUEST]\n\nadd a --verbose flag"
	if len(res.History) != 1 || res.History[0].Role != llm.RoleUser || res.History[0].Content != want {
		t.Errorf("history:\n%+v\nwant one user message:\n%s", res.History, want)
	}
	if res.Fallback || res.Usage == nil || res.Usage.TotalTokens != 5020 {
		t.Errorf("fallback %v, usage %+v", res.Fallback, res.Usage)
	}
}

func TestCompactKeepsALaterRequest(t *testing.T) {
	t.Parallel()
	m := &fakeModel{script: []any{llm.Reply{Content: "Summary."}}}
	c := conversation()
	c.CurrentRequest = "now document it"
	res, err := (&Summarizer{Model: m}).Compact(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	got := res.History[0].Content
	if !strings.Contains(got, "[ORIGINAL REQUEST]\n\nadd a --verbose flag\n\n[CURRENT REQUEST]\n\nnow document it") {
		t.Errorf("history:\n%s", got)
	}
}

func TestCompactRetriesSmallerWhenTheServerSaysTooLong(t *testing.T) {
	t.Parallel()
	overflow := &llm.Error{Kind: llm.KindOverflow, ContextLimit: 4096, PromptTokens: 6000}
	m := &fakeModel{script: []any{overflow, llm.Reply{Content: "Summary."}}}
	res, err := (&Summarizer{Model: m}).Compact(context.Background(), conversation())
	if err != nil {
		t.Fatal(err)
	}
	if len(m.requests) != 2 {
		t.Fatalf("%d requests, want 2", len(m.requests))
	}
	first, second := len(m.requests[0].Messages[0].Content), len(m.requests[1].Messages[0].Content)
	if second >= first || Tokens(second) > 4096-Reserve(4096) {
		t.Errorf("second request of %d bytes after one of %d rejected for a 4096-token window", second, first)
	}
	if res.Fallback || res.Summary != "Summary." {
		t.Errorf("result %+v", res)
	}
}

func TestCompactFallsBackWithoutASummary(t *testing.T) {
	t.Parallel()
	overflow := &llm.Error{Kind: llm.KindOverflow}
	cases := map[string][]any{
		"empty reply":               {llm.Reply{Content: "<think>long thoughts</think>\n  "}},
		"overflow twice":            {overflow, overflow},
		"reasoning only, cut short": {llm.Reply{Reasoning: "thinking", FinishReason: "length"}},
	}
	for name, script := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			m := &fakeModel{script: script}
			res, err := (&Summarizer{Model: m}).Compact(context.Background(), conversation())
			if err != nil {
				t.Fatal(err)
			}
			got := res.History[0].Content
			if !res.Fallback || !strings.Contains(got, "No summary could be made") ||
				!strings.Contains(got, "Read main.go.") || !strings.HasSuffix(got, "[ORIGINAL REQUEST]\n\nadd a --verbose flag") {
				t.Errorf("fallback %v, history:\n%s", res.Fallback, got)
			}
			if Tokens(len(got)) > Reserve(8192)+200 {
				t.Errorf("fallback of ~%d tokens", Tokens(len(got)))
			}
		})
	}
}

func TestCompactWindowTooSmallForAnyRequest(t *testing.T) {
	t.Parallel()
	m := &fakeModel{}
	c := conversation()
	c.Window = 256
	res, err := (&Summarizer{Model: m}).Compact(context.Background(), c)
	if err != nil || len(m.requests) != 0 || !res.Fallback {
		t.Errorf("err %v, %d requests, fallback %v: want no request and a fallback", err, len(m.requests), res.Fallback)
	}
}

func TestCompactErrors(t *testing.T) {
	t.Parallel()
	for _, e := range []error{
		&llm.Error{Kind: llm.KindModelNotFound},
		&llm.Error{Kind: llm.KindServer, Status: 503},
		&llm.Error{Kind: llm.KindOverflow, ContextLimit: 2048, PromptTokens: 8, MaxTokensCause: true},
		context.Canceled,
	} {
		m := &fakeModel{script: []any{e}}
		if _, err := (&Summarizer{Model: m}).Compact(context.Background(), conversation()); !errors.Is(err, e) {
			t.Errorf("Compact error = %v, want %v", err, e)
		}
		if len(m.requests) != 1 {
			t.Errorf("%v: %d requests, want 1 (the caller owns the retry policy)", e, len(m.requests))
		}
	}
}

func TestCompactClipsALongSummary(t *testing.T) {
	t.Parallel()
	m := &fakeModel{script: []any{llm.Reply{Content: "START " + strings.Repeat("word ", 20000) + " END"}}}
	res, err := (&Summarizer{Model: m}).Compact(context.Background(), conversation())
	if err != nil {
		t.Fatal(err)
	}
	if n := Tokens(len(res.Summary)); n > Reserve(8192)+20 || !strings.HasPrefix(res.Summary, "START") || !strings.HasSuffix(res.Summary, "END") {
		t.Errorf("summary of ~%d tokens (reserve %d)", n, Reserve(8192))
	}
}

func TestReserve(t *testing.T) {
	t.Parallel()
	for window, want := range map[int]int{0: 4096, 256: 128, 2048: 512, 8192: 2048, 131072: 4096} {
		if got := Reserve(window); got != want {
			t.Errorf("Reserve(%d) = %d, want %d", window, got, want)
		}
	}
}

// No reply runs unbounded (SPEC §18): without maxTokens the summary's
// request is capped at the room reserved for the summary; maxTokens wins
// when set. The summariser's requests never carry a grammar.
func TestSummaryRequestIsCapped(t *testing.T) {
	t.Parallel()
	summary := llm.Reply{Content: "The user wants a --verbose flag."}
	m := &fakeModel{script: []any{summary, summary}}
	s := &Summarizer{Model: m, Params: llm.Params{Model: "summariser"}}
	if _, err := s.Compact(context.Background(), conversation()); err != nil {
		t.Fatal(err)
	}
	configured := 1000
	s.Params.MaxTokens = &configured
	if _, err := s.Compact(context.Background(), conversation()); err != nil {
		t.Fatal(err)
	}
	if got := m.requests[0].MaxTokens; got == nil || *got != Reserve(8192) {
		t.Errorf("max_tokens %v without maxTokens, want %d", got, Reserve(8192))
	}
	if got := m.requests[1].MaxTokens; got == nil || *got != 1000 {
		t.Errorf("max_tokens %v with maxTokens 1000", got)
	}
	for _, r := range m.requests {
		if r.Grammar != "" {
			t.Errorf("a summary request carried a grammar")
		}
	}
}
