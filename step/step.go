// Package step is the protocol step that the worker and the auditor both
// take: send the conversation to the model, parse the reply, turn an
// unusable one back to the model with a precise message, accept a good one
// into the history, and run its tools. It keeps the conversation inside the
// server's context window (compressing before a request that would not fit,
// and after the server says one did not). It emits events and never prints;
// what a conversation is for (the work, the audit) is its caller's business.
package step

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/devagent/dev/compress"
	"github.com/devagent/dev/event"
	"github.com/devagent/dev/history"
	"github.com/devagent/dev/llm"
	"github.com/devagent/dev/parser"
	"github.com/devagent/dev/prompts"
	"github.com/devagent/dev/redact"
	"github.com/devagent/dev/sessions"
	"github.com/devagent/dev/shape"
	"github.com/devagent/dev/textfmt"
	"github.com/devagent/dev/tools"
)

// Model streams one chat completion, retrying transient failures itself
// (llm.Retrier).
type Model interface {
	Stream(ctx context.Context, req llm.Request, onDelta func(llm.Delta)) (llm.Reply, error)
}

// Compactor summarises a conversation that no longer fits the context
// window (a *compress.Summarizer).
type Compactor interface {
	Compact(ctx context.Context, c compress.Conversation) (compress.Result, error)
}

// Errors that end a conversation, wrapping their cause.
var (
	// ErrContextTooSmall wraps a context overflow that compression could not
	// cure: the overflow came again right after compressing, or there was
	// nothing left to compress.
	ErrContextTooSmall = errors.New("the conversation does not fit the server's context window, even compressed")
	// ErrCompression wraps a failure of the summarisation request itself.
	ErrCompression = errors.New("compressing the conversation")
)

// Conversation is one agent's side of a protocol conversation. Its state
// (history, task list, compressions, tokens) is a sessions.Session: the
// worker's is the session the user resumes; the auditor's lives only in
// memory. A Conversation is not safe for concurrent use.
type Conversation struct {
	Agent event.Agent // marks every event the conversation emits
	Model Model
	// Params go with every request. MaxTokens caps every reply
	// (maxTokens); nil sends the default cap of SPEC §18 (shape.ReplyCap
	// of the window). The shape of the replies is added to them.
	Params llm.Params
	// Constrain and Offered shape the replies (SPEC §18, shape.Plan): the
	// setting, and the tools the shape offers (the conversation's, ASK_USER
	// only where someone answers). Known is what the run knows of the
	// server and the model, shared by its conversations and taught by
	// their replies; nil: nothing is known, and no shape is sent.
	Constrain shape.Constrain
	Offered   []parser.GrammarTool
	Known     *shape.Known
	System    string // the system prompt, sent first in every request
	Tools     tools.Set
	Env       *tools.Env
	// Secrets masks what the conversation stores and shows (SPEC §13),
	// once, where it enters: tool results, and the model's own text (its
	// replies accepted or rejected, their reasoning and content as they
	// stream, a summary that replaces the history). The model, the session
	// and every renderer see the same masked text; the tools run with the
	// model's text as written. Nil masks nothing.
	Secrets *redact.Redactor
	// AfterTool, when set, is told of each tool that ran, before its result
	// is emitted, and returns what it changed in the working directory
	// (the worker's checkpoints).
	AfterTool func(ctx context.Context, call parser.ToolCall, res tools.Result) []event.FileChange
	Sink      event.Sink
	// Example is an exchange sent between the system prompt and the
	// history once two replies in a row could not be parsed, and from then
	// on (see prompts.FormatExample); nil never. Models that follow the
	// format never pay for it.
	Example []llm.Message
	// MaxRetries is how many unusable replies in a row are told to the
	// model before Reject reports the retries exhausted.
	MaxRetries int

	// Room keeps the conversation inside the server's context window.
	Room

	// State holds the history and what is recorded of it.
	State *sessions.Session
	// Current is the request being worked on: kept verbatim through
	// compression, like State.OriginalPrompt.
	Current string
	// Save persists State after a change the caller did not make itself
	// (a compression); nil keeps nothing.
	Save func() error
	// Now is the clock of compression records; nil is time.Now.
	Now func() time.Time

	// formatFailures counts unusable replies in a row; FormatErrors all of
	// them.
	formatFailures int
	FormatErrors   int
	// showExample: two replies in a row failed to parse, so requests
	// carry Example.
	showExample bool
	// EarlyStops counts replies closed because the model began inventing
	// a tool's result.
	EarlyStops int
	// CutReplies counts the unusable replies that ran to the reply cap,
	// CutLimit the cap of the last of them.
	CutReplies, CutLimit int
	// lessThinking: the last reply was all reasoning; the next request
	// asks for less.
	lessThinking bool
	// failedFrom is the history index where unconfirmed failed attempts
	// start, when hasFailed; they leave once a reply parses.
	failedFrom int
	hasFailed  bool
	est        compress.Estimator // the prompt size of the next request
	// overflowRetried: the last request overflowed and the history was
	// compressed for it; another overflow before a success ends the run.
	overflowRetried bool
	// planned is what the requests are sent with, for plannedFor (see
	// plan); form converts replies in the JSON form, built once.
	planned    shape.Request
	plannedFor *planKey
	form       *parser.JSONForm
	// unshaped: the last reply came to a request in the JSON form and was
	// not in it (the server did not apply the schema).
	unshaped bool
	// strictCap: the server refused a prompt plus max_tokens larger than
	// its window (vLLM does): the default cap leaves room for the prompt.
	strictCap bool
	// capRoom, when not 0, is the room the server's refusal named, for
	// the one request sent again.
	capRoom int
	// sent is the reply cap of the last request, and whether maxTokens
	// set it.
	sent struct {
		maxTokens  int
		configured bool
	}
}

// Request sends the conversation to the model as reply number step.
// Retrying transient failures is the Model's business; a context overflow
// compresses the history and sends it again, once, not counted as a retry.
func (c *Conversation) Request(ctx context.Context, step int) (llm.Reply, error) {
	for {
		c.emit(event.RequestStarted{Agent: c.Agent, Step: step})
		chunks, chars := 0, 0
		plan := c.plan()
		req := c.request(plan)
		c.lessThinking = false // it was for this one request
		var watch parser.InventionWatch
		cut := 0
		req.Stop = func(d llm.Delta) bool {
			at, found := watch.Feed(d.Content)
			cut = at
			return found
		}
		var streaming atomic.Bool // a piece of the reply came: no need to say the server is there
		req.Alive = func() {
			if !streaming.Load() {
				c.emit(event.ServerAlive{Agent: c.Agent})
			}
		}
		prompt := c.est.Estimate(req.Messages) // before observe changes what it knows
		req.MaxTokens = c.replyCap(plan, prompt)
		started := c.now()
		var partial strings.Builder // the reply so far, kept if the user interrupts it
		// What streams is shown as it comes, masked: a secret split
		// between two pieces is held back until it is whole.
		content, reasoning := c.Secrets.NewStream(), c.Secrets.NewStream()
		reply, err := c.Model.Stream(ctx, req, func(d llm.Delta) {
			streaming.Store(true)
			chunks++
			chars += len(d.Content) + len(d.Reasoning)
			if partial.Len() < sessions.PartialMax {
				partial.WriteString(d.Content)
			}
			c.emit(event.Streaming{Agent: c.Agent, Content: content.Write(d.Content), Reasoning: reasoning.Write(d.Reasoning), Chunks: chunks,
				Tokens: compress.Tokens(chars), Estimated: true})
		})
		if rest, more := content.Flush(), reasoning.Flush(); rest != "" || more != "" {
			c.emit(event.Streaming{Agent: c.Agent, Content: rest, Reasoning: more, Chunks: chunks, Tokens: compress.Tokens(chars), Estimated: true})
		}
		if err == nil && reply.Stopped {
			c.stoppedEarly(&reply, cut)
		}
		if err == nil {
			err = c.silentOverflow(reply)
		}
		if err == nil {
			c.overflowRetried = false
			c.capRoom = 0
			c.fromJSON(&reply)
			c.learn(reply)
			c.observe(req.Messages, reply)
			c.countTokens(reply)
			c.record(c.purpose(), req, reply)
			c.emit(received(c.Agent, reply.Usage, prompt, len(reply.Content)+len(reply.Reasoning)))
			return reply, nil
		}
		if ctx.Err() != nil && chunks > 0 {
			c.interrupted(req, started, partial.String(), chars)
		}
		var apiErr *llm.Error
		if ctx.Err() != nil || !errors.As(err, &apiErr) || apiErr.Kind != llm.KindOverflow {
			return llm.Reply{}, err
		}
		if c.roomForDefaultCap(apiErr) {
			continue
		}
		if err := c.overflow(ctx, apiErr); err != nil {
			return llm.Reply{}, err
		}
	}
}

// interrupted keeps what came of a reply the user interrupted while it
// streamed (partial, of chars characters with the reasoning): in the
// request records, marked interrupted, its reasoning removed and secrets
// masked, and never in the history, which the model reads as replies it
// finished. The renderers are told, so the Thoughts streamed stay on the
// screen.
func (c *Conversation) interrupted(req llm.Request, started time.Time, partial string, chars int) {
	content, _ := parser.StripThinking(partial)
	content = strings.ToValidUTF8(content[:min(len(content), sessions.PartialMax)], "")
	content = c.mask(content)
	r := sessions.Request{
		Timestamp:        started.UTC(),
		Model:            req.Model,
		Purpose:          c.purpose(),
		DurationMs:       c.now().Sub(started).Milliseconds(),
		PromptTokens:     compress.Tokens(compress.Chars(req.Messages)),
		CompletionTokens: compress.Tokens(chars),
		Estimated:        true, // the server counts a reply only once it ends
		Interrupted:      true,
		Partial:          content,
	}
	if req.MaxTokens != nil {
		r.MaxTokens = *req.MaxTokens
	}
	c.State.Requests = append(c.State.Requests, r)
	c.emit(event.ReplyInterrupted{Agent: c.Agent, Content: content})
}

// replyCap is the max_tokens of the next request, whose prompt is about
// prompt tokens: the plan's (maxTokens when set, else the default cap of
// SPEC §18, doubled for a model that reasons), within what the window
// leaves once the server has shown it refuses more.
func (c *Conversation) replyCap(plan shape.Request, prompt int) *int {
	if c.Params.MaxTokens != nil {
		c.sent.maxTokens, c.sent.configured = *c.Params.MaxTokens, true
		return c.Params.MaxTokens
	}
	n := plan.ReplyCap
	if w := c.Window.Size(); c.strictCap && w > 0 {
		n = min(n, max(w-prompt-capMargin, capMargin))
	}
	if c.capRoom > 0 {
		n = min(n, c.capRoom)
	}
	c.sent.maxTokens, c.sent.configured = n, false
	return &n
}

// capMargin is left between an estimated prompt and the window.
const capMargin = 64

// planKey is what a plan depends on besides the conversation's settings,
// which do not change.
type planKey struct {
	known  shape.Known
	window int
}

// plan is what the next request is sent with (shape.Plan), computed again
// only when what the run knows or the window changed.
func (c *Conversation) plan() shape.Request {
	key := planKey{*c.known(), c.Window.Size()}
	if c.plannedFor == nil || *c.plannedFor != key {
		c.planned = shape.Plan(shape.Settings{Params: c.Params, Constrain: c.Constrain, Window: key.window}, c.Offered, key.known)
		c.plannedFor = &key
	}
	return c.planned
}

// known is what the run knows of the server and the model.
func (c *Conversation) known() *shape.Known {
	if c.Known == nil {
		c.Known = &shape.Known{}
	}
	return c.Known
}

// fromJSON turns a reply to a request in the JSON form into the template,
// before anything records or shows it (SPEC §18). A reply that is not in
// the form stays as it came, and unshaped says so to Parse.
func (c *Conversation) fromJSON(reply *llm.Reply) {
	c.unshaped = false
	if reply.Shaped != llm.ShapeJSON {
		return
	}
	if c.form == nil {
		c.form = parser.ReplyJSON(c.Offered)
	}
	text, err := c.form.Template(reply.Content)
	if err != nil {
		c.unshaped = true
		return
	}
	reply.Content = text
}

// learn notes what a reply shows of the model and the server: reasoning,
// and a shape the server refused (told once: the client sends no shape
// after).
func (c *Conversation) learn(reply llm.Reply) {
	k := c.known()
	if !k.Reasoning && strings.TrimSpace(reply.Reasoning) != "" {
		k.Reasoning = true
	}
	if !k.Reasoning && strings.Contains(reply.Content, "think>") {
		if _, thinking := parser.StripThinking(reply.Content); thinking != "" {
			k.Reasoning = true
		}
	}
	if reply.ShapeRejected != llm.ShapeNone {
		k.Rejected = true
		c.emit(event.Warning{Message: fmt.Sprintf("the server rejected the %s (%s); dev sends its requests without it for the rest of the run, so replies are not shaped (constrain: off stops sending it)",
			shapeName(reply.ShapeRejected), textfmt.Excerpt(reply.ShapeError, 160))})
	}
}

// shapeName names a form of the shape for the user.
func shapeName(f llm.Shape) string {
	if f == llm.ShapeJSON {
		return "reply's JSON schema"
	}
	return "reply grammar"
}

// shapeIgnored handles a reply that did not parse as the shape of its
// request allows: the server took the shape and did not apply it. The
// request is recorded as not shaped, the run sends that form no more (the
// JSON form, where the server takes it, instead of the grammar), and the
// user is told once.
func (c *Conversation) shapeIgnored(form llm.Shape) {
	if n := len(c.State.Requests); n > 0 {
		c.State.Requests[n-1].Constrained = sessions.NotConstrained
	}
	field := c.planned.Field
	k := c.known()
	switch form {
	case llm.ShapeGrammar:
		k.GrammarIgnored = true
	case llm.ShapeJSON:
		k.JSONIgnored = true
	}
	then := "sends no shape for the rest of the run, so replies are not shaped"
	if next := shape.Form(c.Constrain, *k); next == llm.ShapeJSON {
		then = "sends the JSON form (response_format) instead for the rest of the run"
	}
	c.emit(event.Warning{Message: fmt.Sprintf("the server ignored the %s (sent in %s): the reply did not follow it; dev %s. dev doctor tells which form the server applies",
		shapeName(form), field, then)})
}

// roomForDefaultCap handles a server that refuses a prompt plus the
// default reply cap as longer than its window (vLLM): the request goes
// again, once, with the room the server names, and later caps leave room
// for the prompt. It reports whether the request should go again.
func (c *Conversation) roomForDefaultCap(e *llm.Error) bool {
	if !e.MaxTokensCause || c.Params.MaxTokens != nil || c.capRoom > 0 {
		return false
	}
	c.strictCap = true
	room := e.ContextLimit - e.PromptTokens
	if e.ContextLimit <= 0 || e.PromptTokens <= 0 || room <= 0 {
		return false
	}
	c.capRoom = room
	return true
}

// received is the ReplyReceived event of a reply: the server's count, or
// the prompt's estimate and about four characters per generated token.
func received(agent event.Agent, usage *llm.Usage, promptEstimate, replyChars int) event.ReplyReceived {
	if usage != nil {
		return event.ReplyReceived{Agent: agent, PromptTokens: usage.PromptTokens, CompletionTokens: usage.CompletionTokens}
	}
	return event.ReplyReceived{Agent: agent, PromptTokens: promptEstimate, CompletionTokens: compress.Tokens(replyChars), Estimated: true}
}

// request is the next chat request of plan: the system prompt, what the
// model is told of the JSON form while it is sent, then the history. The
// note comes in the messages, never in the system prompt, and before the
// history, where it stays put: each request's prompt is the last one's
// and more, so the server's prompt cache keeps all of it (at the end of
// the last message, it would be processed again at every step).
func (c *Conversation) request(plan shape.Request) llm.Request {
	msgs := make([]llm.Message, 0, len(c.State.History)+2+len(c.Example))
	msgs = append(msgs, llm.Message{Role: llm.RoleSystem, Content: c.System})
	if plan.Note != "" {
		msgs = append(msgs, llm.Message{Role: llm.RoleUser, Content: plan.Note})
	}
	if c.showExample {
		msgs = append(msgs, c.Example...)
	}
	msgs = append(msgs, c.State.History...)
	return llm.Request{Params: plan.Params, Messages: msgs, LessThinking: c.lessThinking}
}

// stoppedEarly keeps what came before the invented result: the template
// whose tools will run. The rest never reaches the history.
func (c *Conversation) stoppedEarly(reply *llm.Reply, cut int) {
	reply.Content = reply.Content[:min(cut, len(reply.Content))]
	c.EarlyStops++
	c.emit(event.Warning{Message: "the model began writing the tool's result itself; stopped its reply there and ran the tool"})
}

// countTokens adds a request's tokens to the state: the server's figure, or
// about four characters per token when it gives none.
func (c *Conversation) countTokens(reply llm.Reply) {
	if reply.Usage != nil {
		c.State.TotalTokens += reply.Usage.TotalTokens
		return
	}
	chars := len(c.System) + len(reply.Content) + len(reply.Reasoning) + compress.Chars(c.State.History)
	c.State.TotalTokens += chars / compress.CharsPerToken
}

// Parse reads a reply into a response whose tool inputs are well formed,
// each read by its tool once, for Act; or a *parser.FormatError for the
// model.
func (c *Conversation) Parse(reply llm.Reply) (tools.Reply, error) {
	if reply.FinishReason == "length" {
		content, _ := parser.StripThinking(reply.Content)
		empty := strings.TrimSpace(content) == ""
		if reply.Cut || c.sent.maxTokens == 0 {
			return tools.Reply{}, &parser.FormatError{Message: prompts.CutOff(empty)}
		}
		return tools.Reply{}, &CutError{Limit: c.sent.maxTokens, Configured: c.sent.configured, Message: prompts.CutAtLimit(empty, c.sent.maxTokens)}
	}
	resp, err := tools.ParseReply(reply.Content, c.Tools)
	// Every reply a shape allows parses: one that does not came from a
	// server that did not apply it.
	switch {
	case reply.Shaped == llm.ShapeJSON && c.unshaped, reply.Shaped == llm.ShapeGrammar && err != nil && !reply.Stopped:
		c.shapeIgnored(reply.Shaped)
	}
	if err == nil && reply.Reasoning != "" {
		resp.Reasoning = strings.TrimSpace(reply.Reasoning + "\n" + resp.Reasoning)
	}
	return resp, err
}

// Reject tells the model why its reply could not be used: the reply and the
// reason join the history until a reply parses. From the second failure in
// a row, requests show the example exchange (Example) and the failed
// attempts before it leave. It reports whether the retries are exhausted,
// in which case nothing is added.
func (c *Conversation) Reject(reply llm.Reply, err error) (exhausted bool) {
	c.formatFailures++
	c.FormatErrors++
	// The reply and the problem (which may quote it) are stored and shown
	// masked.
	msg := c.mask(err.Error())
	var cut *CutError
	isCut := errors.As(err, &cut)
	head, tail, lines := Glimpse(c.mask(reply.Content))
	if n := len(c.State.Requests); n > 0 {
		r := &c.State.Requests[n-1] // the reply just requested
		r.FormatError = true
		r.Rejected = &sessions.Rejected{Problem: msg, Head: head, Tail: tail, Lines: lines, Cut: isCut}
	}
	// constrain auto: Ollama and LM Studio get the JSON form from the
	// first reply that missed the template on.
	c.known().Missed = true
	jsonNext := shape.Form(c.Constrain, *c.known()) == llm.ShapeJSON
	exhausted = c.formatFailures > c.MaxRetries
	problem := event.FormatProblem{Agent: c.Agent, Message: msg, Attempt: min(c.formatFailures, c.MaxRetries), Max: c.MaxRetries,
		Final: exhausted, Head: head, Tail: tail, Lines: lines}
	if isCut {
		problem.Cut, problem.Limit, problem.Configured = true, cut.Limit, cut.Configured
		c.CutReplies++
		c.CutLimit = cut.Limit
	}
	c.emit(problem)
	if exhausted {
		return true
	}
	withAttempt := true
	if c.formatFailures == 2 && len(c.Example) > 0 {
		// The second unusable reply in a row: from now on requests show
		// the example exchange, and the failed attempts leave: a small
		// model copies its own attempts more readily than the example.
		c.DropFailed()
		c.showExample, withAttempt = true, false
	}
	if !c.hasFailed {
		c.failedFrom, c.hasFailed = len(c.State.History), true
	}
	content, thinking := parser.StripThinking(reply.Content)
	if strings.TrimSpace(content) == "" {
		if strings.TrimSpace(reply.Reasoning+thinking) != "" && c.Params.Thinking != llm.ThinkingOff {
			// All reasoning and no answer: the budget went on thinking.
			c.lessThinking = true
			c.emit(event.Warning{Message: "the reply was all reasoning and no answer; asking the model to think less for the next request"})
		}
	}
	if !withAttempt {
		// The example shows the template: the reminder's outline of it,
		// placeholders and all, is what small models copied instead.
		c.Append(history.FormatError(msg, false))
		return false
	}
	c.Append(history.Attempt(c.mask(content)))
	// While the JSON form is sent, the request shows it instead of the
	// template's outline.
	c.Append(history.FormatError(msg, !jsonNext))
	return false
}

// Accept records a parsed reply as reply number step: failed attempts
// before it leave the history, its task list (when it has one) replaces
// the state's, and only the normalised template is kept, masked (Act runs
// the tools of resp as written).
func (c *Conversation) Accept(reply tools.Reply, step int) {
	c.DropFailed()
	c.formatFailures = 0
	resp := reply.Masked(c.masker())
	for _, w := range resp.Warnings {
		c.emit(event.Warning{Message: w})
	}
	if resp.HasTaskList {
		c.State.TaskList = append(c.State.TaskList[:0], resp.Tasks...)
	}
	c.Append(history.Reply(resp))
	c.emit(event.ReplyParsed{Agent: c.Agent, Step: step, Response: resp})
}

// DropFailed removes failed attempts not yet followed by a usable reply:
// they are never summarised, and never outlive a run.
func (c *Conversation) DropFailed() {
	if c.hasFailed {
		c.State.History = c.State.History[:c.failedFrom]
		c.hasFailed = false
	}
}

// Act runs the reply's tools in order, with their inputs as Parse read
// them. It stops at the first failure and after an accepted DONE, which
// done reports.
func (c *Conversation) Act(ctx context.Context, reply tools.Reply) (results []tools.Result, done bool) {
	var questions []string
	for _, call := range reply.Calls {
		if call.Name == tools.AskUser {
			questions = append(questions, call.Input)
		}
	}
	env := c.Env.Questions(questions) // "question 1 of 3", each asked once
	for _, call := range reply.Calls {
		shown := c.mask(call.Input)
		c.emit(event.ToolStarted{Agent: c.Agent, Tool: call.Name, Input: shown})
		res := call.Run(ctx, env).Masked(c.masker())
		var files []event.FileChange
		if c.AfterTool != nil {
			files = c.AfterTool(ctx, call.ToolCall, res)
		}
		c.emit(event.ToolFinished{Agent: c.Agent, Input: shown, Result: res, Files: files})
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

// Append adds a message to the history (one of package history's).
func (c *Conversation) Append(m llm.Message) {
	c.State.History = append(c.State.History, m)
}

// purpose is what the conversation's requests are for, in their records.
func (c *Conversation) purpose() string {
	if c.Agent == event.Auditor {
		return sessions.PurposeAudit
	}
	return sessions.PurposeWorker
}

// record keeps what a request cost in the state's requests: the server's
// counts, or estimates marked as such when it gave none.
func (c *Conversation) record(purpose string, req llm.Request, reply llm.Reply) {
	r := sessions.Request{
		Timestamp:   c.now().Add(-reply.Duration).UTC(),
		Model:       req.Model,
		Purpose:     purpose,
		FirstByteMs: reply.FirstByte.Milliseconds(),
		DurationMs:  reply.Duration.Milliseconds(),
		ServerMs:    reply.ServerTime.Milliseconds(),
		EarlyStop:   reply.Stopped,
		Constrained: sessions.Constrained(reply.Shaped),
	}
	if req.MaxTokens != nil {
		r.MaxTokens = *req.MaxTokens
	}
	if u := reply.Usage; u != nil {
		r.PromptTokens, r.CompletionTokens = u.PromptTokens, u.CompletionTokens
	} else {
		r.PromptTokens = compress.Tokens(compress.Chars(req.Messages))
		r.CompletionTokens = compress.Tokens(len(reply.Content) + len(reply.Reasoning))
		r.Estimated = true
	}
	if reply.Cache != nil {
		cached := reply.Cache.CachedTokens
		r.CachedTokens = &cached
	}
	c.State.Requests = append(c.State.Requests, r)
}

// mask masks s as the conversation stores and shows it.
func (c *Conversation) mask(s string) string { return c.Secrets.Redact(s) }

// masker is mask as a function for Masked; nil when nothing is masked.
func (c *Conversation) masker() func(string) string {
	if c.Secrets == nil {
		return nil
	}
	return c.Secrets.Redact
}

func (c *Conversation) emit(e event.Event) {
	if c.Sink != nil {
		c.Sink.Emit(e)
	}
}

func (c *Conversation) now() time.Time {
	if c.Now != nil {
		return c.Now()
	}
	return time.Now()
}
