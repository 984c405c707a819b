package ui

import (
	"bytes"
	"io"
	"strings"
)

// Text dev formats for people fits the terminal (SPEC §17), wrapped
// between words: help texts, lists and messages.

// minHanging is the fewest columns a wrapped line of a list keeps for its
// text: a second column that would leave less is not followed, and the
// line goes on a little under its start instead.
const minHanging = 16

// Wrap fits text to width columns, breaking lines between words (inside a
// word only when a word is wider than the line). A line that fits stays as
// it is; a longer one goes on under itself, indented as its text is: by its
// leading spaces, or in a line of two columns (two spaces or more inside
// it) up to its second column, so that a list of names and what they do
// stays a list. A width of 0 or less fits everything.
func Wrap(text string, width int) string {
	if width <= 0 {
		return text
	}
	lines := strings.Split(text, "\n")
	out := make([]string, 0, len(lines))
	for _, l := range lines {
		out = append(out, wrapHanging(l, width)...)
	}
	return strings.Join(out, "\n")
}

// wrapHanging is one line of Wrap.
func wrapHanging(line string, width int) []string {
	if textWidth(line) <= width {
		return []string{line}
	}
	line = sanitize(line)
	indent, lead := hangingIndent(line), leadingSpaces(line)
	if indent > lead && width-indent < minHanging {
		indent = lead + 4
	}
	if width-indent < minHanging/2 {
		indent = 0 // a line too narrow for any indent
	}
	cut, _ := cutAt(line, width)
	out := []string{strings.TrimRight(line[:cut], " ")}
	pad := strings.Repeat(" ", indent)
	for _, l := range wrap(strings.TrimLeft(line[cut:], " "), width-indent) {
		out = append(out, pad+l)
	}
	return out
}

// hangingIndent is where the text of a line starts: after its leading
// spaces, or at its second column when two spaces or more part it.
func hangingIndent(line string) int {
	lead := leadingSpaces(line)
	rest := line[lead:]
	if i := strings.Index(rest, "  "); i >= 0 {
		gap := i + len(rest[i:]) - len(strings.TrimLeft(rest[i:], " "))
		if gap < len(rest) {
			return lead + textWidth(rest[:gap])
		}
	}
	return lead
}

func leadingSpaces(s string) int { return len(s) - len(strings.TrimLeft(s, " ")) }

// WrapWriter writes through Wrap, line by line, to fit width columns; Flush
// writes a last line that has no newline.
type WrapWriter struct {
	w       io.Writer
	width   int
	pending []byte
}

// NewWrapWriter fits what is written to w into width columns.
func NewWrapWriter(w io.Writer, width int) *WrapWriter {
	return &WrapWriter{w: w, width: width}
}

// Write implements io.Writer: whole lines go out wrapped, a partial one
// waits for its end.
func (ww *WrapWriter) Write(p []byte) (int, error) {
	ww.pending = append(ww.pending, p...)
	i := bytes.LastIndexByte(ww.pending, '\n')
	if i < 0 {
		return len(p), nil
	}
	lines := string(ww.pending[:i])
	ww.pending = append(ww.pending[:0], ww.pending[i+1:]...)
	if _, err := io.WriteString(ww.w, Wrap(lines, ww.width)+"\n"); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush writes what waits for its newline.
func (ww *WrapWriter) Flush() error {
	if len(ww.pending) == 0 {
		return nil
	}
	_, err := io.WriteString(ww.w, Wrap(string(ww.pending), ww.width))
	ww.pending = ww.pending[:0]
	return err
}
