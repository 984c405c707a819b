package ui

import (
	"bytes"
	"io"
	"strings"
	"time"

	"github.com/devagent/dev/event"
	"github.com/devagent/dev/textfmt"
	"github.com/devagent/dev/transcript"
)

// What a resumed session shows of itself besides its last exchange: the
// two lines saying which session it is, the approval mode's line, the
// prompt's line and the line that says how to get help.
const resumeChrome = 5

// resumed shows where a resumed session stood (SPEC §17): its last
// request, the steps since as the calm screen shows them, its last answer
// or question, its task list, and how its last run ended and when; a
// screen at most, the steps cut first. /last then shows the session's last
// tool result. Called with mu held.
func (t *Terminal) resumed(e event.SessionStarted) {
	if !e.Resumed {
		return
	}
	var request []string
	if e.LastRequest != "" {
		request, _ = t.offscreen(func(s *Terminal) { s.request(e.LastRequest) })
	}
	steps, replayed := t.offscreen(func(s *Terminal) {
		s.noTasks = true // shown once, as they are now
		for _, turn := range transcript.ReadHistory(e.Recent).Turns {
			for _, st := range turn.Steps { // the request is shown above
				s.step(st)
			}
		}
	})
	answer := t.lastAnswer(e)
	var tasks []string
	if len(e.Tasks) > 0 {
		tasks, _ = t.offscreen(func(s *Terminal) { s.compactTasks(e.Tasks) })
	}

	// 2: the blank line before the request, and the ending's line.
	room := max(t.heightOf()-resumeChrome-2-len(tasks), 6)
	request = t.keepFirst(request, max(2, min(4, room/4)))
	answer = t.keepFirst(answer, max(3, (room-len(request))/2))
	steps = t.keepLast(steps, room-len(request)-len(answer))
	if len(request) > 0 {
		t.line("")
	}
	for _, part := range [][]string{request, steps, answer, tasks} {
		for _, l := range part {
			t.line(l)
		}
	}
	if last, ok := replayed.Last(); ok {
		t.last = last
	}
	if len(e.Tasks) > 0 {
		t.tasks, t.shown = taskLines(e.Tasks), e.Tasks
	}
	t.ending(e)
	t.approval(e.Approval)
}

// approval says which approval mode a resumed session is worked on in,
// and in a conversation how to switch it.
func (t *Terminal) approval(mode string) {
	if mode == "" {
		return
	}
	s := "approval: " + mode
	if t.interactive {
		s += " (Shift+Tab or /approval switches)"
	}
	t.line(t.dim.Sprint(s))
}

// lastAnswer is the session's last answer, rendered as the answer was, or
// the question the model asked last.
func (t *Terminal) lastAnswer(e event.SessionStarted) []string {
	text := strings.TrimSpace(e.LastAnswer)
	if text == "" {
		return nil
	}
	if e.LastAsked {
		var out []string
		for i, l := range wrap(text, max(8, t.width-3)) {
			prefix := "  "
			if i == 0 {
				prefix = "? "
			}
			out = append(out, t.yellow.Sprint(prefix+l))
		}
		return out
	}
	md := Markdown{Width: min(t.width-1, maxBoxWidth), Color: t.escapes, Unicode: t.sym == unicodeSymbols}
	return strings.Split(strings.TrimRight(md.Render(text), "\n"), "\n")
}

// ending says how the session's last run ended, and when it was last used.
func (t *Terminal) ending(e event.SessionStarted) {
	age := ""
	if !e.LastUsed.IsZero() {
		age = " " + t.sym.dot + " last used " + ago(t.now().Sub(e.LastUsed))
	}
	switch e.LastStatus {
	case "complete":
		t.line(t.green.Sprintf("%s last run: done", t.sym.ok) + t.dim.Sprint(age))
	case "interrupted":
		t.line(t.yellow.Sprintf("%s last run: interrupted", t.sym.warn) + t.dim.Sprint(age))
	case "failed":
		why := ""
		if e.LastReason != "" {
			why = ": " + e.LastReason
		}
		t.message(t.red, t.sym.fail+" ", "last run: failed"+why+age)
	case "active":
		t.line(t.yellow.Sprintf("%s last run: did not end (dev stopped while it ran)", t.sym.warn) + t.dim.Sprint(age))
	default:
		if age != "" {
			t.line(t.dim.Sprint(strings.TrimPrefix(age, " "+t.sym.dot+" ")))
		}
	}
}

// ago says how long ago something was, for people: "just now", "5
// minutes ago", "3 hours ago", "2 days ago".
func ago(d time.Duration) string {
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return textfmt.Count(int(d/time.Minute), "minute") + " ago"
	case d < 48*time.Hour:
		return textfmt.Count(int(d/time.Hour), "hour") + " ago"
	}
	return textfmt.Count(int(d/(24*time.Hour)), "day") + " ago"
}

// keepFirst keeps the first n lines, the last of them saying how many more
// there were.
func (t *Terminal) keepFirst(lines []string, n int) []string {
	if len(lines) <= n {
		return lines
	}
	n = max(n, 1)
	more := len(lines) - n + 1
	return append(lines[:n-1:n-1], t.dim.Sprint("  "+t.sym.ellipsis+" "+textfmt.Count(more, "more line")))
}

// keepLast keeps the last n lines, the first of them saying how many came
// before (dev sessions show has them all).
func (t *Terminal) keepLast(lines []string, n int) []string {
	if len(lines) <= n {
		return lines
	}
	if n <= 0 {
		return nil
	}
	earlier := len(lines) - n + 1
	note := t.dim.Sprint("  " + t.sym.ellipsis + " " + textfmt.Count(earlier, "earlier line") + " (dev sessions show has them all)")
	return append([]string{note}, lines[len(lines)-n+1:]...)
}

// offscreen draws with a terminal like t that writes to memory (no live
// part, the answer nowhere) and returns the lines drawn and that terminal.
func (t *Terminal) offscreen(draw func(s *Terminal)) ([]string, *Terminal) {
	var buf bytes.Buffer
	width := t.width
	s := &Terminal{w: &buf, level: Normal, width: width, widthOf: func() int { return width }, heightOf: t.heightOf, now: t.now,
		sym: t.sym, frame: t.frame, escapes: t.escapes, answer: io.Discard,
		dim: t.dim, bold: t.bold, toolC: t.toolC, red: t.red, green: t.green, yellow: t.yellow, cyan: t.cyan}
	draw(s)
	text := strings.Trim(buf.String(), "\n")
	if text == "" {
		return nil, s
	}
	return strings.Split(text, "\n"), s
}
