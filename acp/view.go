package acp

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/devagent/dev/app"
	"github.com/devagent/dev/event"
	"github.com/devagent/dev/loop"
	"github.com/devagent/dev/parser"
	"github.com/devagent/dev/sessions"
	"github.com/devagent/dev/textfmt"
	"github.com/devagent/dev/tools"
)

// view renders a session's events as the protocol's session updates, what
// the terminal shows in the editor's terms: the Thoughts of each reply as
// an agent_thought_chunk, the task list as a plan, each tool as a
// tool_call and its tool_call_update (status, output, and for the file
// tools' edits a diff with the old and new text), the audit as a
// tool_call of its own, and the DONE summary as the agent_message_chunk
// that ends the turn. Warnings and notices are logs: they go to the error
// stream. A view is an event.Sink: safe for concurrent use.
type view struct {
	conn *sdk.AgentSideConnection
	log  io.Writer

	mu  sync.Mutex
	id  sdk.SessionId // "" until the session is open: nothing is sent before
	dir string        // the session's working directory
	// calls numbers the tool calls of the session, replayed ones
	// included, for their ids.
	calls int
	// tool is the worker's tool running, audit the audit's call; nil
	// when none.
	tool, audit *toolCall
	plan        []parser.Task // the last plan sent
	failure     string        // why the run failed, said at its end
	// output is the end of what the command running printed so far, and
	// shown when the editor was last shown it.
	output []byte
	shown  time.Time
}

// maxDiffBytes bounds the texts of an edit sent whole: past it the editor
// gets the tool's output, not a message of megabytes.
const maxDiffBytes = 1 << 20

// Live output of a command: the editor is shown its last liveTail bytes,
// at most every liveEvery, until its result replaces them.
const (
	liveTail  = 8 << 10
	liveEvery = 250 * time.Millisecond
)

// toolCall is a tool call the editor was told of.
type toolCall struct {
	id        sdk.ToolCallId
	tool      string
	title     string
	kind      sdk.ToolKind
	locations []sdk.ToolCallLocation
}

func newView(conn *sdk.AgentSideConnection, log io.Writer) *view {
	return &view{conn: conn, log: log}
}

// attach makes the view the session's, once it is open.
func (v *view) attach(sess *sessions.Session) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.id, v.dir = sdk.SessionId(sess.ID), sess.WorkingDirectory
}

// send sends one update; a connection that is gone drops it (dev is
// ending then, and says nothing more).
func (v *view) send(u sdk.SessionUpdate) {
	if v.id == "" {
		return
	}
	_ = v.conn.SessionUpdate(context.Background(), sdk.SessionNotification{SessionId: v.id, Update: u})
}

// Emit implements event.Sink.
func (v *view) Emit(e event.Event) {
	v.mu.Lock()
	defer v.mu.Unlock()
	switch e := e.(type) {
	case event.ReplyParsed:
		if e.Agent == event.Worker {
			v.reply(e.Response)
		}
	case event.ToolStarted:
		if e.Agent == event.Worker && e.Tool != tools.Done {
			v.toolStarted(e.Tool, e.Input)
		}
	case event.ToolFinished:
		if e.Agent == event.Worker && e.Result.Tool != tools.Done {
			v.toolFinished(e.Result, e.Files)
		}
	case event.CommandOutput:
		if e.Agent == event.Worker {
			v.commandOutput(e.Output)
		}
	case event.AuditStarted:
		v.audit = v.startCall("", "Audit of the work", sdk.ToolKindOther, nil, nil)
	case event.AuditFinished:
		v.auditFinished(e)
	case event.Failure:
		v.failure = e.Message
	case event.Warning:
		fmt.Fprintln(v.log, "dev: warning: "+e.Message)
	case event.Notice:
		fmt.Fprintln(v.log, "dev: "+e.Message)
	case event.Retrying:
		fmt.Fprintf(v.log, "dev: %s; retry %d of %d in %s\n", e.Message, e.Attempt, e.Max, textfmt.Duration(e.Wait))
	case event.BackgroundStarted:
		fmt.Fprintf(v.log, "dev: %s runs on in the background as %s\n", textfmt.Summary(e.Command, 80), e.ID)
	case event.BackgroundExited:
		fmt.Fprintf(v.log, "dev: background process %s %s\n", e.ID, e.Status)
	}
}

// reply shows a worker's reply: its thoughts, and its task list when it
// changed.
func (v *view) reply(r parser.Response) {
	if t := strings.TrimSpace(r.Thoughts); t != "" {
		v.send(sdk.UpdateAgentThoughtText(t))
	}
	if r.HasTaskList && !slices.Equal(r.Tasks, v.plan) {
		v.plan = slices.Clone(r.Tasks)
		v.send(planOf(r.Tasks))
	}
}

// planOf is a task list as the protocol's plan.
func planOf(tasks []parser.Task) sdk.SessionUpdate {
	entries := make([]sdk.PlanEntry, len(tasks))
	for i, t := range tasks {
		status := sdk.PlanEntryStatusPending
		switch t.Status {
		case parser.Complete:
			status = sdk.PlanEntryStatusCompleted
		case parser.InProgress:
			status = sdk.PlanEntryStatusInProgress
		}
		entries[i] = sdk.PlanEntry{Content: t.Text, Priority: sdk.PlanEntryPriorityMedium, Status: status}
	}
	return sdk.UpdatePlan(entries...)
}

// toolStarted tells the editor of a tool about to run: what it is, its
// kind, and the file it works on.
func (v *view) toolStarted(tool, input string) {
	var locs []sdk.ToolCallLocation
	if path, line, ok := tools.Target(v.dir, tool, input); ok {
		loc := sdk.ToolCallLocation{Path: path}
		if line > 0 {
			loc.Line = sdk.Ptr(line)
		}
		locs = append(locs, loc)
	}
	v.tool = v.startCall(tool, title(tool, input), kindOf(tool), locs, map[string]any{"tool": tool, "input": input})
}

// startCall sends a tool_call, in progress.
func (v *view) startCall(tool, title string, kind sdk.ToolKind, locs []sdk.ToolCallLocation, input any) *toolCall {
	v.calls++
	c := &toolCall{id: sdk.ToolCallId("call_" + strconv.Itoa(v.calls)), tool: tool, title: title, kind: kind, locations: locs}
	v.send(sdk.SessionUpdate{ToolCall: &sdk.SessionUpdateToolCall{ToolCallId: c.id, Title: title, Kind: kind,
		Status: sdk.ToolCallStatusInProgress, Locations: locs, RawInput: input}})
	return c
}

// commandOutput shows what the command running printed so far: its last
// lines, as the terminal's live part does.
func (v *view) commandOutput(p string) {
	if v.tool == nil {
		return
	}
	v.output = append(v.output, p...)
	if len(v.output) > 2*liveTail {
		v.output = append(v.output[:0], v.output[len(v.output)-liveTail:]...)
	}
	if time.Since(v.shown) < liveEvery {
		return
	}
	v.shown = time.Now()
	tail := v.output[max(0, len(v.output)-liveTail):]
	text := fenced(strings.ToValidUTF8(string(tail), ""))
	v.send(sdk.UpdateToolCall(v.tool.id, sdk.WithUpdateContent([]sdk.ToolCallContent{sdk.ToolContent(sdk.TextBlock(text))})))
}

// toolFinished tells how the tool running ended: its status, the files it
// wrote, and its output, or for an edit the diff of each file it changed.
func (v *view) toolFinished(r tools.Result, files []event.FileChange) {
	c := v.tool
	v.tool, v.output, v.shown = nil, nil, time.Time{}
	if c == nil {
		return
	}
	var content []sdk.ToolCallContent
	if c.kind == sdk.ToolKindEdit && r.OK {
		for _, f := range files {
			if !f.Texts || len(f.Old)+len(f.New) > maxDiffBytes {
				continue
			}
			path := v.abs(f.Path)
			if f.Change == "added" {
				content = append(content, sdk.ToolDiffContent(path, f.New))
			} else {
				content = append(content, sdk.ToolDiffContent(path, f.New, f.Old))
			}
		}
	}
	if len(content) == 0 && strings.TrimSpace(r.Output) != "" {
		content = append(content, sdk.ToolContent(sdk.TextBlock(fenced(r.Output))))
	}
	status := sdk.ToolCallStatusCompleted
	if !r.OK {
		status = sdk.ToolCallStatusFailed
	}
	u := &sdk.SessionToolCallUpdate{ToolCallId: c.id, Status: &status, Content: content,
		RawOutput: map[string]any{"ok": r.OK, "output": r.Output}}
	if len(r.Files) > 0 {
		for _, f := range r.Files {
			u.Locations = append(u.Locations, sdk.ToolCallLocation{Path: v.abs(f)})
		}
	}
	v.send(sdk.SessionUpdate{ToolCallUpdate: u})
}

// auditFinished ends the audit's call with its verdict and feedback.
func (v *view) auditFinished(e event.AuditFinished) {
	c := v.audit
	v.audit = nil
	if c == nil {
		return
	}
	status := sdk.ToolCallStatusCompleted
	if !strings.EqualFold(e.Verdict, "PASS") {
		status = sdk.ToolCallStatusFailed
	}
	text := "Overall: " + e.Verdict
	if f := strings.TrimSpace(e.Feedback); f != "" {
		text += "\n\n" + f
	}
	v.send(sdk.UpdateToolCall(c.id, sdk.WithUpdateStatus(status),
		sdk.WithUpdateContent([]sdk.ToolCallContent{sdk.ToolContent(sdk.TextBlock(text))})))
}

// abs is a path a tool named, absolute: editors open locations by it.
func (v *view) abs(path string) string {
	if filepath.IsAbs(path) {
		return path
	}
	return filepath.Join(v.dir, filepath.FromSlash(path))
}

// begin starts a prompt's turn.
func (v *view) begin() {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.failure = ""
}

// end ends a prompt's turn with how the run ended: the DONE summary as
// the agent's message and end_turn; cancelled; max_turn_requests at
// maxLoops; refusal when the model kept failing the format or kept
// repeating itself; the failure said as the agent's message otherwise.
// A failure of the server or the machine is the prompt's error, its
// message saying what to do.
func (v *view) end(res app.Result) (sdk.PromptResponse, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	for _, c := range []*toolCall{v.tool, v.audit} {
		if c != nil { // cut short: the run ended inside it
			v.send(sdk.UpdateToolCall(c.id, sdk.WithUpdateStatus(sdk.ToolCallStatusFailed)))
		}
	}
	v.tool, v.audit = nil, nil
	reason := sdk.StopReasonEndTurn
	switch res.Stop {
	case loop.Done:
		if s := strings.TrimSpace(res.Summary); s != "" {
			v.send(sdk.UpdateAgentMessageText(s))
		}
		return sdk.PromptResponse{StopReason: reason}, nil
	case loop.Interrupted:
		return sdk.PromptResponse{StopReason: sdk.StopReasonCancelled}, nil
	case loop.MaxLoops:
		reason = sdk.StopReasonMaxTurnRequests
	case loop.FormatFailed, loop.Looping:
		reason = sdk.StopReasonRefusal
	case loop.AuditFailed:
	default:
		msg := v.failure
		if msg == "" && res.Err != nil {
			msg = res.Err.Error()
		}
		return sdk.PromptResponse{}, failure(msg)
	}
	if v.failure != "" {
		v.send(sdk.UpdateAgentMessageText(v.failure))
	}
	return sdk.PromptResponse{StopReason: reason}, nil
}

// kindOf is the kind of tool the editor shows: the file tools read, edit
// or search; commands, the custom tools and killing a background process
// execute; an MCP tool (SERVER.TOOL) fetches from outside; the rest
// (the background-process readers, the task list, TOOL_HELP) is other.
func kindOf(tool string) sdk.ToolKind {
	switch tool {
	case tools.ReadFile:
		return sdk.ToolKindRead
	case tools.WriteFile, tools.FindAndReplace:
		return sdk.ToolKindEdit
	case tools.ListDirectory:
		return sdk.ToolKindSearch
	case tools.Command, tools.KillBackground:
		return sdk.ToolKindExecute
	case tools.ReadBackground, tools.ListBackground, tools.UpdateTaskList, tools.ToolHelp, tools.AskUser, tools.Done:
		return sdk.ToolKindOther
	}
	if strings.Contains(tool, ".") {
		return sdk.ToolKindFetch
	}
	return sdk.ToolKindExecute // a custom tool runs its command
}

// title names a tool call: the tool and what it works on, in a few words.
func title(tool, input string) string {
	what := input
	if tool == tools.Command {
		what = tools.CommandText(input)
	}
	for _, l := range strings.Split(what, "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "```") || strings.HasPrefix(l, "~~~") {
			continue
		}
		if len(l) >= 2 && strings.ContainsRune("\"'`", rune(l[0])) && l[len(l)-1] == l[0] {
			l = l[1 : len(l)-1]
		}
		return tool + " " + textfmt.Summary(l, 80)
	}
	return tool
}

// fenced puts text in a code block whose fence no line of it closes: the
// editor renders markdown, and a tool's output is not.
func fenced(text string) string {
	longest := 0
	for _, l := range strings.Split(text, "\n") {
		l = strings.TrimLeft(l, " ")
		n := len(l) - len(strings.TrimLeft(l, "`"))
		longest = max(longest, n)
	}
	fence := strings.Repeat("`", max(3, longest+1))
	return fence + "\n" + strings.TrimRight(text, "\n") + "\n" + fence
}
