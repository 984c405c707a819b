package transcript

import (
	"github.com/devagent/dev/history"
	"github.com/devagent/dev/llm"
	"github.com/devagent/dev/mention"
	"github.com/devagent/dev/parser"
	"github.com/devagent/dev/sessions"
	"github.com/devagent/dev/tools"
)

// Transcript is a session read as what happened in it, in the order of
// its history.
type Transcript struct {
	Turns []Turn
	// Rewinds are the rewinds that come after every turn the history
	// holds: those that undid the requests after the last one kept.
	Rewinds []sessions.Rewind
}

// TurnKind is what starts a turn.
type TurnKind int

// The kinds of turns.
const (
	// TurnRequest: the user asked for work (a request, or a custom
	// command's prompt).
	TurnRequest TurnKind = iota
	// TurnSummary: the history starts again from a summary of what came
	// before it (a compression); its steps go on with the request the
	// summary names.
	TurnSummary
	// TurnNone: steps with no request before them (a history written by
	// hand).
	TurnNone
)

// Turn is a request and the steps taken for it, or the summary a
// compression left and the steps after it.
type Turn struct {
	Kind TurnKind
	// From is the index in the history of the turn's first message.
	From int
	// Number is the request's number among those the history holds, 1
	// first; 0 when the history cannot say (after a summary, which
	// replaced the requests before it) and for turns of other kinds.
	Number int
	// Request is the user's message as the history holds it, what the
	// model was given (TurnRequest); for TurnSummary the request the
	// steps after it go on with.
	Request string
	// Text is the request as the user typed it, and Attachments the
	// files its @ mentions attached after it (TurnRequest).
	Text        string
	Attachments []mention.Attached
	// Summary is the summary message's parts, Compressions the
	// session's compressions (the history holds the last summary only)
	// and Audits the audits of the DONEs the summary replaced
	// (TurnSummary).
	Summary      history.Compressed
	Compressions []sessions.Compression
	Audits       []sessions.Audit
	// Rewinds are the rewinds that took requests out of the history
	// here, before this request (TurnRequest).
	Rewinds []sessions.Rewind
	Steps   []Step
	End     End
}

// End is how a turn ended.
type End int

// How turns end. Only the session's last turn has a known status; an
// earlier one either ended with a DONE or did not.
const (
	EndUnknown     End = iota // not said: a history read without its session, a turn with no step, a session complete without a DONE
	EndDone                   // a DONE was accepted: the request is done
	EndNoDone                 // a later turn began without a DONE: the run failed, was interrupted or stopped
	EndFailed                 // the session's last turn, and its last run failed
	EndInterrupted            // the session's last turn, and the user interrupted its last run
	EndActive                 // the session's last turn, still running or left by a dev that stopped without saving its status
)

// StepKind is what a step is.
type StepKind int

// The kinds of steps.
const (
	// StepReply: the model's reply, accepted: its template, the tools it
	// called and their results.
	StepReply StepKind = iota
	// StepRaw: a reply the history kept that is not in the template
	// (a run that stopped before its failed attempts were dropped, or a
	// history written by hand); Text holds it.
	StepRaw
	// StepInterrupted: the user interrupted the model while it replied;
	// the history kept no reply, Text is what the model was told, Partial
	// the reply as far as it had streamed, when the session kept it (SPEC
	// §17, "Ctrl+C keeps what you were reading").
	StepInterrupted
	// StepShell: a command the user ran (!): Text is the command ("" in
	// sessions of versions that did not keep it), Calls its result.
	StepShell
	// StepResults: results no reply of the history called.
	StepResults
	// StepNote: a message dev added for the model that is none of these:
	// a format error (FormatError) of a run that did not end, or a
	// message of a kind this version does not know; Text holds it.
	StepNote
	// StepRejected: replies dev could not use after the last reply of
	// the history (Rejected), the run having ended before one came.
	StepRejected
)

// Step is one step of a turn: mostly a reply of the model and what came
// of it.
type Step struct {
	Kind StepKind
	// At is the index in the history of the step's message; -1 for
	// StepRejected.
	At int
	// Rejected are the replies dev could not use before this step, the
	// worker's or the auditor's: they never enter the history; their
	// request records keep them in brief.
	Rejected []sessions.Request
	// Reply is the accepted template (StepReply).
	Reply parser.Response
	// Text is the step's text, as its kind says.
	Text        string
	FormatError bool // StepNote: Text is what the model was told was wrong with its reply
	// Partial is the reply the user interrupted, as far as it had streamed
	// (StepInterrupted; "" when nothing had come, or in sessions of
	// versions that did not keep it).
	Partial string
	// Calls are the reply's tool calls, in order, each with its result;
	// for StepShell and StepResults the results, with no call.
	Calls []Call
	// Notes are what dev added to the results for the model: the calls
	// not run after a failure, a repeated step, an interruption.
	Notes []string
	// Interrupted: the user interrupted the step's tools or the audit of
	// its DONE.
	Interrupted bool
	// Accepted: the step's DONE was accepted and ended its request (no
	// result or interruption followed it).
	Accepted bool
	// Audit is the audit of the step's DONE: a PASS (Accepted) or a FAIL
	// (the DONE's result holds its report); nil when none checked it.
	Audit *sessions.Audit
}

// Call is a tool call and its result.
type Call struct {
	// ToolCall is the call as the reply wrote it; its Name is "" for a
	// result no call of the history asked for.
	parser.ToolCall
	// Result is the call's result; nil when it has none: it did not run
	// (a call before it failed, the user interrupted the step), or it is
	// an accepted DONE, whose result the history does not keep.
	Result *history.ToolResult
}

// Replies counts the turn's accepted replies: its steps of StepReply.
func (t Turn) Replies() int {
	n := 0
	for _, s := range t.Steps {
		if s.Kind == StepReply {
			n++
		}
	}
	return n
}

// Answer is what the turn's last reply left for the user: the summary of
// the DONE that ended the request, or (asked) the question of its
// ASK_USER; "" when it left neither (it called other tools, was not in
// the template, or there is none).
func (t Turn) Answer() (text string, asked bool) {
	for i := len(t.Steps) - 1; i >= 0; i-- {
		s := t.Steps[i]
		switch s.Kind {
		case StepRaw:
			return "", false
		case StepReply:
			if len(s.Calls) == 0 {
				return "", false
			}
			last := s.Calls[len(s.Calls)-1]
			switch {
			case s.Accepted:
				return last.Input, false
			case last.Name == tools.AskUser:
				return last.Input, true
			}
			return "", false
		}
	}
	return "", false
}

// HasResults reports whether a results message followed the step's
// reply.
func (s Step) HasResults() bool {
	for _, c := range s.Calls {
		if c.Result != nil {
			return true
		}
	}
	return false
}

// Done is the step's DONE call, when its reply calls DONE.
func (s Step) Done() (Call, bool) {
	if s.Kind != StepReply || len(s.Calls) == 0 || s.Calls[len(s.Calls)-1].Name != tools.Done {
		return Call{}, false
	}
	return s.Calls[len(s.Calls)-1], true
}

// Read reads a stored session once: its history, with the replies dev
// rejected (from the request records), the audits of its DONEs, its
// compressions and rewinds, and how its last run ended.
func Read(sess *sessions.Session) Transcript {
	r := reader{history: history.Read(sess.History)}
	r.read(0)
	r.placeRejected(rejectedBefore(sess))
	r.placeAudits(sess.Audits, sess.CompressionCount)
	r.placeCompressions(sess.Compressions)
	r.placeRewinds(sess.Rewinds)
	r.end(sess.Status)
	return r.out
}

// ReadHistory reads a history alone: what a session's records add
// (rejected replies, audits, rewinds, how the last run ended) is not
// there.
func ReadHistory(msgs []llm.Message) Transcript {
	r := reader{history: history.Read(msgs)}
	r.read(0)
	r.end("")
	return r.out
}

// Last reads the last turn of a history, from its last request or
// summary on: what resuming a session shows. No reply before that turn
// is read. ok is false when the history holds no request and no summary.
func Last(msgs []llm.Message) (turn Turn, ok bool) {
	start := -1
	for i := len(msgs) - 1; i >= 0 && start < 0; i-- {
		if msgs[i].Role != llm.RoleUser {
			continue // a reply is not read: only the turn's start is looked for
		}
		if k := history.ReadMessage(msgs[i]).Kind; k == history.KindRequest || k == history.KindSummary {
			start = i
		}
	}
	if start < 0 {
		return Turn{}, false
	}
	r := reader{history: history.Read(msgs[start:])}
	r.read(start)
	r.end("")
	return r.out.Turns[0], true
}

// Requests counts the requests a history holds: its turns of
// TurnRequest, numbered 1 to Requests. A rewind records it, and the
// transcript places the rewind by it.
func Requests(msgs []llm.Message) int {
	n := 0
	for _, m := range msgs {
		if m.Role == llm.RoleUser && history.ReadMessage(m).Kind == history.KindRequest {
			n++
		}
	}
	return n
}
