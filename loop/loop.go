// Package loop runs the worker: request a reply, parse it, run its tools, feed
// the results back, until DONE, a limit or a failure. It owns the history kept
// in the session, the handling of unusable replies, and when the history is
// compressed to fit the server's context window. It emits events and never
// prints.
package loop

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/devagent/dev/audit"
	"github.com/devagent/dev/compress"
	"github.com/devagent/dev/llm"
	"github.com/devagent/dev/parser"
	"github.com/devagent/dev/prompts"
	"github.com/devagent/dev/sessions"
	"github.com/devagent/dev/tools"
)

// Model streams one chat completion, retrying transient failures itself
// (llm.Retrier).
type Model interface {
	Stream(ctx context.Context, req llm.Request, onDelta func(llm.Delta)) (llm.Reply, error)
}

// Auditor checks a DONE before it is accepted (an *audit.Auditor).
type Auditor interface {
	Audit(ctx context.Context, in audit.Input) (audit.Result, error)
}

// Compactor summarises a conversation that no longer fits the context
// window (a *compress.Summarizer).
type Compactor interface {
	Compact(ctx context.Context, c compress.Conversation) (compress.Result, error)
}

// Saver persists the session after every step.
type Saver interface {
	Save(*sessions.Session) error
}

// Config holds the limits and request parameters of a run.
type Config struct {
	Model        string
	Temperature  *float64
	MaxTokens    *int
	SystemPrompt string
	MaxLoops     int // replies per Run
	MaxRetries   int // consecutive unparseable replies before the run fails
	// RepeatLimit is how many identical steps in a row make a loop (default 3).
	RepeatLimit int
	// MaxAuditFailures is how many failed audits in a row end the run.
	MaxAuditFailures int
	// Now is the clock of audit and compression records; nil is time.Now.
	Now func() time.Time

	// ContextWindow is the server's context window in tokens: the smaller
	// of maxContextTokens and what the server reports. 0: unknown, never
	// compress before the server says the prompt is too long.
	ContextWindow int
	// CompressThreshold is the fraction of the window at which the history
	// is compressed before a request.
	CompressThreshold float64
}

// Loop runs the worker against one model with one set of tools. A Loop may
// run several requests in turn (interactive mode); it is not safe for
// concurrent use.
type Loop struct {
	Model Model
	Tools tools.Set
	Env   *tools.Env
	Store Saver
	Sink  Sink
	// Auditor checks every DONE; nil accepts DONE as it is (--no-audit).
	Auditor Auditor
	// Compactor compresses the history; nil never compresses.
	Compactor Compactor
	Config

	// window, when not 0, replaces ContextWindow for the rest of the
	// process: the server said (or showed) that its window is smaller.
	window int
	// truncationWarned: the user was told once that the server truncates.
	truncationWarned bool
}

// Errors of a failed run, wrapping the cause.
var (
	// ErrContextTooSmall wraps a context overflow that compression could not
	// cure: the overflow came again right after compressing, or there was
	// nothing left to compress.
	ErrContextTooSmall = errors.New("the conversation does not fit the server's context window, even compressed")
	// ErrCompression wraps a failure of the summarisation request itself.
	ErrCompression = errors.New("compressing the conversation")
)

// Stop says why a run ended.
type Stop int

// Reasons a run ends.
const (
	Done         Stop = iota // DONE accepted
	Failed                   // API or runtime failure; Outcome.Err says which
	MaxLoops                 // MaxLoops replies without DONE
	FormatFailed             // unparseable replies, retries exhausted
	Looping                  // the model kept repeating the same step
	Interrupted              // the context was cancelled
	AuditFailed              // MaxAuditFailures failed audits in a row
)

// Outcome is the result of Run.
type Outcome struct {
	Stop         Stop
	Summary      string // DONE's summary
	Err          error  // for Failed
	Loops        int
	FormatErrors int
	Audits       int
}

// run is the state of one Run.
type run struct {
	*Loop
	sess *sessions.Session
	out  Outcome

	formatFailures int // consecutive
	// failedFrom is the history index where unconfirmed failed attempts
	// start (-1: none); they are removed once a reply parses.
	failedFrom int
	lastStep   string // fingerprint of the previous step, for repeat detection
	repeats    int
	// interruptNoted: the history already tells the model about an interruption.
	interruptNoted bool

	// For the audit: the request being worked on and the evidence of the work.
	userRequest   string
	files         []string
	commands      []audit.Command
	auditFailures int // in a row

	est compress.Estimator // the prompt size of the next request
	// overflowRetried: the last request overflowed and the history was
	// compressed for it; another overflow before a success ends the run.
	overflowRetried bool
}

// Run appends request to the session's history as the user's message and
// works on it until it ends. The session is saved after every step.
func (l *Loop) Run(ctx context.Context, sess *sessions.Session, request string) Outcome {
	r := &run{Loop: l, sess: sess, failedFrom: -1, userRequest: request}
	if strings.TrimSpace(sess.OriginalPrompt) == "" {
		// An interactive session starts without one: its first message is
		// the request compression must never lose.
		sess.OriginalPrompt = request
	}
	r.appendMessage(llm.RoleUser, prompts.UserRequest(request))
	sess.Status = sessions.Active
	if err := r.save(); err != nil {
		return r.finish(Outcome{Stop: Failed, Err: err})
	}
	for {
		if r.out.Loops >= l.MaxLoops {
			return r.finish(Outcome{Stop: MaxLoops})
		}
		if err := r.maybeCompress(ctx); err != nil {
			return r.finish(r.failure(ctx, err))
		}
		reply, err := r.request(ctx)
		if err != nil {
			return r.finish(r.failure(ctx, err))
		}
		r.out.Loops++
		resp, err := r.parse(reply)
		if err != nil {
			if stop := r.rejectReply(reply, err); stop {
				return r.finish(Outcome{Stop: FormatFailed})
			}
			if err := r.save(); err != nil {
				return r.finish(Outcome{Stop: Failed, Err: err})
			}
			continue
		}
		r.acceptReply(resp)
		results, done := r.act(ctx, resp)
		r.collectEvidence(results)
		switch {
		case done:
			if o, end := r.review(ctx, resp, results); end {
				return r.finish(o)
			}
			if err := r.save(); err != nil {
				return r.finish(Outcome{Stop: Failed, Err: err})
			}
			continue
		case ctx.Err() != nil:
			r.appendMessage(llm.RoleUser, tools.ResultsMessage(resp.Tools, results, "The user interrupted this step."))
			r.interruptNoted = true
			return r.finish(Outcome{Stop: Interrupted})
		}
		note, stop := r.checkRepeat(resp, results)
		if stop {
			return r.finish(Outcome{Stop: Looping})
		}
		r.appendMessage(llm.RoleUser, tools.ResultsMessage(resp.Tools, results, note))
		if err := r.save(); err != nil {
			return r.finish(Outcome{Stop: Failed, Err: err})
		}
	}
}

// request sends the history to the model. Retrying transient failures is
// the Model's business (an llm.Retrier); a context overflow compresses the
// history and sends it again, once, not counted as a retry.
func (r *run) request(ctx context.Context) (llm.Reply, error) {
	for {
		r.emit(RequestStarted{Step: r.out.Loops + 1})
		chunks := 0
		req := r.chatRequest()
		reply, err := r.Model.Stream(ctx, req, func(d llm.Delta) {
			chunks++
			r.emit(Streaming{Content: d.Content, Reasoning: d.Reasoning, Chunks: chunks})
		})
		if err == nil {
			err = r.silentOverflow(reply)
		}
		if err == nil {
			r.overflowRetried = false
			r.observe(req.Messages, reply)
			r.countTokens(reply)
			return reply, nil
		}
		var apiErr *llm.Error
		if ctx.Err() != nil || !errors.As(err, &apiErr) || apiErr.Kind != llm.KindOverflow {
			return llm.Reply{}, err
		}
		if err := r.overflow(ctx, apiErr); err != nil {
			return llm.Reply{}, err
		}
	}
}

func (r *run) chatRequest() llm.Request {
	msgs := make([]llm.Message, 0, len(r.sess.History)+1)
	msgs = append(msgs, llm.Message{Role: llm.RoleSystem, Content: r.SystemPrompt})
	msgs = append(msgs, r.sess.History...)
	return llm.Request{Model: r.Config.Model, Messages: msgs, Temperature: r.Temperature, MaxTokens: r.MaxTokens}
}

// countTokens adds the request's tokens to the session: the server's figure,
// or about four characters per token when it gives none.
func (r *run) countTokens(reply llm.Reply) {
	if reply.Usage != nil {
		r.sess.TotalTokens += reply.Usage.TotalTokens
		return
	}
	chars := len(r.SystemPrompt) + len(reply.Content) + len(reply.Reasoning)
	for _, m := range r.sess.History {
		chars += len(m.Content)
	}
	r.sess.TotalTokens += chars / 4
}

// failure turns a request error into an outcome.
func (r *run) failure(ctx context.Context, err error) Outcome {
	if ctx.Err() != nil {
		return Outcome{Stop: Interrupted}
	}
	return Outcome{Stop: Failed, Err: err}
}

// parse reads a reply into a response whose tool inputs are well formed.
func (r *run) parse(reply llm.Reply) (parser.Response, error) {
	if reply.FinishReason == "length" {
		return parser.Response{}, &parser.FormatError{Message: prompts.CutOff(strings.TrimSpace(reply.Content) == "")}
	}
	resp, err := tools.ParseReply(reply.Content, r.Tools)
	if err == nil && reply.Reasoning != "" {
		resp.Reasoning = strings.TrimSpace(reply.Reasoning + "\n" + resp.Reasoning)
	}
	return resp, err
}

// rejectReply tells the model why its reply could not be used. It reports
// whether the format retries are exhausted.
func (r *run) rejectReply(reply llm.Reply, err error) (stop bool) {
	r.formatFailures++
	r.out.FormatErrors++
	msg := err.Error()
	r.emit(FormatProblem{Message: msg, Attempt: r.formatFailures, Max: r.MaxRetries})
	if r.formatFailures > r.MaxRetries {
		return true
	}
	if r.failedFrom < 0 {
		r.failedFrom = len(r.sess.History)
	}
	content, _ := parser.StripThinking(reply.Content)
	if strings.TrimSpace(content) == "" {
		content = "(empty reply)"
	}
	r.appendMessage(llm.RoleAssistant, content)
	r.appendMessage(llm.RoleUser, "Your reply could not be used: "+msg+"\n\n"+prompts.FormatReminder())
	return false
}

// acceptReply records a parsed reply: failed attempts before it leave the
// history, and only the normalised template is kept.
func (r *run) acceptReply(resp parser.Response) {
	if r.failedFrom >= 0 {
		r.sess.History = r.sess.History[:r.failedFrom]
		r.failedFrom = -1
	}
	r.formatFailures = 0
	for _, w := range resp.Warnings {
		r.emit(Warning{Message: w})
	}
	if resp.HasTaskList {
		r.sess.TaskList = r.sess.TaskList[:0]
		for _, t := range resp.Tasks {
			r.sess.TaskList = append(r.sess.TaskList, sessions.Task{Status: string(t.Status), Text: t.Text})
		}
	}
	r.appendMessage(llm.RoleAssistant, resp.Template())
	r.emit(ReplyParsed{Step: r.out.Loops, Response: resp})
}

// act runs the reply's tools in order. It stops at the first failure and
// after DONE; done reports an accepted DONE.
func (r *run) act(ctx context.Context, resp parser.Response) (results []tools.Result, done bool) {
	for _, call := range resp.Tools {
		tool, _ := r.Tools.Lookup(call.Name) // checked in parse
		r.emit(ToolStarted{Tool: call.Name, Input: call.Input})
		res := tool.Run(ctx, r.Env, call.Input)
		r.emit(ToolFinished{Result: res})
		results = append(results, res)
		if res.Done && res.OK {
			return results, true
		}
		if !res.OK || ctx.Err() != nil {
			break
		}
	}
	return results, false
}

// checkRepeat detects a model stuck repeating the same step with the same
// results. At RepeatLimit identical steps the model is told to change
// approach; one more identical step ends the run.
func (r *run) checkRepeat(resp parser.Response, results []tools.Result) (note string, stop bool) {
	var b strings.Builder
	for _, c := range resp.Tools {
		b.WriteString(c.Name + "\x00" + c.Input + "\x00")
	}
	for _, res := range results {
		b.WriteString(res.Output + "\x00")
	}
	step := b.String()
	if step == r.lastStep {
		r.repeats++
	} else {
		r.lastStep, r.repeats = step, 1
	}
	limit := r.RepeatLimit
	if limit <= 0 {
		limit = 3
	}
	switch {
	case r.repeats > limit:
		r.emit(Warning{Message: fmt.Sprintf("the model repeated the same step %d times in a row", r.repeats)})
		return "", true
	case r.repeats == limit:
		msg := fmt.Sprintf("You have run %s with the same input %d times in a row and got the same result. Repeating it will not change anything: change your approach.", resp.Tools[0].Name, limit)
		r.emit(Warning{Message: "the model is repeating itself; told it to change approach"})
		return msg, false
	}
	return "", false
}

func (r *run) appendMessage(role, content string) {
	r.sess.History = append(r.sess.History, llm.Message{Role: role, Content: content})
}

func (r *run) save() error {
	if err := r.Store.Save(r.sess); err != nil {
		return fmt.Errorf("saving session: %w", err)
	}
	return nil
}

// finish records the outcome in the session and saves it one last time.
func (r *run) finish(o Outcome) Outcome {
	o.Loops, o.FormatErrors, o.Audits = r.out.Loops, r.out.FormatErrors, r.out.Audits
	// Failed attempts never outlive the run: a resumed session must not show
	// the model its own garbage as if it were accepted.
	if r.failedFrom >= 0 {
		r.sess.History = r.sess.History[:r.failedFrom]
		r.failedFrom = -1
	}
	if o.Stop == Interrupted && !r.interruptNoted {
		r.appendMessage(llm.RoleUser, "The user interrupted the request before the reply was complete.")
	}
	switch o.Stop {
	case Done:
		r.sess.Status = sessions.Complete
	case Interrupted:
		r.sess.Status = sessions.Interrupted
	default:
		r.sess.Status = sessions.Failed
	}
	if err := r.save(); err != nil && o.Err == nil && o.Stop != Interrupted {
		o.Stop, o.Err = Failed, err
	}
	return o
}

func (r *run) emit(e Event) {
	if r.Sink != nil {
		r.Sink.Emit(e)
	}
}
