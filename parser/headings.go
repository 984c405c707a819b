package parser

import (
	"sort"
	"strings"

	"github.com/yuin/goldmark/ast"
	gmparser "github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// section is the kind of a template heading.
type section int

const (
	secOther section = iota // any other heading: content of the section it is in
	secAgentResponse
	secThoughts
	secTaskList
	secToolChoice
	secToolInput
)

// canonical is how Template writes each heading.
var canonical = map[section]string{
	secAgentResponse: "# Agent Response",
	secThoughts:      "## Thoughts",
	secTaskList:      "## Task List",
	secToolChoice:    "## Tool Choice",
	secToolInput:     "## Tool Input",
}

// sectionNames are the accepted spellings, lower case; a space matches any run
// of spaces, underscores or hyphens, or none ("TaskList", "tool_choice").
var sectionNames = []struct {
	kind  section
	names []string
}{
	{secAgentResponse, []string{"agent response"}},
	{secThoughts, []string{"thoughts", "thought"}},
	{secTaskList, []string{"task list", "tasks"}},
	{secToolChoice, []string{"tool choice"}},
	{secToolInput, []string{"tool input"}},
}

// class is what a heading's text says about the template.
type class struct {
	kind  section
	rest  string // text after the name, e.g. the tool in "Tool Choice: DONE"
	colon bool   // a colon separated rest from the name
}

// classify matches heading text (without the #s) against the section names,
// tolerating bold or code markup around the name and a trailing colon.
func classify(heading string) class {
	t := strings.TrimLeft(heading, "*_` \t")
	for _, s := range sectionNames {
		for _, name := range s.names {
			n := matchName(t, name)
			if n < 0 {
				continue
			}
			after := t[n:]
			if after != "" && isWordByte(after[0]) {
				continue // "Thoughtful", "Tasks2": a different heading
			}
			j := skipMarkup(after, 0)
			colon := j < len(after) && after[j] == ':'
			if colon {
				j = skipMarkup(after, j+1)
			}
			return class{kind: s.kind, rest: strings.TrimSpace(after[j:]), colon: colon}
		}
	}
	return class{kind: secOther}
}

// matchName returns the length of the prefix of t that spells name, or -1.
func matchName(t, name string) int {
	i := 0
	for k := 0; k < len(name); k++ {
		if name[k] == ' ' {
			for i < len(t) && (t[i] == ' ' || t[i] == '_' || t[i] == '-') {
				i++
			}
			continue
		}
		if i >= len(t) || lower(t[i]) != name[k] {
			return -1
		}
		i++
	}
	return i
}

func skipMarkup(s string, j int) int {
	for j < len(s) && strings.IndexByte("*_` \t", s[j]) >= 0 {
		j++
	}
	return j
}

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

func isWordByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// atx is an ATX heading line: up to three spaces, 1-6 #s, then a space or
// the end of the line.
type atx struct {
	level int
	text  string // without the #s, the closing sequence and surrounding spaces
}

// atxHeading recognises a heading line by hand where no goldmark tree is at
// hand (StripThinking); Parse asks goldmark.
func atxHeading(line string) (atx, bool) {
	line = strings.TrimSuffix(line, "\r")
	t := strings.TrimLeft(line, " ")
	if len(line)-len(t) > 3 {
		return atx{}, false
	}
	level := 0
	for level < len(t) && t[level] == '#' {
		level++
	}
	if level == 0 || level > 6 || level < len(t) && t[level] != ' ' && t[level] != '\t' {
		return atx{}, false
	}
	body := strings.TrimRight(t[level:], " \t")
	// An optional closing sequence of #s preceded by a space (CommonMark).
	if k := strings.TrimRight(body, "#"); k != body && (k == "" || strings.HasSuffix(k, " ") || strings.HasSuffix(k, "\t")) {
		body = k
	}
	return atx{level: level, text: strings.TrimSpace(body)}, true
}

// heading is a template heading found in the reply.
type heading struct {
	start, end int // byte offsets of the heading line; end is past its "\n"
	level      int
	line       string // the heading line as written, for warnings
	class
}

// scanHeadings returns the headings of src in order, each classified.
//
// Headings come from goldmark's tree, walked read-only, so that indented
// code, block quotes and the like follow CommonMark. Fenced blocks are decided
// first by the sloppy-nesting rule (fenceTracker) and left out of the text
// goldmark reads: goldmark would end a ```markdown block at the bare fence
// closing a ```bash block inside it, then read the rest of the file as
// markdown, and its final fence as the start of a block swallowing the next
// Tool Choice. Leaving them out also keeps a 1 MB WRITE_FILE cheap.
func scanHeadings(md gmparser.Parser, src string) []heading {
	outside, pieces := outsideFences(src)
	doc := md.Parse(text.NewReader(outside))
	var hs []heading
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		h, ok := n.(*ast.Heading)
		if !ok || !entering {
			return ast.WalkContinue, nil
		}
		if h.Lines().Len() == 0 {
			return ast.WalkSkipChildren, nil // "##" alone names nothing
		}
		seg := h.Lines().At(0)
		at := pieces.original(seg.Start)
		start := strings.LastIndexByte(src[:at], '\n') + 1
		end := len(src)
		if nl := strings.IndexByte(src[at:], '\n'); nl >= 0 {
			end = at + nl + 1
		}
		line := strings.TrimSuffix(src[start:end], "\n")
		// Only ATX headings at the start of a line (at most three spaces in)
		// delimit sections: not setext underlines, not "> ## x" in a quote.
		if a, ok := atxHeading(line); ok {
			hs = append(hs, heading{start: start, end: end, level: a.level, line: line, class: classify(a.text)})
		}
		return ast.WalkSkipChildren, nil
	})
	return hs
}

// piece is a run of lines outside fenced blocks: it starts at byte at of the
// text goldmark reads and at byte orig of the reply.
type piece struct{ at, orig int }

type pieces []piece

// original maps an offset of the text goldmark reads back to the reply.
func (ps pieces) original(at int) int {
	i := sort.Search(len(ps), func(i int) bool { return ps[i].at > at }) - 1
	if i < 0 {
		return at
	}
	return ps[i].orig + at - ps[i].at
}

// outsideFences returns the lines of src outside top-level fenced blocks,
// each block replaced by one blank line (it ends a paragraph, as the block
// did), and where each run of kept lines came from.
func outsideFences(src string) ([]byte, pieces) {
	var out []byte
	var ps pieces
	var fences fenceTracker
	run := 0 // start of the current run of lines outside fences, or -1
	keep := func(end int) {
		if run >= 0 && end > run {
			ps = append(ps, piece{at: len(out), orig: run})
			out = append(out, src[run:end]...)
		}
	}
	for i := 0; i < len(src); {
		next := len(src)
		if nl := strings.IndexByte(src[i:], '\n'); nl >= 0 {
			next = i + nl + 1
		}
		role := fences.step(strings.TrimSuffix(src[i:next], "\n"))
		switch {
		case role == roleOutside && run < 0:
			run = i
		case role == roleOpening:
			keep(i)
			run = -1
			out = append(out, '\n')
		}
		i = next
	}
	keep(len(src))
	return out, ps
}

// newMarkdownParser is goldmark's CommonMark block parser without HTML blocks
// (a line such as "<br>" would otherwise swallow the heading after it),
// without block quotes (a heading in a quote is no section heading anyway, and
// goldmark takes minutes over a line of thousands of nested ">") and without
// inline parsing, which the sections do not need.
func newMarkdownParser() gmparser.Parser {
	return gmparser.NewParser(
		gmparser.WithBlockParsers(
			util.Prioritized(gmparser.NewSetextHeadingParser(), 100),
			util.Prioritized(gmparser.NewThematicBreakParser(), 200),
			util.Prioritized(gmparser.NewListParser(), 300),
			util.Prioritized(gmparser.NewListItemParser(), 400),
			util.Prioritized(gmparser.NewCodeBlockParser(), 500),
			util.Prioritized(gmparser.NewATXHeadingParser(), 600),
			util.Prioritized(gmparser.NewFencedCodeBlockParser(), 700),
			util.Prioritized(gmparser.NewParagraphParser(), 1000),
		),
		gmparser.WithInlineParsers(),
		gmparser.WithParagraphTransformers(),
	)
}
