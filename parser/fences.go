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
	var open fence
	depth := 0 // 0: outside; 1: in a top-level block; >1: in nested levels
	var content strings.Builder
	for len(input) > 0 {
		line, rest, _ := strings.Cut(input, "\n")
		input = rest
		line = strings.TrimSuffix(line, "\r")
		f, isFence := parseFence(line)
		switch {
		case depth == 0:
			if isFence {
				open, depth = f, 1
				content.Reset()
			}
			continue
		case isFence && f.closes(open) && depth == 1:
			blocks = append(blocks, CodeBlock{Info: open.info, Content: content.String()})
			depth = 0
			continue
		case isFence && f.char == open.char && f.size >= open.size && f.info != "" && f.size == open.size:
			depth++
		case isFence && f.closes(open):
			depth--
		}
		content.WriteString(line)
		content.WriteByte('\n')
	}
	if depth > 0 {
		blocks = append(blocks, CodeBlock{Info: open.info, Content: content.String()})
	}
	return blocks
}
