package ui

import (
	"fmt"
	"io"
	"strings"

	"github.com/devagent/dev/audit"
	"github.com/devagent/dev/event"
	"github.com/devagent/dev/history"
	"github.com/devagent/dev/parser"
	"github.com/devagent/dev/sessions"
	"github.com/devagent/dev/textfmt"
	"github.com/devagent/dev/tools"
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
	t.replay(history.Read(sess.History), sessions.RejectedBefore(sess), sess.Audits)
	t.transcriptEnd(sess)
}

// replay shows the entries of a history as the terminal showed them: the
// replies dev rejected before each reply (rejected, by the number of
// replies before them; nil: none known) and the audits of its DONEs, in
// order.
func (t *Terminal) replay(entries []history.Entry, rejected map[int][]sessions.Request, audits []sessions.Audit) {
	var calls []parser.ToolCall // of the last reply, to pair with its results
	replies := 0                // assistant messages so far
	for i, e := range entries {
		switch e.Kind {
		case history.KindReply:
			t.rejected(rejected[replies])
			replies++
			if e.Err != nil {
				if t.level >= Verbose {
					t.Box("Reply", e.Message.Content)
				} else {
					t.note("a reply not in the expected format: " + textfmt.FirstLine(e.Message.Content))
				}
				calls = nil
				continue
			}
			t.Emit(event.ReplyParsed{Agent: event.Worker, Response: e.Reply})
			calls = e.Reply.Tools
			last := calls[len(calls)-1]
			if last.Name == tools.Done && (i+1 == len(entries) || !entries[i+1].ClosesStep()) {
				// An accepted DONE ends the run: no results follow it.
				for _, c := range calls[:len(calls)-1] {
					t.Emit(event.ToolStarted{Agent: event.Worker, Tool: c.Name, Input: c.Input})
				}
				audits = t.doneInTranscript(history.ToolResult{Tool: tools.Done, OK: true, Output: last.Input}, audits)
				calls = nil
			}
		case history.KindRequest:
			t.request(e.Text)
		case history.KindSummary:
			t.mu.Lock()
			t.line(t.cyan.Sprint(t.sym.compress + " the conversation was compressed here; the model went on from this summary:"))
			if t.level >= Verbose {
				t.box("Context summary", t.cyan, e.Message.Content, t.dim)
			} else {
				t.summaryLines(e.Compressed.Summary)
			}
			t.mu.Unlock()
		case history.KindResults:
			for i, r := range e.Results {
				input := ""
				if i < len(calls) {
					input = calls[i].Input
					t.Emit(event.ToolStarted{Agent: event.Worker, Tool: calls[i].Name, Input: input})
				}
				t.Emit(event.ToolFinished{Agent: event.Worker, Input: input, Result: tools.FromHistory(r)})
				if r.Tool == tools.Done {
					audits = t.doneInTranscript(r, audits)
				}
			}
		case history.KindShell:
			// The user's own command: no reply called it.
			for _, r := range e.Results {
				t.shell(e.Command, tools.FromHistory(r))
			}
		default: // an interruption, a format error, a message of another kind
			t.note(e.Message.Content)
		}
	}
	t.rejected(rejected[replies])
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
	cut, isCut := tools.CutOf(r.Output)
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

// doneInTranscript shows a DONE: the audit it had, and its summary when
// it was accepted. Audits are stored in order, one per audited DONE.
func (t *Terminal) doneInTranscript(r history.ToolResult, audits []sessions.Audit) []sessions.Audit {
	_, rejected := r.AuditFeedback()
	if len(audits) > 0 && (rejected || audits[0].Verdict == string(audit.Pass)) {
		a := audits[0]
		audits = audits[1:]
		t.Emit(event.AuditFinished{Verdict: a.Verdict, Feedback: a.Feedback, Steps: a.Steps})
	}
	if r.OK {
		t.mu.Lock()
		t.showAnswer(r.Output)
		t.mu.Unlock()
	}
	return audits
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
