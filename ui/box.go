package ui

import (
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/fatih/color"
	"github.com/rivo/uniseg"
)

// frame holds the characters of a box, with an ASCII fallback.
type frame struct {
	topLeft, topRight, bottomLeft, bottomRight, horizontal, vertical string
}

var (
	unicodeFrame = frame{"┌", "┐", "└", "┘", "─", "│"}
	asciiFrame   = frame{"+", "+", "+", "+", "-", "|"}
)

// maxBoxWidth keeps boxes readable on very wide terminals.
const maxBoxWidth = 120

// box draws text in a titled box as wide as the terminal:
//
//	┌─ Title ──────┐
//	│ text         │
//	└──────────────┘
//
// Lines are wrapped at the box's inner width; colour (may be nil) applies
// to the text, titleColour to the title.
func (t *Terminal) box(title string, titleColour *color.Color, text string, colour *color.Color) {
	lines := wrap(strings.TrimRight(text, "\n"), t.innerWidth())
	colours := make([]*color.Color, len(lines))
	for i := range colours {
		colours[i] = colour
	}
	t.boxLines(title, titleColour, lines, colours)
}

// innerWidth is the text width of a box: "│ " + text + " │".
func (t *Terminal) innerWidth() int {
	return max(min(t.width, maxBoxWidth)-4, 8)
}

// boxLines draws already wrapped lines, each in its colour (nil: plain).
func (t *Terminal) boxLines(title string, titleColour *color.Color, lines []string, colours []*color.Color) {
	inner := t.innerWidth()
	f := t.frame
	if max := inner - 2; uniseg.StringWidth(title) > max {
		title = wrap(title, max-1)[0] + t.sym.ellipsis
	}
	fill := max(inner-uniseg.StringWidth(title)-1, 0)
	t.line(f.topLeft + f.horizontal + " " + titleColour.Sprint(title) + " " + strings.Repeat(f.horizontal, fill) + f.topRight)
	for i, l := range lines {
		pad := strings.Repeat(" ", max(inner-textWidth(l), 0))
		if colours[i] != nil {
			l = colours[i].Sprint(l)
		}
		t.line(f.vertical + " " + l + pad + " " + f.vertical)
	}
	t.line(f.bottomLeft + strings.Repeat(f.horizontal, inner+2) + f.bottomRight)
}

// wrap splits text into lines of at most width columns, breaking at spaces
// when it can and inside a word when it must. Tabs become spaces and other
// control characters are dropped: tool output must not move the cursor or
// change colours on the user's terminal.
//
// The work is linear in the text: each cut looks at one box width of the
// line, never at the rest of it (a 50 MB reply on one line once took
// minutes, measuring the remaining line at every cut).
func wrap(text string, width int) []string {
	var out []string
	for _, line := range strings.Split(sanitize(text), "\n") {
		for {
			cut, fits := cutAt(line, width)
			if fits {
				break
			}
			out = append(out, strings.TrimRight(line[:cut], " "))
			line = strings.TrimLeft(line[cut:], " ")
		}
		out = append(out, line)
	}
	return out
}

// cutAt is the byte offset where a line too wide for width should break:
// after the last space that fits, or at the widest grapheme boundary. fits
// reports that the whole line fits in width; it reads at most width columns
// and one grapheme of the line.
func cutAt(line string, width int) (cut int, fits bool) {
	lastSpace, w := -1, 0
	state := -1
	rest := line
	for len(rest) > 0 {
		var cluster, next string
		var cw, st int
		if rest[0] < utf8.RuneSelf && (len(rest) == 1 || rest[1] < utf8.RuneSelf) {
			// Two ASCII bytes in a row: the first is a grapheme of one
			// column (sanitize removed control characters). Most text is
			// ASCII, and uniseg's state machine is the cost of wrapping.
			cluster, next, cw, st = rest[:1], rest[1:], 1, -1
		} else {
			cluster, next, cw, st = uniseg.FirstGraphemeClusterInString(rest, state)
		}
		if w+cw > width {
			break
		}
		w += cw
		cut += len(cluster)
		if cluster == " " {
			lastSpace = cut
		}
		rest, state = next, st
	}
	if len(rest) == 0 {
		return len(line), true
	}
	if lastSpace > width/2 {
		return lastSpace, false
	}
	if cut == 0 { // a grapheme wider than the box: take it anyway
		_, next, _, _ := uniseg.FirstGraphemeClusterInString(line, -1)
		return len(line) - len(next), false
	}
	return cut, false
}

// textWidth is the columns s takes on a terminal.
func textWidth(s string) int {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return uniseg.StringWidth(s)
		}
	}
	return len(s) // sanitized ASCII: one column a byte
}

// escapes matches terminal control sequences: CSI (colours, cursor moves)
// and OSC (titles, hyperlinks).
var escapes = regexp.MustCompile(`\x1b\[[0-9;?<=>]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)`)

// sanitize expands tabs and removes escape sequences and control
// characters, keeping newlines.
func sanitize(s string) string {
	if strings.IndexByte(s, 0x1b) >= 0 {
		s = escapes.ReplaceAllString(s, "")
	}
	s = strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\t", "    ")
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\n':
			return r
		case r < 0x20, r == 0x7f, r >= 0x80 && r < 0xa0:
			return -1
		}
		return r
	}, s)
}
