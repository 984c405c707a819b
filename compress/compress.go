// Package compress keeps a conversation within the server's context window:
// it estimates the size of the next prompt, says when to compress, asks a
// model to summarise the history (shortening the transcript first when even
// that request would not fit), and builds the one message that replaces the
// history. It knows nothing of the loop: the loop calls it.
package compress

import (
	"context"
	"errors"
	"strings"

	"github.com/devagent/dev/history"
	"github.com/devagent/dev/llm"
	"github.com/devagent/dev/parser"
	"github.com/devagent/dev/prompts"
)

// Model streams one chat completion (llm.Client does).
type Model interface {
	Stream(ctx context.Context, req llm.Request, onDelta func(llm.Delta)) (llm.Reply, error)
}

// Conversation is what Compact summarises.
type Conversation struct {
	History []llm.Message // without the system prompt
	// OriginalRequest is the session's first request; it is kept verbatim.
	OriginalRequest string
	// CurrentRequest is the request being worked on, kept verbatim too when
	// it is not the original one.
	CurrentRequest string
	Tasks          []parser.Task
	// Window is the server's context window in tokens: the summarisation
	// request and its reply must fit in it. 0 means unknown (no limit).
	Window int
	// Mask masks secrets in the model's summary before it joins the
	// history (SPEC §13); nil keeps it as written.
	Mask func(string) string
}

// Result is a compressed conversation.
type Result struct {
	// History replaces the conversation's history: one user message,
	// `[CONTEXT SUMMARY]\n\n{summary}\n\n[ORIGINAL REQUEST]\n\n{request}`.
	History []llm.Message
	Summary string
	Usage   *llm.Usage // the summarisation request's, nil when none
	// Replies are the summarisation requests' replies, without their
	// content: what each cost, for the session's records; Model is the
	// model they were made with.
	Replies []llm.Reply
	Model   string
	// Cuts counts the tool results and messages shortened or left out so
	// that the summarisation request fits the window.
	Cuts int
	// Fallback: the model gave no usable summary (an empty reply, or no
	// request could be made to fit), so the last step stands in for it.
	Fallback bool
}

// Summarizer compresses conversations with a model.
type Summarizer struct {
	Model Model
	// Params are the summarisation request's: Model is compressModel (by
	// default the worker's model); MaxTokens, the user's maxTokens, is
	// sent when set and kept free in the window. A summary is prose: no
	// Grammar is sent.
	Params llm.Params
}

// Sizing of the summarisation request, in tokens of the window.
const (
	minReserve = 256  // room for the summary at least
	maxReserve = 4096 // and at most
	// inputShare of what is left after the reserve is given to the request:
	// the estimate counts four characters per token, and code tokenises
	// denser than that.
	inputShare = 0.8
)

// Reserve is the room, in tokens, kept for the summary in a window: a
// quarter of it, at least 256 and at most 4096 tokens, and never more than
// half of a tiny window. The summary is cut to fit it.
func Reserve(window int) int {
	if window <= 0 {
		return maxReserve
	}
	return min(max(window/4, minReserve), maxReserve, window/2)
}

// Compact asks the model for a summary of c and returns the history that
// replaces it. When the request would not fit the window, the transcript is
// shortened first (see Fit); when the server still rejects it as too long,
// it is shortened again to what the server said, once. An empty summary, or
// a request that cannot fit at all, gives a Fallback result rather than an
// error: compression must always leave the run able to go on. Errors are
// those of the model call (network, authentication, unknown model, ...).
func (s *Summarizer) Compact(ctx context.Context, c Conversation) (Result, error) {
	reserve := Reserve(c.Window)
	if s.Params.MaxTokens != nil && *s.Params.MaxTokens > reserve {
		reserve = *s.Params.MaxTokens
	}
	budget := 0 // bytes of transcript; 0: no limit
	if c.Window > 0 {
		overhead := len(prompts.Summarize(""))
		budget = int(float64((c.Window-reserve)*CharsPerToken)*inputShare) - overhead
		if budget <= 0 {
			return s.fallback(c, reserve, 0), nil
		}
	}
	// No reply runs unbounded (SPEC §18): without maxTokens, the summary
	// gets the room reserved for it.
	params := s.Params
	params.Grammar = ""
	if params.MaxTokens == nil {
		params.MaxTokens = &reserve
	}
	var res Result
	for attempt := 1; ; attempt++ {
		text, cuts := Fit(c.History, budget)
		res.Cuts = cuts
		reply, err := s.Model.Stream(ctx, llm.Request{
			Params:   params,
			Messages: []llm.Message{{Role: llm.RoleUser, Content: prompts.Summarize(text)}},
		}, nil)
		var e *llm.Error
		if errors.As(err, &e) && e.Kind == llm.KindOverflow && !e.MaxTokensCause {
			if attempt > 1 {
				return s.fallback(c, reserve, res.Cuts), nil
			}
			budget = shrink(budget, len(text), reserve, e)
			continue
		}
		if err != nil {
			return Result{}, err
		}
		res.Usage, res.Model = reply.Usage, params.Model
		metered := reply
		metered.Content, metered.Reasoning = "", ""
		res.Replies = append(res.Replies, metered)
		summary, _ := parser.StripThinking(reply.Content)
		summary = strings.TrimSpace(summary)
		if c.Mask != nil {
			summary = c.Mask(summary)
		}
		if summary == "" {
			fb := s.fallback(c, reserve, res.Cuts)
			fb.Usage, fb.Replies, fb.Model = reply.Usage, res.Replies, res.Model
			return fb, nil
		}
		res.Summary = cutMiddle(summary, reserve*CharsPerToken)
		res.History = compacted(res.Summary, c)
		return res, nil
	}
}

// shrink is the transcript budget after the server rejected a request of
// sent bytes as too long: scaled to the limit it named, else halved.
func shrink(budget, sent, reserve int, e *llm.Error) int {
	if budget <= 0 {
		budget = sent
	}
	if e.ContextLimit > reserve && e.PromptTokens > 0 {
		scaled := int(float64(sent) * float64(e.ContextLimit-reserve) / float64(e.PromptTokens) * 0.9)
		return max(min(scaled, budget/2), 1)
	}
	return max(budget/2, 1)
}

// fallback builds the history without a model summary: the last step
// (the last reply and what followed it), shortened to the reserve.
func (s *Summarizer) fallback(c Conversation, reserve, cuts int) Result {
	from := len(c.History) - 1
	for from > 0 && c.History[from].Role != llm.RoleAssistant {
		from--
	}
	last, _ := Fit(c.History[max(from, 0):], reserve*CharsPerToken)
	summary := history.NoSummary(last)
	return Result{History: compacted(summary, c), Summary: summary, Cuts: cuts, Fallback: true}
}

// compacted is the history that replaces a compressed one: one message.
func compacted(summary string, c Conversation) []llm.Message {
	original := c.OriginalRequest
	if strings.TrimSpace(original) == "" {
		original = c.CurrentRequest
	}
	msg := history.Compressed{
		Summary:  summary,
		Tasks:    parser.TaskLines(c.Tasks),
		Original: original,
		Current:  c.CurrentRequest,
	}
	return []llm.Message{msg.Message()}
}
