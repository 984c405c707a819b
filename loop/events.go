package loop

import (
	"time"

	"github.com/devagent/dev/audit"
	"github.com/devagent/dev/parser"
	"github.com/devagent/dev/tools"
)

// Event is something that happened in a run, for renderers. Name is the
// stable `type` of the event in --json output.
type Event interface {
	Name() string
}

// Sink consumes events. Emit must not block for long: it runs on the loop's
// goroutine. Background-process events come from other goroutines, so a
// Sink must be safe for concurrent use.
type Sink interface {
	Emit(Event)
}

// SessionStarted opens a run (emitted by the caller that opened the session).
type SessionStarted struct {
	ID      string
	Resumed bool
	Model   string
	Dir     string
}

// RequestStarted: a request is about to be sent to the model.
type RequestStarted struct {
	Step int // 1-based number of the reply being requested
}

// Streaming carries a piece of the reply as it arrives.
type Streaming struct {
	Content, Reasoning string
	Chunks             int // pieces received so far in this reply, a live token count
}

// ReplyParsed: a reply was accepted.
type ReplyParsed struct {
	Step     int
	Response parser.Response
}

// ToolStarted: a tool is about to run.
type ToolStarted struct {
	Tool  string
	Input string
}

// ToolFinished: a tool ran.
type ToolFinished struct {
	Result tools.Result
}

// FormatProblem: a reply could not be used; the model is told why.
type FormatProblem struct {
	Message      string
	Attempt, Max int
}

// Retrying: a request failed and will be sent again after Wait.
type Retrying struct {
	Message      string
	Attempt, Max int
	Wait         time.Duration
}

// ContextWindow: the context window the run works with, decided at start
// from maxContextTokens and what the server reports (emitted by the caller,
// which probes the server).
type ContextWindow struct {
	Window       int    // what the run uses: the smaller of the two
	Configured   int    // maxContextTokens
	Server       string // the server's kind ("" when not recognised)
	ServerWindow int    // the server's window, 0 when it did not say
	Source       string // where ServerWindow (or Server) came from
}

// Reasons for a compression.
const (
	ReasonThreshold = "threshold" // the estimate reached compressThreshold of the window
	ReasonOverflow  = "overflow"  // the server rejected the request as too long
)

// Compressing: the history is about to be summarised.
type Compressing struct {
	Tokens int // the prompt size that triggered it: estimated, or the server's count
	Window int
	Reason string
}

// Compressed: the history was replaced by one summary message.
type Compressed struct {
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

// AuditFinished: the auditor gave its verdict.
type AuditFinished struct {
	Result audit.Result
}

// Warning is worth telling the user but does not stop the run.
type Warning struct {
	Message string
}

// Failure ends the run with an error (emitted by the caller, which knows how
// to phrase configuration hints).
type Failure struct {
	Message string
}

// Finished is the last event of a run (emitted by the caller, which maps the
// outcome to an exit code).
type Finished struct {
	Status       string // complete, failed, interrupted
	ExitCode     int
	Summary      string
	SessionID    string
	Loops        int
	Tokens       int
	FormatErrors int
	Audits       int
}

// BackgroundStarted: a command outlived its timeout and goes on in the
// background (emitted by the caller that owns the process manager).
type BackgroundStarted struct {
	ID, Command string
	PID         int
}

// BackgroundExited: a background process ended, by itself or stopped by
// KILL_BACKGROUND_PROCESS (emitted by the caller that owns the manager,
// from another goroutine; not for processes stopped when dev exits).
type BackgroundExited struct {
	ID, Command string
	Status      string // "exited" (by itself) or "killed"
	ExitCode    int    // -1 when it ended by a signal
	Runtime     time.Duration
}

// Name implementations: the `type` field of --json lines.
func (SessionStarted) Name() string { return "session" }
func (RequestStarted) Name() string { return "request" }
func (Streaming) Name() string      { return "streaming" }
func (ReplyParsed) Name() string    { return "response" }
func (ToolStarted) Name() string    { return "tool_start" }
func (ToolFinished) Name() string   { return "tool_result" }
func (FormatProblem) Name() string  { return "format_error" }
func (Retrying) Name() string       { return "retry" }
func (ContextWindow) Name() string  { return "context" }
func (Compressing) Name() string    { return "compression_start" }
func (Compressed) Name() string     { return "compression" }
func (AuditStarted) Name() string   { return "audit_start" }
func (AuditFinished) Name() string  { return "audit" }
func (Warning) Name() string        { return "warning" }
func (Failure) Name() string        { return "error" }
func (Finished) Name() string       { return "result" }

func (BackgroundStarted) Name() string { return "background_start" }
func (BackgroundExited) Name() string  { return "background_exit" }
