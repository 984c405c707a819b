package loop

import (
	"context"
	"fmt"
	"strings"

	"github.com/devagent/dev/compress"
	"github.com/devagent/dev/llm"
	"github.com/devagent/dev/sessions"
)

// The context window: estimating the next prompt, compressing the history
// before it no longer fits, and handling the server's overflow errors.

// window is the context window the run works with, 0 when unknown.
func (r *run) window() int {
	if r.Loop.window > 0 {
		return r.Loop.window
	}
	return r.ContextWindow
}

// lowerWindow makes n the window for the rest of the process when it is
// smaller than the one known. It reports whether it changed anything.
func (r *run) lowerWindow(n int) bool {
	if n <= 0 || (r.window() > 0 && n >= r.window()) {
		return false
	}
	r.Loop.window = n
	return true
}

// estimate is the prompt size of the next request.
func (r *run) estimate() int {
	return r.est.Estimate(r.chatRequest().Messages)
}

// maybeCompress compresses the history before a request whose estimated
// prompt reaches CompressThreshold of the window.
func (r *run) maybeCompress(ctx context.Context) error {
	est := r.estimate()
	if !compress.Due(est, r.window(), r.CompressThreshold) {
		return nil
	}
	_, err := r.compress(ctx, est, ReasonThreshold)
	return err
}

// overflow handles a request the server rejected as too long: take the
// window it names, compress, and let the request go again. It returns the
// error that ends the run when that cannot help.
func (r *run) overflow(ctx context.Context, e *llm.Error) error {
	switch {
	case e.MaxTokensCause:
		return e // the prompt fits; only a smaller maxTokens helps
	case r.overflowRetried:
		return fmt.Errorf("%w: %w", ErrContextTooSmall, e)
	}
	if r.lowerWindow(e.ContextLimit) {
		r.emit(Warning{Message: fmt.Sprintf("the server's context window is %d tokens (from its error); using that for the rest of the run", e.ContextLimit)})
	}
	before := e.PromptTokens
	if before <= 0 {
		before = r.estimate()
	}
	compacted, err := r.compress(ctx, before, ReasonOverflow)
	if err != nil {
		return err
	}
	if !compacted {
		return fmt.Errorf("%w: %w", ErrContextTooSmall, e)
	}
	r.overflowRetried = true
	return nil
}

// silentOverflow spots an overflow a server reports as an empty reply
// (LM Studio): nothing at all came back, for a prompt at least as large as
// the window.
func (r *run) silentOverflow(reply llm.Reply) error {
	w := r.window()
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
func (r *run) observe(sent []llm.Message, reply llm.Reply) {
	if !r.est.Observe(sent, reply.Usage) {
		return
	}
	n := reply.Usage.PromptTokens
	r.lowerWindow(n)
	if r.truncationWarned {
		return
	}
	r.truncationWarned = true
	r.emit(Warning{Message: fmt.Sprintf("the server read only %d tokens of a prompt of about %d: it is cutting the conversation to fit its context, so the model no longer sees all of it. "+
		"Likely cause: Ollama's default context (2048-8192 tokens depending on the version and memory). "+
		"Fix: give the server a larger context (Ollama: OLLAMA_CONTEXT_LENGTH=32768, or num_ctx in a Modelfile), or set maxContextTokens to the window it has. "+
		"Until then dev keeps the conversation below %d tokens.", n, compress.Tokens(compress.Chars(sent)), n)})
}

// compress replaces the history with a summary. It reports false when there
// is nothing to compress: no compactor, or a history that is only the
// request (or a summary) with nothing added since.
func (r *run) compress(ctx context.Context, before int, reason string) (bool, error) {
	if r.Compactor == nil {
		return false, nil
	}
	if r.failedFrom >= 0 {
		// Unconfirmed attempts are not worth summarising; the model is
		// asked again after the compression.
		r.sess.History = r.sess.History[:r.failedFrom]
		r.failedFrom = -1
	}
	if len(r.sess.History) < 2 {
		return false, nil
	}
	window := r.window()
	r.emit(Compressing{Tokens: before, Window: window, Reason: reason})
	conv := compress.Conversation{
		History:         r.sess.History,
		OriginalRequest: r.sess.OriginalPrompt,
		CurrentRequest:  r.userRequest,
		Window:          window,
	}
	for _, t := range r.sess.TaskList {
		conv.Tasks = append(conv.Tasks, compress.Task{Status: t.Status, Text: t.Text})
	}
	res, err := r.Compactor.Compact(ctx, conv)
	if err != nil {
		if ctx.Err() != nil {
			return false, ctx.Err()
		}
		return false, fmt.Errorf("%w: %w", ErrCompression, err)
	}
	if res.Usage != nil {
		r.sess.TotalTokens += res.Usage.TotalTokens
	}
	r.sess.History = res.History
	r.est.Reset()
	after := r.estimate()
	r.sess.Compressions = append(r.sess.Compressions, sessions.Compression{Timestamp: r.now().UTC(), TokensBefore: before, TokensAfter: after})
	r.sess.CompressionCount++
	r.emit(Compressed{TokensBefore: before, TokensAfter: after, Window: window, Reason: reason, Cuts: res.Cuts, Fallback: res.Fallback})
	if res.Fallback {
		r.emit(Warning{Message: "the model gave no summary of the conversation; its last step stands in for one"})
	}
	if compress.Due(after, window, r.CompressThreshold) {
		r.emit(Warning{Message: fmt.Sprintf("even compressed, the prompt takes about %d of the %d-token context window: the system prompt and the summary alone nearly fill it. Give the server a larger context.", after, window)})
	}
	return true, r.save()
}
