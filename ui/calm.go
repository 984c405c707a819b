package ui

import (
	"fmt"
	"strings"

	"github.com/devagent/dev/capture"
	"github.com/devagent/dev/parser"
	"github.com/devagent/dev/textfmt"
	"github.com/devagent/dev/tools"
	"github.com/fatih/color"
)

// The calm screen (SPEC §17), what normal mode shows of a step: a dim line
// of the model's thoughts, the task list when it changed (a line or two),
// then a line per tool once it ran (✓ READ_FILE main.go), with an edit's
// diff, a failed tool's reason and last lines, and what the model did not
// see of a long output. The boxes are verbose mode's.

// thoughtLine shows the reply's thoughts on one dim line: the full text
// streamed in the live part while the reply came.
func (t *Terminal) thoughtLine(thoughts string) {
	// A line shows little of a long text: only its start is read (a
	// reply's thoughts may be megabytes on one line).
	if len(thoughts) > 4<<10 {
		thoughts = strings.ToValidUTF8(thoughts[:4<<10], "")
	}
	t.line(t.dim.Sprint(t.fit("  "+textfmt.Excerpt(thoughts, t.width), t.width-1)))
}

// compactTasks shows tasks side by side, each in the colour of its
// status, on as few lines as they fit in.
func (t *Terminal) compactTasks(tasks []parser.Task) {
	if len(tasks) == 0 {
		return
	}
	parts := make([]string, len(tasks))
	for i, task := range tasks {
		mark, c := t.taskMark(task)
		text := t.fit(mark+" "+task.Text, t.width-3)
		if task.Status != parser.Pending {
			text = c.Sprint(text)
		}
		parts[i] = text
	}
	for _, l := range statusLines("  "+parts[0], parts[1:], t.width-1, "  ") {
		t.line(l)
	}
}

// calmResult shows a tool that ran in one line: its mark, its name, what
// it worked on, and when it failed why; then a failed tool's last lines,
// and what the model did not see of a long output.
func (t *Terminal) calmResult(input string, r tools.Result) {
	if r.Tool == tools.Done {
		if _, rejected := r.Held().AuditFeedback(); rejected {
			return // the audit's line says why
		}
	}
	mark, c := t.sym.ok, t.green
	why := ""
	if !r.OK {
		mark, c = t.sym.fail, t.red
		why = textfmt.FirstLine(r.Output)
	}
	summary := toolSummary(r.Tool, input)
	if summary == "" {
		summary = textfmt.FirstLine(r.Summary)
	}
	t.toolLine(mark, c, r.Tool, summary, why)
	cut, isCut := capture.CutOf(r.Output)
	if !r.OK {
		t.lastLines(r.Output, cut.Note)
	}
	if isCut {
		t.line(t.yellow.Sprint("  " + t.cutText(cut)))
	}
}

// toolLine is "✓ TOOL summary · why", cut to the width, the mark in c and
// the reason in red.
func (t *Terminal) toolLine(mark string, c *color.Color, tool, summary, why string) {
	room := t.width - 1
	head := mark + " " + tool
	line := c.Sprint(mark) + " " + t.bold.Sprint(tool)
	used := textWidth(head)
	if summary != "" && used+2 < room {
		s := t.fit(" "+summary, room-used)
		line += s
		used += textWidth(s)
	}
	if why != "" && used+4 < room {
		w := t.fit(" "+t.sym.dot+" "+why, room-used)
		line += t.red.Sprint(w)
	}
	t.line(line)
}

// toolSummary is what a tool worked on, in a few words: the first line of
// its input that is not a fence, without the quotes around a path; a
// command of several lines is marked as such.
func toolSummary(tool, input string) string {
	if tool == tools.Command {
		text := strings.TrimSpace(tools.CommandText(input))
		first, _, more := strings.Cut(text, "\n")
		if more {
			first += " " + textfmt.Ellipsis
		}
		return strings.TrimSpace(first)
	}
	s := inputSummary(input)
	if len(s) >= 2 && strings.ContainsRune("\"'`", rune(s[0])) && s[len(s)-1] == s[0] {
		s = s[1 : len(s)-1]
	}
	return s
}

// lastLines shows the last lines of a failed tool's output, on the screen
// after wrapping, without its first line (the tool's line says it, unless
// it is too long for it) or the note of a cut (the cut's own line says
// it); how many lines came before them, when any did.
func (t *Terminal) lastLines(output, note string) {
	output = strings.TrimRight(output, "\n")
	first, body, _ := strings.Cut(output, "\n")
	if strings.TrimSpace(body) == "" && textWidth(first) > t.width/2 {
		body = first // one long line: the tool's line could show only its start
	}
	var kept []string
	for _, l := range strings.Split(body, "\n") {
		if note == "" || l != note {
			kept = append(kept, l)
		}
	}
	body = strings.Trim(strings.Join(kept, "\n"), "\n")
	if strings.TrimSpace(body) == "" {
		return
	}
	prefix := "  " + t.frame.vertical + " "
	lines := wrap(body, max(8, t.width-1-textWidth(prefix)))
	if n := len(lines) - resultTail; n > 1 { // a line saying one line is left out saves nothing
		more := t.sym.ellipsis + " " + textfmt.Count(n, "line") + " above"
		if t.interactive {
			more += " (/last shows them all)"
		}
		t.line(t.dim.Sprint(prefix + more))
		lines = lines[n:]
	}
	for _, l := range lines {
		t.line(t.dim.Sprint(prefix) + l)
	}
}

// cutText says what the model did not see of an output cut for it, and
// where the whole output is.
func (t *Terminal) cutText(c capture.Cut) string {
	s := fmt.Sprintf("%s %s (%s) not sent to the model", t.sym.ellipsis, textfmt.Count(c.Lines, "line"), c.Size)
	if c.Path == "" {
		return s + "; the whole output could not be saved"
	}
	return s + "; whole output: " + c.Path
}

// diffLines shows an edit's diff under its tool's line, capped at
// diffLines lines: without its file headers (the line names the file) or
// its first hunk's header (-v shows the line numbers); a later hunk
// starts with an ellipsis.
func (t *Terminal) diffLines(diff string) {
	var lines []DiffLine
	hunks := 0
	for _, l := range DiffLines(diff, 0) {
		switch {
		case l.Kind == DiffHeader:
		case l.Kind == DiffHunk:
			if hunks++; hunks > 1 {
				lines = append(lines, DiffLine{Kind: DiffMore, Text: t.sym.ellipsis})
			}
		default:
			lines = append(lines, l)
		}
	}
	if n := len(lines) - diffLines; n > 0 {
		lines = append(lines[:diffLines], DiffLine{Kind: DiffMore, Text: fmt.Sprintf(moreLines, n)})
	}
	for _, l := range lines {
		text := t.fit("    "+l.Text, t.width-1)
		if c := t.diffColour(l.Kind); c != nil {
			text = c.Sprint(text)
		}
		t.line(text)
	}
}

// fit cuts s (plain text, one line) to at most width columns, ending it
// with an ellipsis when it was longer.
func (t *Terminal) fit(s string, width int) string {
	s = sanitize(strings.ReplaceAll(s, "\n", " "))
	if textWidth(s) <= width {
		return s
	}
	if width <= 1 {
		return ""
	}
	return strings.TrimRight(wrap(s, width-1)[0], " ") + t.sym.ellipsis
}
