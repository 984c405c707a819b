package ui

import (
	"fmt"
	"io"
	"strings"

	"github.com/devagent/dev/audit"
	"github.com/devagent/dev/event"
	"github.com/devagent/dev/parser"
	"github.com/devagent/dev/sessions"
	"github.com/devagent/dev/textfmt"
	"github.com/devagent/dev/tools"
)

// ShowSession writes a stored session as the terminal showed it while it
// ran (dev sessions show): each request, the model's thoughts, task-list
// changes, tools and their results, the audits, the answers, compressions
// and interruptions. Only what a session keeps can be shown: failed
// attempts, the audit's own steps and streamed reasoning are not stored.
// out is described by s (its width, colour and character set).
func ShowSession(s *Streams, sess *sessions.Session) {
	t := NewTerminal(&Streams{Err: s.Out, Width: s.TermWidth(), WidthNow: s.WidthNow, Color: s.OutColor, Unicode: s.Unicode}, Normal)
	t.ShowAnswer(s.Out, &Markdown{Color: s.OutColor, Unicode: s.Unicode})
	t.Emit(event.SessionStarted{ID: sess.ID, Model: sess.Model, Dir: sess.WorkingDirectory})
	names := tools.Worker().Names()
	audits := sess.Audits
	rejected := sessions.RejectedBefore(sess)
	var calls []parser.ToolCall // of the last reply, to pair with its results
	replies := 0                // assistant messages so far
	for i, m := range sess.History {
		switch {
		case m.Role == "assistant":
			t.rejected(rejected[replies])
			replies++
			resp, err := parser.Parse(m.Content, names)
			if err != nil {
				t.Box("Reply", m.Content)
				calls = nil
				continue
			}
			t.Emit(event.ReplyParsed{Agent: event.Worker, Response: resp})
			calls = resp.Tools
			last := calls[len(calls)-1]
			if last.Name == tools.Done && (i+1 == len(sess.History) || !hasResults(sess.History[i+1].Content)) {
				// An accepted DONE ends the run: no results follow it.
				for _, c := range calls[:len(calls)-1] {
					t.Emit(event.ToolStarted{Agent: event.Worker, Tool: c.Name, Input: c.Input})
				}
				audits = t.doneInTranscript(tools.Result{Tool: tools.Done, OK: true, Done: true, Output: last.Input}, audits)
				calls = nil
			}
		case strings.HasPrefix(m.Content, "<user_request>"):
			request := strings.TrimSuffix(strings.TrimPrefix(m.Content, "<user_request>"), "</user_request>")
			t.request(strings.TrimSpace(request))
		case strings.HasPrefix(m.Content, "[CONTEXT SUMMARY]"):
			t.mu.Lock()
			t.line(t.cyan.Sprint(t.sym.compress + " the conversation was compressed here; the model went on from this summary:"))
			t.box("Context summary", t.cyan, t.capped(m.Content, resumeLines, 0), t.dim)
			t.mu.Unlock()
		default:
			results, _ := tools.Unwrap(m.Content)
			if len(results) == 0 {
				t.note(m.Content)
				continue
			}
			for i, r := range results {
				input := ""
				if i < len(calls) {
					input = calls[i].Input
					t.Emit(event.ToolStarted{Agent: event.Worker, Tool: calls[i].Name, Input: input})
				}
				t.Emit(event.ToolFinished{Agent: event.Worker, Input: input, Result: r})
				if r.Tool == tools.Done {
					audits = t.doneInTranscript(r, audits)
				}
			}
		}
	}
	t.rejected(rejected[replies])
	t.transcriptEnd(sess)
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
func (t *Terminal) doneInTranscript(r tools.Result, audits []sessions.Audit) []sessions.Audit {
	rejected := !r.OK && strings.HasPrefix(r.Output, "The audit did not accept")
	if len(audits) > 0 && (rejected || audits[0].Verdict == string(audit.Pass)) {
		a := audits[0]
		audits = audits[1:]
		t.Emit(event.AuditFinished{Verdict: a.Verdict, Feedback: a.Feedback, Steps: a.Steps})
	}
	if r.Done {
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
		prefix := "› "
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

// hasResults reports whether a message brings tool results.
func hasResults(content string) bool {
	results, _ := tools.Unwrap(content)
	return len(results) > 0
}
