package ui

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/devagent/dev/capture"
	"github.com/devagent/dev/event"
	"github.com/devagent/dev/parser"
	"github.com/devagent/dev/sessions"
	"github.com/devagent/dev/textfmt"
	"github.com/devagent/dev/tools"
	"github.com/devagent/dev/transcript"
)

// ShowSession writes a stored session as the terminal showed it while it
// ran (dev sessions show), on the calm screen: each request, the model's
// thoughts, task-list changes, tools and their results, the audits, the
// answers, compressions and interruptions. Only what a session keeps can
// be shown: failed attempts, the audit's own steps and streamed reasoning
// are not stored. out is described by s (its width, colour and character
// set); level Verbose draws the boxes of dev -v.
func ShowSession(s *Streams, sess *sessions.Session, level Verbosity) {
	t := NewTerminal(&Streams{Err: s.Out, Width: s.TermWidth(), WidthNow: s.WidthNow, Color: s.OutColor, Unicode: s.Unicode}, max(level, Normal))
	t.ShowAnswer(s.Out, &Markdown{Color: s.OutColor, Unicode: s.Unicode})
	t.mu.Lock()
	t.sessionHead("session", sess.ID, sess.Model, sess.WorkingDirectory) // stored, neither new nor resumed
	t.mu.Unlock()
	for _, turn := range transcript.Read(sess).Turns {
		t.turn(turn)
	}
	t.transcriptEnd(sess)
}

// turn shows a turn as the terminal showed it: the request as typed, or
// the summary a compression left, then its steps.
func (t *Terminal) turn(turn transcript.Turn) {
	switch turn.Kind {
	case transcript.TurnRequest:
		t.request(turn.Text)
		for _, a := range turn.Attachments {
			t.Emit(event.FileAttached{Path: a.Path, Lines: a.Lines, Binary: a.Binary})
		}
	case transcript.TurnSummary:
		for _, a := range turn.Audits { // of the DONEs the summary replaced
			t.Emit(event.AuditFinished{Verdict: a.Verdict, Feedback: a.Feedback, Steps: a.Steps})
		}
		t.mu.Lock()
		t.line(t.cyan.Sprint(t.sym.compress + " the conversation was compressed here; the model went on from this summary:"))
		if t.level >= Verbose {
			t.box("Context summary", t.cyan, turn.Summary.Message().Content, t.dim)
		} else {
			t.summaryLines(turn.Summary.Summary)
		}
		t.mu.Unlock()
	}
	for _, s := range turn.Steps {
		t.step(s)
	}
}

// step shows a step as the terminal showed it while it ran.
func (t *Terminal) step(s transcript.Step) {
	t.rejected(s.Rejected)
	switch s.Kind {
	case transcript.StepReply:
		t.Emit(event.ReplyParsed{Agent: event.Worker, Response: s.Reply})
		for _, c := range s.Calls {
			switch {
			case c.Result != nil:
				if c.Name != "" { // a result past the reply's calls has none
					t.Emit(event.ToolStarted{Agent: event.Worker, Tool: c.Name, Input: c.Input})
				}
				t.Emit(event.ToolFinished{Agent: event.Worker, Input: c.Input, Result: tools.FromHistory(*c.Result)})
			case c.Name != tools.Done && !s.HasResults():
				// The results of a reply whose DONE ended the run are not
				// kept: its tools started, nothing more is known.
				t.Emit(event.ToolStarted{Agent: event.Worker, Tool: c.Name, Input: c.Input})
			}
		}
		done, isDone := s.Done()
		if s.Audit != nil {
			t.Emit(event.AuditFinished{Verdict: s.Audit.Verdict, Feedback: s.Audit.Feedback, Steps: s.Audit.Steps})
		}
		if isDone && (s.Accepted || done.Result != nil && done.Result.OK) {
			t.mu.Lock()
			t.showAnswer(done.Input)
			t.mu.Unlock()
		}
	case transcript.StepRaw:
		if t.level >= Verbose {
			t.Box("Reply", s.Text)
		} else {
			t.note("a reply not in the expected format: " + textfmt.FirstLine(s.Text))
		}
	case transcript.StepShell:
		for _, c := range s.Calls {
			t.shell(s.Text, tools.FromHistory(*c.Result))
		}
	case transcript.StepResults:
		for _, c := range s.Calls {
			t.Emit(event.ToolFinished{Agent: event.Worker, Result: tools.FromHistory(*c.Result)})
		}
	case transcript.StepNote:
		if s.FormatError {
			t.note("reply not in the expected format: " + textfmt.FirstLine(s.Text))
			break
		}
		t.note(s.Text) // a message of a kind this version does not know
	case transcript.StepInterrupted:
		t.note(s.Text)
		t.partial(s.Partial)
	}
	if s.Kind == transcript.StepReply && s.Interrupted {
		for _, n := range s.Notes {
			t.note(n)
		}
	}
}

// partialLines is how many lines of an interrupted reply the calm
// transcript shows; -v shows it whole.
const partialLines = 8

// partial shows a reply the user interrupted as far as it had streamed,
// dim, as the screen showed it then: its first lines, and how many more.
func (t *Terminal) partial(text string) {
	text = strings.Trim(text, "\n")
	if strings.TrimSpace(text) == "" {
		return
	}
	lines := strings.Split(text, "\n")
	t.mu.Lock()
	defer t.mu.Unlock()
	t.line(t.dim.Sprint("  the reply as far as it had come (the model never saw it):"))
	shown := lines
	if t.level < Verbose && len(lines) > partialLines {
		shown = lines[:partialLines]
	}
	prefix := "  " + t.frame.vertical + " "
	for _, l := range shown {
		t.line(t.dim.Sprint(prefix + t.clip(sanitize(l), utf8.RuneCountInString(prefix))))
	}
	if more := len(lines) - len(shown); more > 0 {
		t.line(t.dim.Sprint(prefix + t.sym.ellipsis + " " + textfmt.Count(more, "more line")))
	}
}

// shell shows a command the user ran (!) as the prompt showed it: the
// command typed, then its output (its last lines on the calm screen).
// Histories of versions that did not keep the command say only that one
// ran.
func (t *Terminal) shell(command string, r tools.Result) {
	if command == "" {
		command = " (a command; this session did not keep which)"
	}
	t.request("!" + command)
	t.mu.Lock()
	defer t.mu.Unlock()
	t.last = LastResult{Title: "!" + command, Output: r.Output}
	if t.level >= Verbose {
		t.resultBox(r)
		return
	}
	if !r.OK {
		t.line(t.red.Sprint(t.fit("  "+t.sym.fail+" "+textfmt.FirstLine(r.Output), t.width-1)))
	}
	cut, isCut := capture.CutOf(r.Output)
	t.lastLines(r.Output, cut.Note)
	if isCut {
		t.line(t.yellow.Sprint("  " + t.cutText(cut)))
	}
}

// summaryLines shows the first lines of a compression's summary, dim.
func (t *Terminal) summaryLines(summary string) {
	lines := wrap(strings.TrimSpace(summary), max(8, t.width-5))
	if n := len(lines) - resumeLines; n > 0 {
		lines = append(lines[:resumeLines], t.sym.ellipsis+" "+textfmt.Count(n, "more line"))
	}
	for _, l := range lines {
		t.line(t.dim.Sprint("  " + t.frame.vertical + " " + l))
	}
}

// rejected shows replies dev could not use, as the terminal did while they
// came: the problem, and the reply's first and last lines.
func (t *Terminal) rejected(rs []sessions.Request) {
	for _, r := range rs {
		agent := event.Worker
		if r.Purpose == sessions.PurposeAudit {
			agent = event.Auditor
		}
		rj := r.Rejected
		t.mu.Lock()
		t.formatProblem(event.FormatProblem{Agent: agent, Message: rj.Problem, Cut: rj.Cut, Limit: r.MaxTokens, Configured: true,
			Head: rj.Head, Tail: rj.Tail, Lines: rj.Lines})
		t.mu.Unlock()
	}
}

// request shows a user's request as it was typed at the prompt.
func (t *Terminal) request(text string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.line("")
	for i, l := range strings.Split(text, "\n") {
		prefix := t.sym.prompt + " "
		if i > 0 {
			prefix = "  "
		}
		t.line(t.bold.Sprint(prefix + l))
	}
}

// note shows a message dev added for the model (an interruption).
func (t *Terminal) note(text string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.line(t.dim.Sprint(t.sym.warn + " " + textfmt.Summary(text, 200)))
}

func (t *Terminal) transcriptEnd(sess *sessions.Session) {
	t.mu.Lock()
	defer t.mu.Unlock()
	status := string(sess.Status)
	if sess.StatusReason != "" {
		status += ": " + sess.StatusReason
	}
	parts := []string{
		"status " + status,
		textfmt.Count(sess.TotalTokens, "token"),
		fmt.Sprintf("updated %s", sess.UpdatedAt.Local().Format("2006-01-02 15:04")),
	}
	if sess.CompressionCount > 0 {
		parts = append(parts, textfmt.Count(sess.CompressionCount, "compression"))
	}
	t.line("")
	for _, l := range statusLines(t.dim.Sprint("session "+sess.ID), parts, t.width-1, " "+t.sym.dot+" ") {
		t.line(l)
	}
}

// Transcript writes a session's stored messages as they are (dev sessions
// show --raw): its facts, its task list, then every message of its history.
func Transcript(w io.Writer, sess *sessions.Session) {
	fmt.Fprintf(w, "# Session %s\n\n", sess.ID)
	fmt.Fprintf(w, "- Directory: %s\n- Model: %s\n- Status: %s\n- Created: %s\n- Updated: %s\n- Tokens: %d\n\n",
		sess.WorkingDirectory, sess.Model, sess.Status,
		sess.CreatedAt.Format(timeLayout), sess.UpdatedAt.Format(timeLayout), sess.TotalTokens)
	if len(sess.TaskList) > 0 {
		fmt.Fprintln(w, "## Task list")
		fmt.Fprintln(w, parser.TaskLines(sess.TaskList))
		fmt.Fprintln(w)
	}
	for i, m := range sess.History {
		fmt.Fprintf(w, "## %d. %s\n\n%s\n\n", i+1, m.Role, strings.TrimSpace(m.Content))
	}
}
