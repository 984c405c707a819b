package parser

import "strings"

// CodeBlock is one top-level fenced code block of a tool input.
type CodeBlock struct {
	Info    string // info string after the opening fence, e.g. "go", "find"
	Content string // lines between the opening and the matching closing fence, each ending in "\n"
}

// fence describes a line that is a code fence: ``` or ~~~ (3+), up to three
// spaces of indentation, and an optional info string.
type fence struct {
	char byte
	size int
	info string
}

func parseFence(line string) (fence, bool) {
	trimmed := strings.TrimLeft(line, " ")
	if len(line)-len(trimmed) > 3 || len(trimmed) < 3 {
		return fence{}, false
	}
	c := trimmed[0]
	if c != '`' && c != '~' {
		return fence{}, false
	}
	n := 0
	for n < len(trimmed) && trimmed[n] == c {
		n++
	}
	if n < 3 {
		return fence{}, false
	}
	info := strings.TrimSpace(trimmed[n:])
	if c == '`' && strings.Contains(info, "`") {
		return fence{}, false // CommonMark: a backtick fence's info has no backticks
	}
	return fence{char: c, size: n, info: info}, true
}

// closes reports whether f is a bare fence that can close a block opened by open.
func (f fence) closes(open fence) bool {
	return f.info == "" && f.char == open.char && f.size >= open.size
}

// lineRole is where a line stands relative to the top-level fenced blocks.
type lineRole int

const (
	roleOutside lineRole = iota // ordinary markdown
	roleOpening                 // the opening fence of a top-level block
	roleInside                  // content of a block (nested fences included)
	roleClosing                 // the closing fence of a top-level block
)

// fenceTracker follows top-level fenced blocks line by line with the sloppy
// nesting rule of CodeBlocks. Parse, StripThinking and CodeBlocks share it so
// that all three agree on what is code.
type fenceTracker struct {
	open  fence
	depth int // 0: outside; 1: in a top-level block; >1: in nested levels
}

// step classifies the next line (without its "\n"; a trailing "\r" is ignored).
func (t *fenceTracker) step(line string) lineRole {
	f, isFence := parseFence(strings.TrimSuffix(line, "\r"))
	switch {
	case t.depth == 0:
		if isFence {
			t.open, t.depth = f, 1
			return roleOpening
		}
		return roleOutside
	case isFence && f.closes(t.open) && t.depth == 1:
		t.depth = 0
		return roleClosing
	case isFence && f.char == t.open.char && f.info != "" && f.size == t.open.size:
		t.depth++
	case isFence && f.closes(t.open):
		t.depth--
	}
	return roleInside
}

// CodeBlocks returns the top-level fenced blocks of a tool input in order.
//
// Models writing markdown files nest fences sloppily: a ```markdown block
// holding a ```bash block closed by a bare ```, all the same length. CommonMark
// would end the outer block at the inner closing fence; here, inside a block, a
// fence line with an info string opens a nested level that the next bare fence
// closes, so the outer block ends at its own closing fence. An outer fence of
// four or more backticks works by the ordinary length rule. An unclosed block
// runs to the end of the input.
func CodeBlocks(input string) []CodeBlock {
	var blocks []CodeBlock
	var t fenceTracker
	var content strings.Builder
	for len(input) > 0 {
		line, rest, _ := strings.Cut(input, "\n")
		input = rest
		line = strings.TrimSuffix(line, "\r")
		switch t.step(line) {
		case roleOpening:
			content.Reset()
		case roleClosing:
			blocks = append(blocks, CodeBlock{Info: t.open.info, Content: content.String()})
		case roleInside:
			content.WriteString(line)
			content.WriteByte('\n')
		}
	}
	if t.depth > 0 {
		blocks = append(blocks, CodeBlock{Info: t.open.info, Content: content.String()})
	}
	return blocks
}
