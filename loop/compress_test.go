package loop

import (
	"context"
	"errors"
	"github.com/devagent/dev/event"
	"github.com/devagent/dev/parser"
	"github.com/devagent/dev/step"
	"strings"
	"testing"
	"time"

	"github.com/devagent/dev/compress"
	"github.com/devagent/dev/llm"
)

// fakeCompactor records what it is asked to compress and answers with a
// one-message history, or the scripted errors first.
type fakeCompactor struct {
	convs []compress.Conversation
	errs  []error
	// onCompact runs during the call, e.g. to cancel.
	onCompact func()
	// history, when set, is the history returned instead of the summary.
	history []llm.Message
}

const summaryText = "[CONTEXT SUMMARY]\n\nsummary\n\n[ORIGINAL REQUEST]\n\ndo it"

func (c *fakeCompactor) Compact(_ context.Context, conv compress.Conversation) (compress.Result, error) {
	c.convs = append(c.convs, conv)
	if c.onCompact != nil {
		c.onCompact()
	}
	if len(c.errs) > 0 {
		err := c.errs[0]
		c.errs = c.errs[1:]
		return compress.Result{}, err
	}
	h := c.history
	if h == nil {
		h = []llm.Message{{Role: llm.RoleUser, Content: summaryText}}
	}
	return compress.Result{
		History: h,
		Summary: "summary",
		Usage:   &llm.Usage{PromptTokens: 300, CompletionTokens: 10, TotalTokens: 310},
	}, nil
}

// compressFixture is a fixture whose loop compresses above 500 tokens of a
// 1000-token window.
func compressFixture(script ...any) (*fixture, *fakeCompactor) {
	f := newFixture(script...)
	c := &fakeCompactor{}
	f.loop.Compactor = c
	f.loop.ContextWindow = 1000
	f.loop.Threshold = 0.5
	f.loop.Now = func() time.Time { return time.Date(2026, 3, 1, 12, 0, 0, 0, time.FixedZone("x", 3600)) }
	return f, c
}

func eventsOf[T event.Event](r *recorder) []T {
	var out []T
	for _, e := range r.events {
		if v, ok := e.(T); ok {
			out = append(out, v)
		}
	}
	return out
}

func TestCompressesBeforeARequestNearTheWindow(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("x", 1200) // ~300 tokens in the reply, ~300 in the result
	withTasks := text("# Agent Response\n\n## Thoughts\nt\n\n## Task List\n[x] one\n[~] two\n\n## Tool Choice\nECHO\n\n## Tool Input\n" + big + "\n")
	f, c := compressFixture(withTasks, template("DONE", "ok"))
	o := f.run(t)
	if o.Stop != Done {
		t.Fatalf("outcome %+v", o)
	}
	if len(c.convs) != 1 {
		t.Fatalf("%d compressions, want 1", len(c.convs))
	}
	conv := c.convs[0]
	if len(conv.History) != 3 || conv.OriginalRequest != "do it" || conv.CurrentRequest != "do it" || conv.Window != 1000 {
		t.Errorf("conversation: %d messages, original %q, current %q, window %d", len(conv.History), conv.OriginalRequest, conv.CurrentRequest, conv.Window)
	}
	if len(conv.Tasks) != 2 || conv.Tasks[1] != (parser.Task{Status: "in-progress", Text: "two"}) {
		t.Errorf("tasks %+v", conv.Tasks)
	}
	second := f.model.requests[1].Messages
	if len(second) != 2 || second[0].Content != "SYSTEM" || second[1].Content != summaryText {
		t.Errorf("request after compression: %+v", second)
	}
	if f.sess.CompressionCount != 1 || len(f.sess.Compressions) != 1 {
		t.Fatalf("session: %d compressions recorded, count %d", len(f.sess.Compressions), f.sess.CompressionCount)
	}
	rec := f.sess.Compressions[0]
	if rec.TokensBefore < 500 || rec.TokensAfter >= rec.TokensBefore || rec.TokensAfter != compress.Tokens(len("SYSTEM")+len(summaryText)) {
		t.Errorf("compression record %+v", rec)
	}
	if rec.Timestamp.Location() != time.UTC || !rec.Timestamp.Equal(time.Date(2026, 3, 1, 11, 0, 0, 0, time.UTC)) {
		t.Errorf("timestamp %v", rec.Timestamp)
	}
	if len(f.sess.TaskList) != 2 {
		t.Errorf("task list not kept: %+v", f.sess.TaskList)
	}
	if f.sess.TotalTokens < 310 {
		t.Errorf("the summarisation request's tokens are not counted: %d", f.sess.TotalTokens)
	}
	done := eventsOf[event.Compressed](f.rec)
	if len(done) != 1 || done[0].Reason != event.ReasonThreshold || done[0].TokensBefore != rec.TokensBefore || done[0].TokensAfter != rec.TokensAfter {
		t.Errorf("compression events %+v", done)
	}
	if got := f.rec.names(); !strings.Contains(got, "tool_result,compression_start,compression,request") {
		t.Errorf("events %s", got)
	}
}

func TestNoCompressionBelowTheThresholdOrWithoutAWindow(t *testing.T) {
	t.Parallel()
	f, c := compressFixture(template("ECHO", "small"), template("DONE", "ok"))
	if o := f.run(t); o.Stop != Done || len(c.convs) != 0 {
		t.Fatalf("outcome %+v, %d compressions", o, len(c.convs))
	}
	f, c = compressFixture(template("ECHO", strings.Repeat("x", 50000)), template("DONE", "ok"))
	f.loop.ContextWindow = 0
	if o := f.run(t); o.Stop != Done || len(c.convs) != 0 {
		t.Fatalf("unknown window: outcome %+v, %d compressions", o, len(c.convs))
	}
}

func TestTheServersCountDrivesTheEstimate(t *testing.T) {
	t.Parallel()
	// By characters the history stays far below 500 tokens; the server
	// counts 480 for the first request, and the step adds the rest.
	first := template("ECHO", strings.Repeat("y", 80))
	first.Usage = &llm.Usage{PromptTokens: 480, TotalTokens: 500}
	f, c := compressFixture(first, template("DONE", "ok"))
	if o := f.run(t); o.Stop != Done || len(c.convs) != 1 {
		t.Fatalf("outcome %+v, %d compressions, want 1", o, len(c.convs))
	}
	if got := f.sess.Compressions[0].TokensBefore; got <= 480 {
		t.Errorf("tokensBefore %d: want the server's 480 plus what was added", got)
	}
}

func TestOverflowCompressesAndRetriesOnce(t *testing.T) {
	t.Parallel()
	overflow := &llm.Error{Kind: llm.KindOverflow, Status: 400, ContextLimit: 800, PromptTokens: 900, Message: "too long"}
	f, c := compressFixture(template("ECHO", "a"), overflow, template("DONE", "ok"))
	f.loop.ContextWindow = 4000
	o := f.run(t)
	if o.Stop != Done || len(f.model.requests) != 3 || len(c.convs) != 1 {
		t.Fatalf("outcome %+v after %d requests, %d compressions", o, len(f.model.requests), len(c.convs))
	}
	if c.convs[0].Window != 800 {
		t.Errorf("compressed for a window of %d, want the server's 800", c.convs[0].Window)
	}
	if got := f.model.requests[2].Messages; len(got) != 2 || got[1].Content != summaryText {
		t.Errorf("retry after compression: %+v", got)
	}
	if rec := f.sess.Compressions; len(rec) != 1 || rec[0].TokensBefore != 900 {
		t.Errorf("compressions %+v, want tokensBefore = the server's 900", rec)
	}
	if ev := eventsOf[event.Compressed](f.rec); len(ev) != 1 || ev[0].Reason != event.ReasonOverflow || ev[0].Window != 800 {
		t.Errorf("compression events %+v", ev)
	}
	if w := eventsOf[event.Warning](f.rec); len(w) != 1 || !strings.Contains(w[0].Message, "800 tokens") {
		t.Errorf("warnings %+v", w)
	}
	// The window stays lowered for the rest of the process.
	f.model.script = []any{template("DONE", "again")}
	f.loop.Run(context.Background(), f.sess, "more")
	if f.loop.Window.Size() != 800 {
		t.Errorf("window %d after the run, want 800", f.loop.Window.Size())
	}
}

func TestOverflowAgainAfterCompressingFails(t *testing.T) {
	t.Parallel()
	overflow := &llm.Error{Kind: llm.KindOverflow, Status: 400}
	f, c := compressFixture(template("ECHO", "a"), overflow, overflow, template("DONE", "never"))
	o := f.run(t)
	if o.Stop != Failed || !errors.Is(o.Err, step.ErrContextTooSmall) {
		t.Fatalf("outcome %+v", o)
	}
	var apiErr *llm.Error
	if !errors.As(o.Err, &apiErr) || apiErr.Kind != llm.KindOverflow {
		t.Errorf("the overflow is not kept in %v", o.Err)
	}
	if len(f.model.requests) != 3 || len(c.convs) != 1 {
		t.Errorf("%d requests, %d compressions: want 3 and 1, no loop", len(f.model.requests), len(c.convs))
	}
}

func TestOverflowAgainFailsWhateverTheCompactorReturns(t *testing.T) {
	t.Parallel()
	// A compacted history of two messages could be compressed again: the
	// second overflow in a row must end the run all the same.
	overflow := &llm.Error{Kind: llm.KindOverflow, Status: 400}
	script := []any{template("ECHO", "a")}
	for range 5 {
		script = append(script, overflow)
	}
	f, c := compressFixture(script...)
	c.history = []llm.Message{{Role: llm.RoleUser, Content: summaryText}, {Role: llm.RoleAssistant, Content: "ok"}}
	o := f.run(t)
	if o.Stop != Failed || !errors.Is(o.Err, step.ErrContextTooSmall) || len(f.model.requests) != 3 || len(c.convs) != 1 {
		t.Fatalf("outcome %+v after %d requests, %d compressions; want a failure after 3 and 1", o, len(f.model.requests), len(c.convs))
	}
}

func TestOverflowAfterASuccessCompressesAgain(t *testing.T) {
	t.Parallel()
	overflow := &llm.Error{Kind: llm.KindOverflow, Status: 400}
	f, c := compressFixture(template("ECHO", "a"), overflow, template("ECHO", "b"), overflow, template("DONE", "ok"))
	if o := f.run(t); o.Stop != Done || len(c.convs) != 2 {
		t.Fatalf("outcome %+v, %d compressions", o, len(c.convs))
	}
}

func TestOverflowWithNothingToCompress(t *testing.T) {
	t.Parallel()
	f, c := compressFixture(&llm.Error{Kind: llm.KindOverflow, Status: 400}, template("DONE", "never"))
	o := f.run(t)
	if o.Stop != Failed || !errors.Is(o.Err, step.ErrContextTooSmall) || len(c.convs) != 0 || len(f.model.requests) != 1 {
		t.Fatalf("outcome %+v, %d compressions, %d requests", o, len(c.convs), len(f.model.requests))
	}
	if len(f.sess.History) != 1 || !strings.Contains(f.sess.History[0].Content, "do it") {
		t.Errorf("the request left the history: %+v", f.sess.History)
	}
}

func TestOverflowCausedByMaxTokensIsNotCompressed(t *testing.T) {
	t.Parallel()
	e := &llm.Error{Kind: llm.KindOverflow, Status: 400, ContextLimit: 2048, PromptTokens: 8, MaxTokensCause: true}
	f, c := compressFixture(template("ECHO", "a"), e)
	maxTokens := 2045
	f.loop.Params.MaxTokens = &maxTokens // configured: only the user can lower it
	o := f.run(t)
	var apiErr *llm.Error
	if o.Stop != Failed || !errors.As(o.Err, &apiErr) || !apiErr.MaxTokensCause || len(c.convs) != 0 {
		t.Fatalf("outcome %+v, %d compressions", o, len(c.convs))
	}
}

// With maxTokens unset, a server that refuses the prompt plus dev's default
// cap (vLLM) gets the request again with the room it names, and later
// requests leave room for their prompt: no compression, no failure.
func TestOverflowCausedByTheDefaultCapLeavesRoom(t *testing.T) {
	t.Parallel()
	e := &llm.Error{Kind: llm.KindOverflow, Status: 400, ContextLimit: 1000, PromptTokens: 800, MaxTokensCause: true}
	f, c := compressFixture(template("ECHO", "a"), e, template("ECHO", "b"), template("DONE", "ok"))
	f.loop.Threshold = 0.95
	o := f.run(t)
	if o.Stop != Done || len(c.convs) != 0 {
		t.Fatalf("outcome %+v, %d compressions", o, len(c.convs))
	}
	var caps []int
	for _, r := range f.model.requests {
		caps = append(caps, *r.MaxTokens)
	}
	// 250: a quarter of the window; 200: the room the server named; then
	// what the window leaves of the estimated prompt, at most 250.
	if len(caps) != 4 || caps[0] != 250 || caps[1] != 250 || caps[2] != 200 || caps[3] > 250 {
		t.Errorf("max_tokens per request %v, want 250, 250, 200, then room for the prompt", caps)
	}
}

func TestEmptyReplyAtTheWindowIsAnOverflow(t *testing.T) {
	t.Parallel()
	empty := llm.Reply{FinishReason: "stop", Usage: &llm.Usage{PromptTokens: 1200, TotalTokens: 1200}}
	f, c := compressFixture(template("ECHO", "a"), empty, template("DONE", "ok"))
	o := f.run(t)
	if o.Stop != Done || len(c.convs) != 1 || o.FormatErrors != 0 {
		t.Fatalf("outcome %+v, %d compressions", o, len(c.convs))
	}
	if ev := eventsOf[event.Compressed](f.rec); len(ev) != 1 || ev[0].Reason != event.ReasonOverflow || ev[0].TokensBefore != 1200 {
		t.Errorf("compression events %+v", ev)
	}
	// Below the window, an empty reply is the model's problem (a format error).
	small := llm.Reply{FinishReason: "stop", Usage: &llm.Usage{PromptTokens: 100}}
	f, c = compressFixture(small, template("DONE", "ok"))
	if o := f.run(t); o.Stop != Done || len(c.convs) != 0 || o.FormatErrors != 1 {
		t.Fatalf("small empty reply: outcome %+v, %d compressions", o, len(c.convs))
	}
}

func TestTruncationWarnsOnceAndKeepsTheRequestInSight(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("z", 4000)
	step := func(input string, prompt int) llm.Reply {
		r := template("ECHO", input)
		r.Usage = &llm.Usage{PromptTokens: prompt, TotalTokens: prompt + 10}
		return r
	}
	// The server counts 300 tokens for prompts of 2000 and more.
	f, c := compressFixture(step(big, 10), step(big+"2", 300), step(big+"3", 300), template("DONE", "ok"))
	f.loop.ContextWindow = 100000
	if o := f.run(t); o.Stop != Done {
		t.Fatalf("outcome %+v", o)
	}
	var truncation []string
	for _, w := range eventsOf[event.Warning](f.rec) {
		if strings.Contains(w.Message, "Ollama") {
			truncation = append(truncation, w.Message)
		}
	}
	if len(truncation) != 1 || !strings.Contains(truncation[0], "read only 300 tokens") || !strings.Contains(truncation[0], "OLLAMA_CONTEXT_LENGTH") {
		t.Errorf("truncation warnings: %q", truncation)
	}
	if len(c.convs) == 0 || c.convs[0].Window != 300 {
		t.Fatalf("compressions %d; the server's count did not become the window", len(c.convs))
	}
}

func TestNoTruncationWarningWithoutUsage(t *testing.T) {
	t.Parallel()
	f, _ := compressFixture(template("ECHO", strings.Repeat("z", 8000)), template("DONE", "ok"))
	f.loop.ContextWindow = 100000
	f.run(t)
	if w := eventsOf[event.Warning](f.rec); len(w) != 0 {
		t.Errorf("warnings without usage: %+v", w)
	}
}

func TestCompressionFailures(t *testing.T) {
	t.Parallel()
	big := template("ECHO", strings.Repeat("x", 3000))
	// The compactor's model retries transient failures (an llm.Retrier);
	// an error that reaches the loop ends the run, named as a compression
	// failure.
	f, c := compressFixture(big, template("DONE", "never"))
	c.errs = []error{&llm.Error{Kind: llm.KindModelNotFound, Message: "no such model"}}
	o := f.run(t)
	if o.Stop != Failed || !errors.Is(o.Err, step.ErrCompression) || len(c.convs) != 1 {
		t.Fatalf("outcome %+v, %d compressions", o, len(c.convs))
	}
	if f.sess.CompressionCount != 0 || len(f.sess.History) != 3 {
		t.Errorf("a failed compression changed the session: count %d, history %d", f.sess.CompressionCount, len(f.sess.History))
	}
}

func TestInterruptDuringCompression(t *testing.T) {
	t.Parallel()
	f, c := compressFixture(template("ECHO", strings.Repeat("x", 3000)), template("DONE", "never"))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c.onCompact = cancel
	c.errs = []error{context.Canceled}
	o := f.loop.Run(ctx, f.sess, "do it")
	if o.Stop != Interrupted || f.sess.CompressionCount != 0 {
		t.Fatalf("outcome %+v, count %d", o, f.sess.CompressionCount)
	}
}

func TestCompressionDropsFailedAttempts(t *testing.T) {
	t.Parallel()
	f, c := compressFixture(template("ECHO", strings.Repeat("x", 1000)), text(strings.Repeat("garbage ", 200)), template("DONE", "ok"))
	if o := f.run(t); o.Stop != Done || len(c.convs) != 1 {
		t.Fatalf("outcome %+v, %d compressions", o, len(c.convs))
	}
	for _, m := range c.convs[0].History {
		if strings.Contains(m.Content, "garbage") {
			t.Errorf("a failed attempt was summarised: %.60q", m.Content)
		}
	}
}

func TestRunRecordsTheFirstRequestOfASession(t *testing.T) {
	t.Parallel()
	f := newFixture(template("DONE", "ok"), template("DONE", "ok"))
	f.run(t)
	if f.sess.OriginalPrompt != "do it" {
		t.Errorf("originalPrompt %q", f.sess.OriginalPrompt)
	}
	f.loop.Run(context.Background(), f.sess, "something else")
	if f.sess.OriginalPrompt != "do it" {
		t.Errorf("a later request replaced originalPrompt: %q", f.sess.OriginalPrompt)
	}
}

func TestLaterRequestKeptThroughCompression(t *testing.T) {
	t.Parallel()
	f, c := compressFixture(template("DONE", "first"), template("ECHO", strings.Repeat("x", 3000)), template("DONE", "ok"))
	f.run(t)
	f.loop.Run(context.Background(), f.sess, "now the second thing")
	if len(c.convs) != 1 || c.convs[0].OriginalRequest != "do it" || c.convs[0].CurrentRequest != "now the second thing" {
		t.Fatalf("compressions %+v", c.convs)
	}
}
