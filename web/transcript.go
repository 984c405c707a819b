package web

import (
	"fmt"
	"html/template"
	"strings"

	"github.com/devagent/dev/audit"
	"github.com/devagent/dev/history"
	"github.com/devagent/dev/mention"
	"github.com/devagent/dev/parser"
	"github.com/devagent/dev/sessions"
	"github.com/devagent/dev/textfmt"
	"github.com/devagent/dev/tools"
	"github.com/devagent/dev/transcript"
)

// Kinds of transcript entries: the boxes and lines the terminal shows.
const (
	kindRequest = "request" // the user's request
	kindThought = "thoughts"
	kindTasks   = "tasks"   // the task list, when it changed
	kindTool    = "tool"    // a tool call and its input
	kindAnswer  = "answer"  // a DONE's summary, rendered
	kindShell   = "shell"   // a command the user ran (!)
	kindResult  = "result"  // a tool's result
	kindLine    = "line"    // one line: audit verdict, compression, warning, end of a request
	kindSummary = "summary" // the summary that replaced a compressed history
	kindRaw     = "raw"     // a message that is not in the protocol's form
)

// Classes of a line, as the terminal colours them.
const (
	classOK   = "ok"
	classFail = "fail"
	classWarn = "warn"
	classInfo = "info" // compressions
	classDim  = "dim"
)

// Lines of a tool input or result shown before "show all".
const (
	inputLines  = 12
	resultLines = 12
)

// entry is one box or line of the transcript.
type entry struct {
	Kind  string
	Title string
	Class string
	OK    bool
	Text  string // the body, or its first lines when More is set
	More  string // the whole body when it is longer than Text
	Lines int    // lines of More
	Tasks []parser.Task
	HTML  template.HTML // an answer rendered (answerHTML)
}

// entriesOf shows a session's transcript as the terminal showed its runs:
// the requests, each reply's thoughts, task list (when it changed) and
// tool calls, the results, audits, compressions, rewinds and warnings.
// What the session does not keep (reasoning, warnings about a reply's
// form, the auditor's steps) cannot be shown.
func entriesOf(sess *sessions.Session) []entry {
	tr := transcript.Read(sess)
	b := &builder{sess: sess}
	for _, t := range tr.Turns {
		b.turn(t)
	}
	b.rewound(tr.Rewinds)
	return b.out
}

// rejected shows replies dev could not use, kept with their requests:
// the problem, and the reply's first and last lines when opened.
func (b *builder) rejected(rs []sessions.Request) {
	for _, r := range rs {
		rj := r.Rejected
		who := "reply"
		if r.Purpose == sessions.PurposeAudit {
			who = "the auditor's reply"
		}
		text := "! " + who + " not in the expected format: " + textfmt.FirstLine(rj.Problem)
		if rj.Cut {
			text = fmt.Sprintf("! %s cut off at maxTokens (%s tokens)", who, textfmt.Thousands(int64(r.MaxTokens)))
		}
		var more strings.Builder
		switch {
		case len(rj.Head) == 0:
			more.WriteString("(the reply was empty)\n")
		default:
			fmt.Fprintf(&more, "What the model wrote (%s):\n", textfmt.Plural(rj.Lines, "line"))
			for _, l := range rj.Head {
				more.WriteString("│ " + l + "\n")
			}
			if len(rj.Tail) > 0 {
				more.WriteString("│ …\n")
				for _, l := range rj.Tail {
					more.WriteString("│ " + l + "\n")
				}
			}
		}
		more.WriteString("\n" + rj.Problem)
		b.line(classWarn, text, more.String())
	}
}

type builder struct {
	sess  *sessions.Session
	out   []entry
	tasks string // the task list shown last
	steps int    // accepted replies since the request began or a DONE ended its work
}

func (b *builder) add(e entry) { b.out = append(b.out, e) }

func (b *builder) line(class, text, more string) { b.add(lineEntry(class, text, more)) }

// lineEntry is a line of the transcript, and what it opens to.
func lineEntry(class, text, more string) entry {
	e := entry{Kind: kindLine, Class: class, Text: text}
	// A note of one line shown whole has nothing more to show.
	if more = strings.TrimSpace(more); more != "" && !strings.HasSuffix(text, more) {
		e.More, e.Lines = more, lineCount(more)
	}
	return e
}

// attachedLine is a file a request's @ mention attached, as the terminal
// shows it: "attached PATH (N lines)", its content closed until opened.
func attachedLine(a mention.Attached) entry {
	what := textfmt.Plural(a.Lines, "line")
	if a.Binary {
		what = "binary: named, not attached"
	}
	return lineEntry(classDim, fmt.Sprintf("attached %s (%s)", a.Path, what), a.Content)
}

// turn shows a request, or the summary of a compression, then its steps
// and how it ended.
func (b *builder) turn(t transcript.Turn) {
	b.rewound(t.Rewinds)
	b.steps = 0
	switch t.Kind {
	case transcript.TurnRequest:
		title := "Request"
		if t.Number > 0 {
			title = fmt.Sprintf("Request %d", t.Number)
		}
		b.add(entry{Kind: kindRequest, Title: title, Text: t.Text})
		for _, a := range t.Attachments {
			b.add(attachedLine(a))
		}
	case transcript.TurnSummary:
		for _, a := range t.Audits { // of the DONEs the summary replaced
			b.audit(a)
		}
		for _, c := range t.Compressions {
			b.line(classInfo, fmt.Sprintf("↓ compressed the conversation: %s → %s tokens (%s)",
				textfmt.Thousands(int64(c.TokensBefore)), textfmt.Thousands(int64(c.TokensAfter)), c.Timestamp.Local().Format("2006-01-02 15:04")), "")
		}
		b.add(entry{Kind: kindSummary, Title: "Summary of the earlier conversation", Text: strings.TrimSpace(t.Summary.Message().Content)})
	}
	for _, s := range t.Steps {
		b.step(s)
	}
	b.end(t)
}

// step shows a step as the terminal showed it: a reply's tools each with
// its result, in the order they ran.
func (b *builder) step(s transcript.Step) {
	b.rejected(s.Rejected)
	switch s.Kind {
	case transcript.StepReply:
		b.reply(s)
	case transcript.StepRaw:
		b.add(entry{Kind: kindRaw, Title: "Reply (not in the expected format)", Text: strings.TrimSpace(s.Text)})
	case transcript.StepInterrupted:
		b.notes([]string{s.Text})
		if partial := strings.TrimSpace(s.Partial); partial != "" {
			b.line(classWarn, fmt.Sprintf("! the reply as far as it had come (%s; the model never saw it)",
				textfmt.Plural(lineCount(partial), "line")), partial)
		}
	case transcript.StepNote:
		if s.FormatError {
			b.line(classWarn, "! reply not in the expected format: "+textfmt.FirstLine(s.Text), s.Text)
			break
		}
		b.notes([]string{s.Text})
	case transcript.StepShell:
		command := s.Text
		if command == "" {
			command = "(a command; this session did not keep which)"
		}
		b.add(entry{Kind: kindShell, Title: "Command the user ran (!), for the model to know", Text: command})
		fallthrough
	case transcript.StepResults:
		for _, c := range s.Calls {
			b.result(*c.Result, nil)
		}
		b.notes(s.Notes)
	}
}

// reply shows a reply: its thoughts, its task list when it changed, its
// tools with their results (calls after a failure did not run: a note
// says so, as the terminal showed nothing of them), and a DONE's audit.
func (b *builder) reply(s transcript.Step) {
	b.steps++
	resp := s.Reply
	if resp.Thoughts != "" {
		b.add(entry{Kind: kindThought, Title: "Thoughts", Text: resp.Thoughts})
	}
	if resp.HasTaskList && len(resp.Tasks) > 0 {
		if list := parser.TaskLines(resp.Tasks); list != b.tasks {
			b.tasks = list
			b.add(entry{Kind: kindTasks, Title: "Task List", Tasks: resp.Tasks})
		}
	}
	ran := s.HasResults()
	for _, c := range s.Calls {
		if ran && c.Result == nil {
			continue
		}
		if c.Name != "" {
			b.tool(c.ToolCall)
		}
		if c.Result != nil {
			b.result(*c.Result, s.Audit)
		}
	}
	if s.Accepted { // the request ends here
		if s.Audit != nil {
			b.audit(*s.Audit)
		}
		b.line(classOK, "✓ done in "+textfmt.Plural(b.steps, "step"), "")
		b.steps = 0
	}
	b.notes(s.Notes)
}

// notes shows the notes dev added for the model: the calls not run, a
// repeated step, an interruption.
func (b *builder) notes(notes []string) {
	for _, n := range notes {
		if strings.TrimSpace(n) != "" {
			b.line(classWarn, "! "+textfmt.FirstLine(n), n)
		}
	}
}

func (b *builder) tool(call parser.ToolCall) {
	if call.Name == tools.Done {
		b.add(entry{Kind: kindAnswer, Title: "DONE", HTML: answerHTML(call.Input)})
		return
	}
	e := entry{Kind: kindTool, Title: "Tool: " + call.Name}
	e.Text, e.More, e.Lines = clip(textfmt.WithoutFences(call.Input), inputLines)
	b.add(e)
}

// result shows a tool's result; a DONE the audit did not accept shows as
// the audit's verdict.
func (b *builder) result(r history.ToolResult, checked *sessions.Audit) {
	if _, rejected := r.AuditFeedback(); rejected && r.Tool == tools.Done && checked != nil {
		b.audit(*checked)
		return
	}
	title := "Result"
	if !r.OK {
		title = "Result: failed"
	}
	for _, a := range r.Attrs {
		if a[0] == "path" {
			title += " · " + a[1]
		}
	}
	e := entry{Kind: kindResult, Title: title, OK: r.OK}
	e.Text, e.More, e.Lines = clip(r.Output, resultLines)
	b.add(e)
}

func (b *builder) audit(a sessions.Audit) {
	if a.Passed() {
		b.line(classOK, fmt.Sprintf("✓ audit passed (%s)", textfmt.Plural(a.Steps, "step")), a.Feedback)
		return
	}
	b.line(classFail, fmt.Sprintf("✗ audit failed (%s): %s", textfmt.Plural(a.Steps, "step"), audit.FeedbackLine(a.Feedback)), a.Feedback)
}

// end says how a turn ended without a DONE, as the terminal's last line
// does.
func (b *builder) end(t transcript.Turn) {
	steps := textfmt.Plural(b.steps, "step")
	switch t.End {
	case transcript.EndNoDone:
		b.line(classDim, "the request ended without DONE after "+steps, "")
	case transcript.EndFailed:
		b.line(classFail, "✗ failed after "+steps, "")
	case transcript.EndInterrupted:
		b.line(classWarn, "! interrupted after "+steps+"; dev --resume continues the session", "")
	case transcript.EndActive:
		b.line(classDim, "… in progress, or ended without saving its status ("+steps+" so far)", "")
	}
}

// rewound shows rewinds that took requests out of the history, where they
// did: the requests the history holds are numbered as they are now.
func (b *builder) rewound(rewinds []sessions.Rewind) {
	for _, r := range rewinds {
		when := ""
		if !r.Time.IsZero() {
			when = " (" + r.Time.Local().Format("2006-01-02 15:04") + ")"
		}
		var text string
		switch {
		case r.FilesOnly:
			text = fmt.Sprintf("↶ the files were rewound to checkpoint %d%s; the conversation went on as it was", r.To, when)
		case r.Undone == 1:
			text = fmt.Sprintf("↶ rewound to checkpoint %d%s: the request that followed was undone, with its changes to the files", r.To, when)
		case r.Undone > 1:
			text = fmt.Sprintf("↶ rewound to checkpoint %d%s: the %d requests that followed were undone, with their changes to the files", r.To, when, r.Undone)
		default:
			text = fmt.Sprintf("↶ rewound to checkpoint %d%s: the steps after it were undone, with their changes to the files", r.To, when)
		}
		b.line(classWarn, text, "")
	}
}

// clip keeps the first n lines of text; more is the whole text when it
// is longer, with its line count.
func clip(text string, n int) (head, more string, lines int) {
	text = strings.TrimRight(text, "\n")
	all := strings.Split(text, "\n")
	if len(all) <= n+2 { // hiding one or two lines saves nothing
		return text, "", 0
	}
	return strings.Join(all[:n], "\n"), text, len(all)
}

func lineCount(s string) int { return strings.Count(s, "\n") + 1 }
