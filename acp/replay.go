package acp

import (
	"net/url"
	"path/filepath"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/devagent/dev/event"
	"github.com/devagent/dev/history"
	"github.com/devagent/dev/sessions"
	"github.com/devagent/dev/tools"
	"github.com/devagent/dev/transcript"
)

// replay sends a loaded session's conversation as updates, as the
// editor would have seen it live: the session read once by transcript,
// each request as the user's message, each reply through the events the
// view renders (its thoughts, plan, tool calls with their results, the
// audit), each accepted DONE as the agent's answer. Only what a session
// keeps can be shown: an edit's diff, rejected replies and the audit's
// own steps are not stored.
func (v *view) replay(sess *sessions.Session) {
	turns := transcript.Read(sess).Turns
	for i, turn := range turns {
		v.replayTurn(turn)
		if i == len(turns)-1 && turn.End == transcript.EndFailed && sess.StatusReason != "" {
			v.say(sdk.UpdateAgentMessageText(sess.StatusReason))
		}
	}
}

// say sends one update.
func (v *view) say(u sdk.SessionUpdate) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.send(u)
}

func (v *view) replayTurn(turn transcript.Turn) {
	switch turn.Kind {
	case transcript.TurnRequest:
		v.say(sdk.UpdateUserMessageText(turn.Text))
		for _, a := range turn.Attachments {
			u := url.URL{Scheme: "file", Path: filepath.ToSlash(v.abs(a.Path))}
			v.say(sdk.UpdateUserMessage(sdk.ResourceLinkBlock(a.Path, u.String())))
		}
	case transcript.TurnSummary:
		v.say(sdk.UpdateAgentThoughtText("The conversation was compressed here; the model went on from this summary:\n\n" +
			strings.TrimSpace(turn.Summary.Summary)))
	}
	for _, s := range turn.Steps {
		v.replayStep(s)
	}
}

func (v *view) replayStep(s transcript.Step) {
	switch s.Kind {
	case transcript.StepReply:
		v.Emit(event.ReplyParsed{Agent: event.Worker, Response: s.Reply})
		for _, c := range s.Calls {
			v.replayCall(c, s.HasResults())
		}
		if s.Audit != nil {
			v.Emit(event.AuditStarted{})
			v.Emit(event.AuditFinished{Verdict: s.Audit.Verdict, Feedback: s.Audit.Feedback, Steps: s.Audit.Steps})
		}
		if done, ok := s.Done(); ok && (s.Accepted || done.Result != nil && done.Result.OK) {
			v.say(sdk.UpdateAgentMessageText(strings.TrimSpace(done.Input)))
		}
	case transcript.StepShell:
		for _, c := range s.Calls {
			v.replayResult("! "+s.Text, sdk.ToolKindExecute, *c.Result)
		}
	case transcript.StepResults:
		for _, c := range s.Calls {
			v.replayResult(c.Result.Tool, kindOf(c.Result.Tool), *c.Result)
		}
	case transcript.StepRaw:
		v.say(sdk.UpdateAgentThoughtText(s.Text))
	case transcript.StepInterrupted:
		if strings.TrimSpace(s.Partial) != "" {
			v.say(sdk.UpdateAgentThoughtText(s.Partial))
		}
	}
}

// replayCall shows one call of a reply with its result. The results of a
// reply whose DONE ended the run are not kept: its tools ran and
// succeeded (a failure would have stopped the DONE), nothing more is known.
func (v *view) replayCall(c transcript.Call, hasResults bool) {
	switch {
	case c.Name == tools.Done:
	case c.Result != nil && c.Name == "": // a result past the reply's calls
		v.replayResult(c.Result.Tool, kindOf(c.Result.Tool), *c.Result)
	case c.Result != nil:
		v.Emit(event.ToolStarted{Agent: event.Worker, Tool: c.Name, Input: c.Input})
		v.Emit(event.ToolFinished{Agent: event.Worker, Input: c.Input, Result: tools.FromHistory(*c.Result)})
	case !hasResults:
		v.Emit(event.ToolStarted{Agent: event.Worker, Tool: c.Name, Input: c.Input})
		v.mu.Lock()
		v.send(sdk.UpdateToolCall(v.tool.id, sdk.WithUpdateStatus(sdk.ToolCallStatusCompleted)))
		v.tool = nil
		v.mu.Unlock()
	}
}

// replayResult shows a result no call of the history names (the user's
// command, a result past the calls) as a tool call of its own.
func (v *view) replayResult(title string, kind sdk.ToolKind, r history.ToolResult) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.tool = v.startCall(r.Tool, title, kind, nil, nil)
	v.toolFinished(tools.FromHistory(r), nil)
}
