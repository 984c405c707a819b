package web

import (
	"fmt"
	"html/template"
	"slices"
	"strings"

	"github.com/devagent/dev/audit"
	"github.com/devagent/dev/history"
	"github.com/devagent/dev/parser"
	"github.com/devagent/dev/sessions"
	"github.com/devagent/dev/textfmt"
	"github.com/devagent/dev/tools"
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

// transcript rebuilds what the terminal showed of a session's runs from
// its history: the requests, each reply's thoughts, task list (when it
// changed) and tool calls, the results, audits, compressions and
// warnings. The history keeps only the normalised template of accepted
// replies and the wrapped results, so it is parsed again here; what the
// history does not keep (reasoning, warnings about the reply's form, the
// auditor's steps) cannot be shown.
func transcript(sess *sessions.Session) []entry {
	b := &builder{sess: sess, auditUsed: make([]bool, len(sess.Audits)), numbered: true, rewinds: sess.Rewinds}
	entries := history.Read(sess.History)
	b.matchPasses(entries)
	rejected := sessions.RejectedBefore(sess)
	replies := 0
	for i, e := range entries {
		b.at = i
		switch {
		case e.Kind == history.KindReply:
			b.flush()
			b.rejected(rejected[replies])
			replies++
			b.assistant(e)
			continue
		case e.Kind == history.KindResults && b.pending != nil:
			b.results(e)
			continue
		case e.Kind == history.KindInterruption:
			b.lastDone = false // not even a DONE ends an interrupted request
		}
		b.flush()
		b.user(e)
	}
	b.flush()
	b.rejected(rejected[replies])
	b.endRequest(true)
	b.rewound(-1)
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
	at    int    // index of the message being read
	tasks string // the task list shown last
	steps int    // accepted replies in the current request
	// requests counts the requests shown; after a compression summary
	// the count of those before it is lost.
	requests int
	numbered bool
	// pending are the calls of the last reply, shown with their results
	// as the terminal shows them: each tool, then its result. pendingAt
	// is the reply's index in the history.
	pending   []parser.ToolCall
	pendingAt int
	lastDone  bool // the last reply called DONE
	closed    bool // the request shown last ended with an accepted DONE
	auditUsed []bool
	// passes maps the history index of a DONE that ended its request to
	// the audit that passed it.
	passes map[int]int
	// rewinds are the session's rewinds not shown yet, oldest first.
	rewinds []sessions.Rewind
}

func (b *builder) add(e entry) { b.out = append(b.out, e) }

func (b *builder) line(class, text, more string) {
	e := entry{Kind: kindLine, Class: class, Text: text}
	// A note of one line shown whole has nothing more to show.
	if more = strings.TrimSpace(more); more != "" && !strings.HasSuffix(text, more) {
		e.More, e.Lines = more, lineCount(more)
	}
	b.add(e)
}

// user shows a message of the user's side that is not the results of the
// pending calls.
func (b *builder) user(e history.Entry) {
	switch e.Kind {
	case history.KindRequest:
		b.endRequest(false)
		b.rewound(b.requests)
		b.closed = false
		b.requests++
		title := "Request"
		if b.numbered {
			title = fmt.Sprintf("Request %d", b.requests)
		}
		b.add(entry{Kind: kindRequest, Title: title, Text: e.Text})
		return
	case history.KindSummary:
		b.compressed(e.Message.Content)
		return
	case history.KindFormatError:
		b.line(classWarn, "! reply not in the expected format: "+textfmt.FirstLine(e.Text), e.Text)
		return
	case history.KindShell:
		command := e.Command
		if command == "" {
			command = "(a command; this session did not keep which)"
		}
		b.add(entry{Kind: kindShell, Title: "Command the user ran (!), for the model to know", Text: command})
	}
	for _, r := range e.Results {
		b.result(r)
	}
	b.notes(e.Notes)
}

// results shows the pending calls with their results, in the order they
// ran. Calls after a failure did not run; a note says so, as the terminal
// showed nothing of them.
func (b *builder) results(e history.Entry) {
	calls := b.pending
	b.pending = nil
	b.lastDone = false // results came back: the request goes on
	for i, r := range e.Results {
		if i < len(calls) {
			b.tool(calls[i])
		}
		b.result(r)
	}
	b.notes(e.Notes)
}

// notes shows the notes dev added for the model: the calls not run, a
// repeated step, an interruption.
func (b *builder) notes(notes []string) {
	for _, n := range notes {
		b.line(classWarn, "! "+textfmt.FirstLine(n), n)
	}
}

// flush shows the pending calls that no results message follows: the
// reply whose DONE ended the request (its results are not kept), or one
// cut short.
func (b *builder) flush() {
	if b.pending == nil {
		return
	}
	calls := b.pending
	b.pending = nil
	for _, c := range calls {
		b.tool(c)
	}
	if b.lastDone { // the DONE was accepted: the request ends here
		if a, ok := b.passes[b.pendingAt]; ok {
			b.audit(a)
		}
		b.line(classOK, "✓ done in "+textfmt.Plural(b.steps, "step"), "")
		b.steps, b.lastDone, b.closed = 0, false, true
	}
}

func (b *builder) tool(call parser.ToolCall) {
	if call.Name == tools.Done {
		b.add(entry{Kind: kindAnswer, Title: "DONE", HTML: answerHTML(call.Input)})
		return
	}
	e := entry{Kind: kindTool, Title: "Tool: " + call.Name}
	e.Text, e.More, e.Lines = clip(withoutFences(call.Input), inputLines)
	b.add(e)
}

// compressed shows the compressions that led to a summary, then the
// summary. The history holds the last summary only; the compressions are
// all recorded.
func (b *builder) compressed(summary string) {
	b.numbered = false
	for _, c := range b.sess.Compressions {
		b.line(classInfo, fmt.Sprintf("↓ compressed the conversation: %s → %s tokens (%s)",
			textfmt.Thousands(int64(c.TokensBefore)), textfmt.Thousands(int64(c.TokensAfter)), c.Timestamp.Local().Format("2006-01-02 15:04")), "")
	}
	b.add(entry{Kind: kindSummary, Title: "Summary of the earlier conversation", Text: strings.TrimSpace(summary)})
}

func (b *builder) assistant(e history.Entry) {
	if e.Err != nil {
		b.add(entry{Kind: kindRaw, Title: "Reply (not in the expected format)", Text: strings.TrimSpace(e.Message.Content)})
		return
	}
	resp := e.Reply
	b.steps++
	if resp.Thoughts != "" {
		b.add(entry{Kind: kindThought, Title: "Thoughts", Text: resp.Thoughts})
	}
	if resp.HasTaskList && len(resp.Tasks) > 0 {
		if list := parser.TaskLines(resp.Tasks); list != b.tasks {
			b.tasks = list
			b.add(entry{Kind: kindTasks, Title: "Task List", Tasks: resp.Tasks})
		}
	}
	b.lastDone = callsDone(resp)
	b.pending, b.pendingAt = resp.Tools, b.at
	if b.pending == nil {
		b.pending = []parser.ToolCall{}
	}
}

// result shows a tool's result; a DONE the audit did not accept shows as
// the audit's verdict.
func (b *builder) result(r history.ToolResult) {
	if r.Tool == tools.Done {
		b.lastDone = false // the work goes on
		if feedback, ok := r.AuditFeedback(); ok {
			if a, ok := b.failedAudit(feedback); ok {
				b.audit(a)
				return
			}
		}
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

// failedAudit finds the failed audit whose feedback a rejected DONE's
// result holds.
func (b *builder) failedAudit(feedback string) (int, bool) {
	for i, a := range b.sess.Audits {
		if !b.auditUsed[i] && a.Verdict != string(audit.Pass) && strings.TrimSpace(a.Feedback) != "" &&
			strings.TrimSpace(feedback) == strings.TrimSpace(a.Feedback) {
			return i, true
		}
	}
	return 0, false
}

// matchPasses pairs the DONEs that ended their request with the audits
// that passed. Neither says which goes with which: a DONE accepted
// without an audit (audit off, or nothing changed) has none, and the
// history may have lost early DONEs to compression. The latest DONEs go
// with the latest passes.
func (b *builder) matchPasses(entries []history.Entry) {
	b.passes = map[int]int{}
	var ended []int
	for i, e := range entries {
		if e.Kind != history.KindReply || e.Err != nil || !callsDone(e.Reply) {
			continue
		}
		if i+1 == len(entries) || !entries[i+1].ClosesStep() {
			ended = append(ended, i)
		}
	}
	var passed []int
	for i, a := range b.sess.Audits {
		if a.Verdict == string(audit.Pass) {
			passed = append(passed, i)
		}
	}
	for len(ended) > 0 && len(passed) > 0 {
		b.passes[ended[len(ended)-1]] = passed[len(passed)-1]
		b.auditUsed[passed[len(passed)-1]] = true
		ended, passed = ended[:len(ended)-1], passed[:len(passed)-1]
	}
}

// callsDone reports whether a reply calls DONE.
func callsDone(resp parser.Response) bool {
	return slices.ContainsFunc(resp.Tools, func(c parser.ToolCall) bool { return c.Name == tools.Done })
}

func (b *builder) audit(i int) {
	b.auditUsed[i] = true
	a := b.sess.Audits[i]
	if a.Verdict == string(audit.Pass) {
		b.line(classOK, fmt.Sprintf("✓ audit passed (%s)", textfmt.Plural(a.Steps, "step")), a.Feedback)
		return
	}
	b.line(classFail, fmt.Sprintf("✗ audit failed (%s): %s", textfmt.Plural(a.Steps, "step"), audit.FeedbackLine(a.Feedback)), a.Feedback)
}

// endRequest closes the request being shown with how it ended, as the
// terminal's last line does. Only the session's last request has a known
// status; an earlier one either ended with DONE or was cut short.
func (b *builder) endRequest(last bool) {
	if b.closed || b.requests == 0 && b.steps == 0 {
		return
	}
	steps := textfmt.Plural(b.steps, "step")
	switch {
	case !last:
		b.line(classDim, "the request ended without DONE after "+steps, "")
	case b.sess.Status == sessions.Failed:
		b.line(classFail, "✗ failed after "+steps, "")
	case b.sess.Status == sessions.Interrupted:
		b.line(classWarn, "! interrupted after "+steps+"; dev --resume continues the session", "")
	case b.sess.Status == sessions.Active:
		b.line(classDim, "… in progress, or ended without saving its status ("+steps+" so far)", "")
	}
	b.steps, b.lastDone = 0, false
}

// rewound shows the rewinds that left kept requests in the history,
// before the request that follows them: the requests the history holds
// are numbered as they are now, and what a rewind took out is said where
// it was. kept -1 shows those left.
func (b *builder) rewound(kept int) {
	for len(b.rewinds) > 0 && (kept < 0 || b.rewinds[0].Kept <= kept) {
		r := b.rewinds[0]
		b.rewinds = b.rewinds[1:]
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

// withoutFences drops the fence lines of a tool input: markup, not
// content, as the terminal shows inputs.
func withoutFences(input string) string {
	var kept []string
	for _, l := range strings.Split(strings.TrimSpace(input), "\n") {
		if t := strings.TrimSpace(l); !strings.HasPrefix(t, "```") && !strings.HasPrefix(t, "~~~") {
			kept = append(kept, l)
		}
	}
	return strings.Join(kept, "\n")
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
