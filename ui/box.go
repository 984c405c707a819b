package ui

import (
	"regexp"
	"strings"

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
		pad := strings.Repeat(" ", max(inner-uniseg.StringWidth(l), 0))
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
func wrap(text string, width int) []string {
	var out []string
	for _, line := range strings.Split(sanitize(text), "\n") {
		for uniseg.StringWidth(line) > width {
			cut := cutAt(line, width)
			out = append(out, strings.TrimRight(line[:cut], " "))
			line = strings.TrimLeft(line[cut:], " ")
		}
		out = append(out, line)
	}
	return out
}

// cutAt is the byte offset where a line too wide for width should break:
// after the last space that fits, or at the widest grapheme boundary.
func cutAt(line string, width int) int {
	cut, lastSpace, w := 0, -1, 0
	state := -1
	rest := line
	for len(rest) > 0 {
		cluster, next, cw, st := uniseg.FirstGraphemeClusterInString(rest, state)
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
	if lastSpace > width/2 {
		return lastSpace
	}
	if cut == 0 { // a grapheme wider than the box: take it anyway
		_, next, _, _ := uniseg.FirstGraphemeClusterInString(line, -1)
		return len(line) - len(next)
	}
	return cut
}

// escapes matches terminal control sequences: CSI (colours, cursor moves)
// and OSC (titles, hyperlinks).
var escapes = regexp.MustCompile(`\x1b\[[0-9;?<=>]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)`)

// sanitize expands tabs and removes escape sequences and control
// characters, keeping newlines.
func sanitize(s string) string {
	s = escapes.ReplaceAllString(s, "")
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
