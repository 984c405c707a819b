package step

import (
	"context"
	"fmt"
	"strings"

	"github.com/devagent/dev/compress"
	"github.com/devagent/dev/event"
	"github.com/devagent/dev/llm"
	"github.com/devagent/dev/sessions"
)

// The context window: estimating the next prompt, compressing the history
// before it no longer fits, and handling the server's overflow errors.

// Room keeps a conversation inside the server's context window: the window
// (shared by a run's conversations), the compactor that summarises a
// history nearing it, and the fraction of the window at which it does
// (compressThreshold). The worker, the auditor and /compact are given one
// value.
type Room struct {
	// Window is the server's context window; nil or 0: unknown, never
	// compress before the server says the prompt is too long.
	Window *Window
	// Compactor compresses the history; nil never compresses.
	Compactor Compactor
	// Threshold is the fraction of the window at which the history is
	// compressed before a request.
	Threshold float64
}

// Window is the context window a conversation works with: the size the run
// started with, lowered for the rest of the process when the server shows
// that its window is smaller. Conversations with the same server share one.
type Window struct {
	size int
	// truncationWarned: the user was told once that the server truncates.
	truncationWarned bool
}

// NewWindow is a window of size tokens; 0 is unknown.
func NewWindow(size int) *Window { return &Window{size: size} }

// Size is the window in tokens, 0 when unknown.
func (w *Window) Size() int {
	if w == nil {
		return 0
	}
	return w.size
}

// Lower makes n the window when it is smaller than the one known. It
// reports whether it changed anything.
func (w *Window) Lower(n int) bool {
	if w == nil || n <= 0 || (w.size > 0 && n >= w.size) {
		return false
	}
	w.size = n
	return true
}

// estimate is the prompt size of the next request.
func (c *Conversation) estimate() int {
	return c.est.Estimate(c.request(c.plan()).Messages)
}

// MaybeCompress compresses the history before a request whose estimated
// prompt reaches the Threshold of the window.
func (c *Conversation) MaybeCompress(ctx context.Context) error {
	est := c.estimate()
	if !compress.Due(est, c.Window.Size(), c.Threshold) {
		return nil
	}
	_, err := c.Compress(ctx, est, event.ReasonThreshold)
	return err
}

// overflow handles a request the server rejected as too long: take the
// window it names, compress, and let the request go again. It returns the
// error that ends the conversation when that cannot help.
func (c *Conversation) overflow(ctx context.Context, e *llm.Error) error {
	switch {
	case e.MaxTokensCause:
		return e // the prompt fits; only a smaller maxTokens helps
	case c.overflowRetried:
		return fmt.Errorf("%w: %w", ErrContextTooSmall, e)
	}
	if c.Window.Lower(e.ContextLimit) {
		c.emit(event.Warning{Message: fmt.Sprintf("the server's context window is %d tokens (from its error); using that for the rest of the run", e.ContextLimit)})
	}
	before := e.PromptTokens
	if before <= 0 {
		before = c.estimate()
	}
	compacted, err := c.Compress(ctx, before, event.ReasonOverflow)
	if err != nil {
		return err
	}
	if !compacted {
		return fmt.Errorf("%w: %w", ErrContextTooSmall, e)
	}
	c.overflowRetried = true
	return nil
}

// silentOverflow spots an overflow a server reports as an empty reply
// (LM Studio): nothing at all came back, for a prompt at least as large as
// the window.
func (c *Conversation) silentOverflow(reply llm.Reply) error {
	w := c.Window.Size()
	if w <= 0 || reply.Usage == nil || reply.Usage.PromptTokens < w ||
		strings.TrimSpace(reply.Content) != "" || strings.TrimSpace(reply.Reasoning) != "" {
		return nil
	}
	return &llm.Error{Kind: llm.KindOverflow, Status: 200, PromptTokens: reply.Usage.PromptTokens,
		Message: fmt.Sprintf("an empty reply to a prompt of %d tokens, at or above the context window of %d", reply.Usage.PromptTokens, w)}
}

// observe records the server's count of a request's prompt, and warns once
// when the count shows the server truncating the conversation (Ollama cuts
// it silently to its context). The count it kept is the window from then
// on, so that compression keeps the request in sight.
func (c *Conversation) observe(sent []llm.Message, reply llm.Reply) {
	if !c.est.Observe(sent, reply.Usage) {
		return
	}
	n := reply.Usage.PromptTokens
	c.Window.Lower(n)
	if c.Window == nil || c.Window.truncationWarned {
		return
	}
	c.Window.truncationWarned = true
	c.emit(event.Warning{Message: fmt.Sprintf("the server read only %d tokens of a prompt of about %d: it is cutting the conversation to fit its context, so the model no longer sees all of it. "+
		"Likely cause: Ollama's default context (2048-8192 tokens depending on the version and memory). "+
		"Fix: give the server a larger context (Ollama: OLLAMA_CONTEXT_LENGTH=32768, or num_ctx in a Modelfile), or set maxContextTokens to the window it has. "+
		"Until then dev keeps the conversation below %d tokens.", n, compress.Tokens(compress.Chars(sent)), n)})
}

// Compress replaces the history with a summary; before is the prompt size
// that called for it. It reports false when there is nothing to compress:
// no compactor, or a history that is only the request (or a summary) with
// nothing added since.
func (c *Conversation) Compress(ctx context.Context, before int, reason string) (bool, error) {
	if c.Compactor == nil {
		return false, nil
	}
	// Unconfirmed attempts are not worth summarising; the model is asked
	// again after the compression.
	c.DropFailed()
	if len(c.State.History) < 2 {
		return false, nil
	}
	window := c.Window.Size()
	c.emit(event.Compressing{Agent: c.Agent, Tokens: before, Window: window, Reason: reason})
	res, err := c.Compactor.Compact(ctx, compress.Conversation{
		History:         c.State.History,
		OriginalRequest: c.State.OriginalPrompt,
		CurrentRequest:  c.Current,
		Tasks:           c.State.TaskList,
		Window:          window,
		Mask:            c.masker(),
	})
	if err != nil {
		if ctx.Err() != nil {
			return false, ctx.Err()
		}
		return false, fmt.Errorf("%w: %w", ErrCompression, err)
	}
	if res.Usage != nil {
		c.State.TotalTokens += res.Usage.TotalTokens
	}
	for _, reply := range res.Replies {
		c.record(sessions.PurposeCompress, llm.Request{Params: llm.Params{Model: res.Model}}, reply)
	}
	usage := received(c.Agent, res.Usage, before, len(res.Summary))
	usage.Compression = true
	c.emit(usage)
	c.State.History = res.History
	c.est.Reset()
	after := c.estimate()
	c.State.Compressions = append(c.State.Compressions, sessions.Compression{Timestamp: c.now().UTC(), TokensBefore: before, TokensAfter: after})
	c.State.CompressionCount++
	c.emit(event.Compressed{Agent: c.Agent, TokensBefore: before, TokensAfter: after, Window: window, Reason: reason, Cuts: res.Cuts, Fallback: res.Fallback})
	if res.Fallback {
		c.emit(event.Warning{Message: "the model gave no summary of the conversation; its last step stands in for one"})
	}
	if compress.Due(after, window, c.Threshold) {
		c.emit(event.Warning{Message: fmt.Sprintf("even compressed, the prompt takes about %d of the %d-token context window: the system prompt and the summary alone nearly fill it. Give the server a larger context.", after, window)})
	}
	if c.Save == nil {
		return true, nil
	}
	return true, c.Save()
}
