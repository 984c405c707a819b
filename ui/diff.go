package ui

import (
	"fmt"
	"io"
	"strings"

	"github.com/fatih/color"
)

// DiffKind says what a line of a unified diff is, for its colour.
type DiffKind int

// Kinds of diff lines.
const (
	DiffContext DiffKind = iota // an unchanged line, or "\ No newline at end of file"
	DiffAdded                   // "+…": green
	DiffRemoved                 // "-…": red
	DiffHunk                    // "@@ -1,3 +1,4 @@": cyan
	DiffHeader                  // "diff --git", mode lines, "---"/"+++", "Binary files … differ": bold
	DiffMore                    // the line saying how many were left out: dim
)

// DiffLine is one line of a diff to show.
type DiffLine struct {
	Kind DiffKind
	Text string // without its newline
}

// moreLines is what a cut diff ends with, as head() says it of results.
const moreLines = "… %d more lines (--verbose shows all)"

// DiffLines splits a unified diff (a patch as checkpoints.Patch writes
// it, one file or several) into lines and says what each is. With max >
// 0 it keeps the first max lines and adds a DiffMore line counting the
// rest. A line's kind follows from where it is: "--- x" is a header
// before a file's first hunk and a removed line inside one.
func DiffLines(text string, max int) []DiffLine {
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	if text == "" {
		return nil
	}
	n := len(lines)
	if max > 0 && n > max {
		lines = lines[:max]
	}
	out := make([]DiffLine, 0, len(lines)+1)
	inHunk := false
	for _, l := range lines {
		k := DiffContext
		switch {
		case strings.HasPrefix(l, "diff --git "):
			k, inHunk = DiffHeader, false
		case strings.HasPrefix(l, "@@"):
			k, inHunk = DiffHunk, true
		case !inHunk:
			k = DiffHeader
		case strings.HasPrefix(l, "+"):
			k = DiffAdded
		case strings.HasPrefix(l, "-"):
			k = DiffRemoved
		}
		out = append(out, DiffLine{Kind: k, Text: l})
	}
	if len(lines) < n {
		out = append(out, DiffLine{Kind: DiffMore, Text: fmt.Sprintf(moreLines, n-len(lines))})
	}
	return out
}

// DiffStyle is how WriteDiff shows a diff.
type DiffStyle struct {
	// Color paints removed lines red, added green, hunk headers cyan and
	// file headers bold.
	Color bool
	// Terminal drops control characters (and expands tabs), so that a
	// file's content cannot move the cursor or change colours. Without
	// it the diff is written byte for byte, for git apply or patch.
	Terminal bool
	// MaxLines cuts the diff after that many lines with "… N more
	// lines" (0: all of it).
	MaxLines int
}

// WriteDiff writes a unified diff to w in style st: dev diff on stdout,
// /diff on the terminal.
func WriteDiff(w io.Writer, text string, st DiffStyle) error {
	if !st.Terminal && !st.Color && st.MaxLines <= 0 {
		_, err := io.WriteString(w, text)
		return err
	}
	paint := func(attrs ...color.Attribute) *color.Color { return colour(st.Color, attrs...) }
	colours := map[DiffKind]*color.Color{
		DiffContext: paint(),
		DiffAdded:   paint(color.FgGreen),
		DiffRemoved: paint(color.FgRed),
		DiffHunk:    paint(color.FgCyan),
		DiffHeader:  paint(color.Bold),
		DiffMore:    paint(color.Faint),
	}
	var b strings.Builder
	for _, l := range DiffLines(text, st.MaxLines) {
		t := l.Text
		if st.Terminal {
			t = sanitize(t)
		}
		if l.Kind != DiffContext {
			t = colours[l.Kind].Sprint(t)
		}
		b.WriteString(t)
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}
