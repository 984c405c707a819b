// Package event is the vocabulary of what happens while dev works. The
// engine (step, loop, audit) and the application layer emit these values;
// renderers (the terminal, --json, the session browser) consume them.
// Nothing that emits an event prints.
package event

import (
	"time"

	"github.com/devagent/dev/llm"
	"github.com/devagent/dev/parser"
	"github.com/devagent/dev/tools"
)

// Event is something that happened in a run. Name is its stable `type` in
// --json output.
type Event interface {
	Name() string
}

// Sink consumes events. Emit must not block for long: it runs on the
// emitter's goroutine. Background processes report from their own
// goroutines, so a Sink must be safe for concurrent use.
type Sink interface {
	Emit(Event)
}

// Multi sends each event to every sink, in order.
type Multi []Sink

// Emit forwards e.
func (m Multi) Emit(e Event) {
	for _, s := range m {
		s.Emit(e)
	}
}

// Discard drops every event.
type Discard struct{}

// Emit does nothing.
func (Discard) Emit(Event) {}

// Agent names the conversation an event of a protocol step comes from.
type Agent string

// The two conversations of a run.
const (
	Worker  Agent = "worker" // the agent doing the work
	Auditor Agent = "audit"  // the read-only sub-agent checking a DONE
)

// SessionStarted opens a run. A resumed session brings where it stood: its
// last request, the steps since, its last answer or question, how the
// last run ended and when, and the task list.
type SessionStarted struct {
	ID      string
	Resumed bool
	Model   string
	Dir     string

	LastRequest string
	// LastAnswer is the DONE summary that ended the last request or, with
	// LastAsked, the question the model asked last (ASK_USER); "" when
	// the last request ended otherwise.
	LastAnswer string
	LastAsked  bool
	// Recent is the history from the last request on: what the resumed
	// view shows of the steps since.
	Recent     []llm.Message
	LastUsed   time.Time // when the session was last saved
	LastStatus string    // the session's status when it was opened
	LastReason string    // why its last run failed, when it did and it is known
	Tasks      []parser.Task
	// Approval is the approval mode the session is worked on in (auto,
	// edits, ask, plan): resume says it.
	Approval string
}

// FileAttached: a request's @path mention attached a file (or, for a
// binary file, named it).
type FileAttached struct {
	Path   string
	Lines  int
	Binary bool
}

// ContextWindow: the context window the run works with, decided at start
// from maxContextTokens and what the server reports.
type ContextWindow struct {
	Window       int    // what the run uses: the smaller of the two
	Configured   int    // maxContextTokens
	Server       string // the server's kind ("" when not recognised)
	ServerWindow int    // the server's window, 0 when it did not say
	Source       string // where ServerWindow (or Server) came from
	// Shape is the form of the shape the run's requests carry ("grammar",
	// "json", "" for none; constrain, SPEC §18), and ShapeAfterMiss the
	// form from the first reply that misses the template on (the JSON form
	// on Ollama and LM Studio with constrain auto).
	Shape, ShapeAfterMiss string
}

// RequestStarted: a request is about to be sent to the model.
type RequestStarted struct {
	Agent Agent
	Step  int // 1-based number of the reply being requested
}

// ServerAlive says the server sent bytes while no piece of the reply came
// yet: keep-alive comments while it processes a long prompt. At most once
// a second; a live renderer shows it, nothing records it.
type ServerAlive struct {
	Agent Agent
}

// Streaming carries a piece of the reply as it arrives.
type Streaming struct {
	Agent              Agent
	Content, Reasoning string
	Chunks             int // pieces received so far in this reply
	// Tokens generated so far in this reply. Servers report their count
	// only at the end of a stream, so while it streams this is an
	// estimate from the characters received (Estimated).
	Tokens    int
	Estimated bool
}

// ReplyInterrupted: the user interrupted a reply while it streamed.
// Content is what had come of it (reasoning aside, secrets masked): the
// session keeps it as the request's partial reply, never as a reply the
// model finished.
type ReplyInterrupted struct {
	Agent   Agent
	Content string
}

// ReplyReceived: a model request ended with a whole reply; its tokens as
// the server counted them, or estimated (Estimated) when it gave no count.
type ReplyReceived struct {
	Agent Agent
	// Compression: the request summarised a conversation (compressModel).
	Compression      bool
	PromptTokens     int
	CompletionTokens int
	Estimated        bool
}

// CommandOutput is what a command running in the foreground printed, as it
// printed it (stdout and stderr together). It is for the screen: of a large
// piece only its end comes (the command's result has its whole output).
type CommandOutput struct {
	Agent  Agent
	Output string
}

// ReplyParsed: a reply was accepted.
type ReplyParsed struct {
	Agent    Agent
	Step     int
	Response parser.Response
}

// ToolStarted: a tool is about to run with Input, the raw text of its
// `## Tool Input` section.
type ToolStarted struct {
	Agent Agent
	Tool  string
	Input string
}

// ToolFinished: a tool ran. Input is the same raw input as ToolStarted's;
// Files is what it changed in the working directory, from the checkpoint
// taken after it (none when checkpoints are off).
type ToolFinished struct {
	Agent  Agent
	Input  string
	Result tools.Result
	Files  []FileChange
}

// FileChange is a file a tool added, modified or deleted; Diff is its
// unified diff for the file tools' edits of a file that existed ("" otherwise).
type FileChange struct {
	Path   string
	Change string // added, modified, deleted
	Diff   string
	// Old and New are the file's text before and after a file tool's edit
	// (Old "" for a file it created), for a renderer that shows an edit
	// whole (an editor's diff view); Texts says they are set, which they
	// are not for a binary file or a change a command made.
	Old, New string
	Texts    bool
}

// FormatProblem: a reply could not be used; the model is told why.
// Attempt counts the retries the problem calls for, never more than Max:
// Final is the problem that used the retries up (there is no new
// attempt).
type FormatProblem struct {
	Agent        Agent
	Message      string
	Attempt, Max int
	Final        bool
	// Cut: the reply ran to its output limit, Limit tokens, set by
	// maxTokens (Configured) or dev's default (SPEC §18).
	Cut        bool
	Limit      int
	Configured bool
	// Head and Tail are the reply's first and last lines that are not
	// blank (Tail empty when Head holds them all); Lines counts its lines.
	Head, Tail []string
	Lines      int
}

// Retrying: a request failed and will be sent again after Wait.
type Retrying struct {
	Message      string
	Attempt, Max int
	Wait         time.Duration
}

// Reasons for a compression.
const (
	ReasonThreshold = "threshold" // the estimate reached compressThreshold of the window
	ReasonOverflow  = "overflow"  // the server rejected the request as too long
	ReasonRequested = "requested" // the user asked for it (/compact)
)

// Compressing: a conversation is about to be summarised.
type Compressing struct {
	Agent  Agent
	Tokens int // the prompt size that triggered it: estimated, or the server's count
	Window int
	Reason string
}

// Compressed: a conversation's history was replaced by one summary message.
type Compressed struct {
	Agent                     Agent
	TokensBefore, TokensAfter int
	Window                    int
	Reason                    string
	// Cuts counts tool results and messages shortened or left out so that
	// the summarisation request fits the window.
	Cuts int
	// Fallback: the model gave no summary; the last step stands in for it.
	Fallback bool
}

// AuditStarted: the auditor is checking a DONE.
type AuditStarted struct{}

// AuditFinished: the auditor gave its verdict (PASS or FAIL).
type AuditFinished struct {
	Verdict  string
	Feedback string
	Steps    int // replies of the auditor
}

// Warning is worth telling the user but does not stop the run.
type Warning struct {
	Message string
}

// Notice is something dev did on its own that the user should know, not a
// problem (a dead run's processes stopped).
type Notice struct {
	Message string
}

// Failure ends a run with an error, phrased with what to do about it.
type Failure struct {
	Message string
}

// Finished is the last event of a run.
type Finished struct {
	Status       string // complete, failed, interrupted
	ExitCode     int
	Summary      string
	SessionID    string
	Loops        int
	Tokens       int
	FormatErrors int
	Audits       int
	EarlyStops   int
	Cost         *float64 // USD, when the prices of every model used are known
	// Audit says what became of the accepted DONE's audit: AuditPassed,
	// AuditSkipped (the audit policy is "changes" and the request changed
	// nothing), AuditOff; "" when no DONE was accepted.
	Audit string
	// Usage is what the request cost: the status line after it.
	Usage Usage
}

// What became of a DONE's audit (Finished.Audit).
const (
	AuditPassed  = "passed"
	AuditSkipped = "skipped"
	AuditOff     = "off"
)

// Usage is what one request (a run) used.
type Usage struct {
	Model string
	Steps int // the worker's replies
	// TokensIn and TokensOut are the prompt and completion tokens of every
	// model request of the run: the worker's, the audit's, compression's.
	TokensIn, TokensOut int
	// Estimated: some of the counts are estimates (the server gave none).
	Estimated bool
	// ContextTokens is the worker's last prompt, of a ContextWindow-token
	// window (0 when unknown).
	ContextTokens, ContextWindow int
	Elapsed                      time.Duration
	// Cost in USD when the model's prices are known (CostKnown).
	Cost      float64
	CostKnown bool
}

// BackgroundStarted: a command outlived its timeout and goes on in the
// background.
type BackgroundStarted struct {
	ID, Command string
	PID         int
}

// BackgroundExited: a background process ended: by itself, stopped by
// KILL_BACKGROUND_PROCESS, or stopped because dev is exiting.
type BackgroundExited struct {
	ID, Command string
	Status      string // "exited", "killed", or StoppedOnExit
	ExitCode    int    // -1 when it ended by a signal
	Runtime     time.Duration
}

// StoppedOnExit is the Status of a background process dev stopped because
// dev itself was ending.
const StoppedOnExit = "stopped"

// Name implementations: the `type` field of --json lines.
func (SessionStarted) Name() string    { return "session" }
func (ContextWindow) Name() string     { return "context" }
func (FileAttached) Name() string      { return "attachment" }
func (RequestStarted) Name() string    { return "request" }
func (Streaming) Name() string         { return "streaming" }
func (ServerAlive) Name() string       { return "server_alive" }
func (ReplyReceived) Name() string     { return "reply" }
func (ReplyInterrupted) Name() string  { return "reply_interrupted" }
func (CommandOutput) Name() string     { return "tool_output" }
func (ReplyParsed) Name() string       { return "response" }
func (ToolStarted) Name() string       { return "tool_start" }
func (ToolFinished) Name() string      { return "tool_result" }
func (FormatProblem) Name() string     { return "format_error" }
func (Retrying) Name() string          { return "retry" }
func (Compressing) Name() string       { return "compression_start" }
func (Compressed) Name() string        { return "compression" }
func (AuditStarted) Name() string      { return "audit_start" }
func (AuditFinished) Name() string     { return "audit" }
func (Warning) Name() string           { return "warning" }
func (Notice) Name() string            { return "notice" }
func (Failure) Name() string           { return "error" }
func (Finished) Name() string          { return "result" }
func (BackgroundStarted) Name() string { return "background_start" }
func (BackgroundExited) Name() string  { return "background_exit" }
