// Package loop runs the worker: request a reply, parse it, run its tools,
// feed the results back, until DONE passes its audit, a limit or a failure.
// Each of those is a step of package step; the loop owns what makes them
// the worker's: the session they are kept in, the limits, repeat detection,
// and the audit of a DONE. It emits events and never prints.
package loop

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/devagent/dev/audit"
	"github.com/devagent/dev/event"
	"github.com/devagent/dev/history"
	"github.com/devagent/dev/llm"
	"github.com/devagent/dev/mention"
	"github.com/devagent/dev/parser"
	"github.com/devagent/dev/prompts"
	"github.com/devagent/dev/redact"
	"github.com/devagent/dev/sessions"
	"github.com/devagent/dev/shape"
	"github.com/devagent/dev/step"
	"github.com/devagent/dev/tools"
)

// Auditor checks a DONE before it is accepted (an *audit.Auditor).
type Auditor interface {
	Audit(ctx context.Context, in audit.Input) (audit.Result, error)
}

// Checkpoints records the working directory as the work goes (SPEC §12):
// before a request, with the history before it, and after each tool,
// returning what the tool changed.
type Checkpoints interface {
	BeforeRequest(ctx context.Context)
	AfterTool(ctx context.Context, step int, call parser.ToolCall, res tools.Result) []event.FileChange
}

// Saver persists the session after every step.
type Saver interface {
	Save(*sessions.Session) error
}

// Config holds the limits and request parameters of a run.
type Config struct {
	// Params go with every request of the worker.
	Params llm.Params
	// Constrain, Offered and Known shape the worker's replies (SPEC §18;
	// step.Conversation's): Known is shared with the auditor, and outlives
	// a Run (what the run learned of the server stands).
	Constrain    shape.Constrain
	Offered      []parser.GrammarTool
	Known        *shape.Known
	SystemPrompt string
	MaxLoops     int // replies per Run
	MaxRetries   int // consecutive unparseable replies before the run fails
	// RepeatLimit is how many identical steps in a row make a loop (default 3).
	RepeatLimit int
	// MaxAuditFailures is how many failed audits in a row end the run.
	MaxAuditFailures int
	// AuditOnlyChanges audits a DONE only when its request changed files
	// or ran a command (the audit policy "changes"); a pure answer is
	// accepted as it is.
	AuditOnlyChanges bool
	// Now is the clock of audit and compression records; nil is time.Now.
	Now func() time.Time

	// ContextWindow is the server's context window in tokens, used when
	// Room.Window is nil. 0: unknown, never compress before the server
	// says the prompt is too long.
	ContextWindow int

	// Plan: requests are worked on in plan mode (SPEC §17). The request
	// tells the model it may only read, the commands it may run being
	// those starting with one of PlanCommands; refusing the other tools
	// is Tools' business.
	Plan         bool
	PlanCommands []string
}

// Loop runs the worker against one model with one set of tools. A Loop may
// run several requests in turn (interactive mode); it is not safe for
// concurrent use.
type Loop struct {
	Model step.Model
	Tools tools.Set
	Env   *tools.Env
	Store Saver
	Sink  event.Sink
	// Auditor checks every DONE; nil accepts DONE as it is (--no-audit).
	Auditor Auditor
	// Room keeps the conversation inside the context window; its Window,
	// shared with the auditor, is nil: one of ContextWindow tokens, kept
	// from run to run.
	step.Room
	// Secrets masks what the conversation stores and shows: tool results
	// and the model's own text (see step.Conversation); nil masks nothing.
	Secrets *redact.Redactor
	// Checkpoints snapshot the working directory before each request and
	// after each tool; nil takes none.
	Checkpoints Checkpoints
	Config
}

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
	EarlyStops   int // replies closed because the model began inventing a tool's result
	// CutReplies counts the unusable replies that ran to the reply cap,
	// of CutLimit tokens (the last such cap).
	CutReplies, CutLimit int
	// Audit is what became of the accepted DONE's audit, for Done:
	// event.AuditPassed, AuditSkipped or AuditOff.
	Audit string
}

// run is the state of one Run.
type run struct {
	*Loop
	sess *sessions.Session
	conv *step.Conversation
	out  Outcome

	lastStep string // fingerprint of the previous step, for repeat detection
	repeats  int
	// interruptNoted: the history already tells the model about an interruption.
	interruptNoted bool

	// For the audit: the evidence of the work.
	files         []string
	commands      []audit.Command
	auditFailures int // in a row
}

// Run appends request to the session's history as the user's message and
// works on it until it ends. The session is saved after every step.
func (l *Loop) Run(ctx context.Context, sess *sessions.Session, request string) Outcome {
	if l.Window == nil {
		l.Window = step.NewWindow(l.ContextWindow)
	}
	r := &run{Loop: l, sess: sess}
	r.conv = &step.Conversation{
		Agent:      event.Worker,
		Model:      l.Model,
		Params:     l.Params,
		System:     l.SystemPrompt,
		Tools:      l.Tools,
		Env:        l.Env,
		Secrets:    l.Secrets,
		AfterTool:  r.afterTool,
		Sink:       l.Sink,
		Example:    formatExample(),
		MaxRetries: l.MaxRetries,
		Room:       l.Room,
		Constrain:  l.Constrain,
		Offered:    l.Offered,
		Known:      l.Known,
		State:      sess,
		Current:    request,
		Save:       r.save,
		Now:        l.Now,
	}
	if strings.TrimSpace(sess.OriginalPrompt) == "" {
		// An interactive session starts without one: its first message is
		// the request compression must never lose.
		sess.OriginalPrompt = request
	}
	// What a list of sessions shows of it (SPEC §17), kept so that lists
	// need not read histories: the requests made, the last as typed.
	sess.Prompts++
	sess.LastPrompt, _ = mention.Split(request)
	if l.Checkpoints != nil {
		l.Checkpoints.BeforeRequest(ctx)
	}
	if l.Plan {
		r.conv.Append(history.PlanRequest(request, l.PlanCommands))
	} else {
		r.conv.Append(history.Request(request))
	}
	sess.Status = sessions.Active
	if err := r.save(); err != nil {
		return r.finish(Outcome{Stop: Failed, Err: err})
	}
	for {
		if r.out.Loops >= l.MaxLoops {
			return r.finish(Outcome{Stop: MaxLoops})
		}
		if err := r.conv.MaybeCompress(ctx); err != nil {
			return r.finish(r.failure(ctx, err))
		}
		reply, err := r.conv.Request(ctx, r.out.Loops+1)
		if err != nil {
			return r.finish(r.failure(ctx, err))
		}
		r.out.Loops++
		resp, err := r.conv.Parse(reply)
		if err != nil {
			if exhausted := r.conv.Reject(reply, err); exhausted {
				return r.finish(Outcome{Stop: FormatFailed})
			}
			if err := r.save(); err != nil {
				return r.finish(Outcome{Stop: Failed, Err: err})
			}
			continue
		}
		r.conv.Accept(resp, r.out.Loops)
		results, done := r.conv.Act(ctx, resp)
		r.collectEvidence(results)
		switch {
		case done:
			if o, end := r.review(ctx, resp.Response, results); end {
				return r.finish(o)
			}
			if err := r.save(); err != nil {
				return r.finish(Outcome{Stop: Failed, Err: err})
			}
			continue
		case ctx.Err() != nil:
			r.conv.Append(history.InterruptedStep(resp.Tools, tools.Held(results)))
			r.interruptNoted = true
			return r.finish(Outcome{Stop: Interrupted})
		}
		note, stop := r.checkRepeat(resp.Response, results)
		if stop {
			return r.finish(Outcome{Stop: Looping})
		}
		r.conv.Append(history.Results(resp.Tools, tools.Held(results), note))
		if err := r.save(); err != nil {
			return r.finish(Outcome{Stop: Failed, Err: err})
		}
	}
}

// afterTool hands a tool's effect on the working directory to the
// checkpoints, with the step it belongs to.
func (r *run) afterTool(ctx context.Context, call parser.ToolCall, res tools.Result) []event.FileChange {
	if r.Checkpoints == nil {
		return nil
	}
	return r.Checkpoints.AfterTool(ctx, r.out.Loops, call, res)
}

// failure turns a request error into an outcome.
func (r *run) failure(ctx context.Context, err error) Outcome {
	if ctx.Err() != nil {
		return Outcome{Stop: Interrupted}
	}
	return Outcome{Stop: Failed, Err: err}
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
		r.emit(event.Warning{Message: fmt.Sprintf("the model repeated the same step %d times in a row", r.repeats)})
		return "", true
	case r.repeats == limit:
		r.emit(event.Warning{Message: "the model is repeating itself; told it to change approach"})
		return history.RepeatNote(resp.Tools[0].Name, limit), false
	}
	return "", false
}

func (r *run) save() error {
	if err := r.Store.Save(r.sess); err != nil {
		return fmt.Errorf("saving session: %w", err)
	}
	return nil
}

// finish records the outcome in the session and saves it one last time.
func (r *run) finish(o Outcome) Outcome {
	o.Loops, o.Audits = r.out.Loops, r.out.Audits
	o.FormatErrors, o.EarlyStops = r.conv.FormatErrors, r.conv.EarlyStops
	o.CutReplies, o.CutLimit = r.conv.CutReplies, r.conv.CutLimit
	// Failed attempts never outlive the run: a resumed session must not show
	// the model its own garbage as if it were accepted.
	r.conv.DropFailed()
	if o.Stop == Interrupted && !r.interruptNoted {
		r.conv.Append(history.InterruptedReply())
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

func (r *run) emit(e event.Event) {
	if r.Sink != nil {
		r.Sink.Emit(e)
	}
}

func (r *run) now() time.Time {
	if r.Now != nil {
		return r.Now()
	}
	return time.Now()
}

// formatExample is the worker's example conversation (step.Conversation's
// Example).
func formatExample() []llm.Message {
	turns := prompts.FormatExample()
	msgs := make([]llm.Message, len(turns))
	for i, t := range turns {
		msgs[i] = llm.Message{Role: llm.RoleUser, Content: t}
		if i%2 == 1 {
			msgs[i].Role = llm.RoleAssistant
		}
	}
	return msgs
}
