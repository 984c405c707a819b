package ui

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"

	"github.com/fatih/color"
	"github.com/rivo/uniseg"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
)

// Markdown renders the model's final answer for a terminal: headings,
// emphasis, lists, code, quotes and tables, wrapped to width, in colour
// when colour is on, plain (and ASCII when unicode is false) otherwise.
//
// It is built on goldmark's core, the parser dev already uses for replies.
// charmbracelet/glamour was measured first: it adds 6.3 MB to the binary
// and about 25 ms to every start of dev (chroma's lexers and styles are
// registered in init), past dev's start-up budget (dev --version < 10 ms);
// the answers it would render need none of its syntax highlighting.
// goldmark's own table extension costs 1.3 ms at every start (its package
// compiles the linkify patterns in init), so tables, the one extension
// answers use, are found here (GFM pipe tables at the top level).
type Markdown struct {
	Width   int
	Color   bool
	Unicode bool
}

// mdStyle is a span's look.
type mdStyle int

const (
	mdPlain mdStyle = 1 << iota
	mdBold
	mdItalic
	mdCode
	mdLink
)

// span is a run of inline text in one style.
type span struct {
	text  string
	style mdStyle
}

// Render renders src. Text that is not markdown comes out as wrapped text.
func (m Markdown) Render(src string) string {
	r := &mdRenderer{m: m, width: max(m.Width, 20)}
	r.colours()
	for i, part := range splitTables(src) {
		if i > 0 {
			r.out.WriteString("\n")
		}
		if part.table != nil {
			r.table(part.table, "", "")
			continue
		}
		r.src = []byte(part.text)
		r.blocks(goldmark.New().Parser().Parse(text.NewReader(r.src)), "", "")
	}
	return strings.TrimRight(r.out.String(), "\n") + "\n"
}

// mdPart is a stretch of an answer: markdown, or a table found in it.
type mdPart struct {
	text  string
	table [][]string // rows of cells, the header first
}

var tableRule = regexp.MustCompile(`^\s{0,3}\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$`)

// splitTables cuts the GFM pipe tables out of src (a header row, a rule of
// dashes, rows), outside fenced code.
func splitTables(src string) []mdPart {
	lines := strings.Split(src, "\n")
	var parts []mdPart
	var text []string
	fence := ""
	flush := func() {
		if t := strings.Trim(strings.Join(text, "\n"), "\n"); t != "" {
			parts = append(parts, mdPart{text: t})
		}
		text = nil
	}
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		trimmed := strings.TrimSpace(l)
		switch {
		case fence != "":
			if strings.HasPrefix(trimmed, fence) {
				fence = ""
			}
		case strings.HasPrefix(trimmed, "```"), strings.HasPrefix(trimmed, "~~~"):
			fence = trimmed[:3]
		case strings.Contains(l, "|") && i+1 < len(lines) && strings.Contains(lines[i+1], "-") && tableRule.MatchString(lines[i+1]):
			rows := [][]string{cells(l)}
			i += 2
			for ; i < len(lines) && strings.Contains(lines[i], "|") && strings.TrimSpace(lines[i]) != ""; i++ {
				rows = append(rows, cells(lines[i]))
			}
			i--
			flush()
			parts = append(parts, mdPart{table: rows})
			continue
		}
		text = append(text, l)
	}
	flush()
	return parts
}

// cells splits a table row at its pipes (not at an escaped \|).
func cells(row string) []string {
	row = strings.TrimSpace(row)
	row = strings.TrimPrefix(row, "|")
	if strings.HasSuffix(row, "|") && !strings.HasSuffix(row, "\\|") {
		row = row[:len(row)-1]
	}
	var out []string
	var cur strings.Builder
	for i := 0; i < len(row); i++ {
		switch {
		case row[i] == '\\' && i+1 < len(row) && row[i+1] == '|':
			cur.WriteByte('|')
			i++
		case row[i] == '|':
			out = append(out, strings.TrimSpace(cur.String()))
			cur.Reset()
		default:
			cur.WriteByte(row[i])
		}
	}
	return append(out, strings.TrimSpace(cur.String()))
}

// cellSpans is a table cell's inline markdown as styled spans.
func (r *mdRenderer) cellSpans(cell string) []span {
	src := r.src
	defer func() { r.src = src }()
	r.src = []byte(cell)
	doc := goldmark.New().Parser().Parse(text.NewReader(r.src))
	if p := doc.FirstChild(); p != nil {
		return r.inline(p)
	}
	return nil
}

type mdRenderer struct {
	m     Markdown
	src   []byte
	width int
	out   bytes.Buffer

	bold, italic, code, link, heading, dim *color.Color
}

func (r *mdRenderer) colours() {
	mk := func(attrs ...color.Attribute) *color.Color { return colour(r.m.Color, attrs...) }
	r.bold, r.italic = mk(color.Bold), mk(color.Italic)
	r.code, r.link = mk(color.FgCyan), mk(color.Underline)
	r.heading, r.dim = mk(color.Bold, color.FgCyan), mk(color.Faint)
}

// blocks renders the block children of n; first prefixes the first line,
// rest every other line (list markers, quote bars).
func (r *mdRenderer) blocks(n ast.Node, first, rest string) {
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		r.block(c, first, rest)
		first = rest
		if c.NextSibling() != nil && needsGap(c) {
			r.out.WriteString(strings.TrimRight(rest, " ") + "\n")
		}
	}
}

// needsGap: a blank line follows every block but the items of a tight list.
func needsGap(n ast.Node) bool {
	_, tight := n.(*ast.TextBlock)
	return !tight
}

func (r *mdRenderer) block(n ast.Node, first, rest string) {
	switch n := n.(type) {
	case *ast.Heading:
		spans := r.inline(n)
		for i := range spans {
			spans[i].style |= mdBold
		}
		lines := r.wrapSpans(spans, r.width-width(rest))
		widest := 0
		for i, l := range lines {
			p := rest
			if i == 0 {
				p = first
			}
			r.out.WriteString(p + r.heading.Sprint(l.plain) + "\n")
			widest = max(widest, width(l.plain))
		}
		if !r.m.Color {
			// Without colour a heading would look like any line.
			rule := "─"
			if !r.m.Unicode {
				rule = "-"
			}
			r.out.WriteString(rest + strings.Repeat(rule, widest) + "\n")
		}
	case *ast.Paragraph, *ast.TextBlock:
		r.paragraph(r.inline(n), first, rest)
	case *ast.List:
		r.list(n, first, rest)
	case *ast.FencedCodeBlock, *ast.CodeBlock:
		r.codeBlock(n, first, rest)
	case *ast.Blockquote:
		bar := "│ "
		if !r.m.Unicode {
			bar = "> "
		}
		r.blocks(n, first+r.dim.Sprint(bar), rest+r.dim.Sprint(bar))
	case *ast.ThematicBreak:
		rule := "─"
		if !r.m.Unicode {
			rule = "-"
		}
		r.out.WriteString(first + r.dim.Sprint(strings.Repeat(rule, max(3, min(40, r.width-width(first))))) + "\n")
	case *ast.HTMLBlock:
		var b strings.Builder
		for i := 0; i < n.Lines().Len(); i++ {
			seg := n.Lines().At(i)
			b.Write(seg.Value(r.src))
		}
		r.paragraph([]span{{strings.TrimRight(b.String(), "\n"), mdPlain}}, first, rest)
	default:
		if n.HasChildren() {
			r.blocks(n, first, rest)
		}
	}
}

func (r *mdRenderer) paragraph(spans []span, first, rest string) {
	for i, l := range r.wrapSpans(spans, r.width-width(rest)) {
		p := rest
		if i == 0 {
			p = first
		}
		r.out.WriteString(p + l.styled + "\n")
	}
}

func (r *mdRenderer) list(n *ast.List, first, rest string) {
	bullet := "•"
	if !r.m.Unicode {
		bullet = "*"
	}
	num := n.Start
	for item := n.FirstChild(); item != nil; item = item.NextSibling() {
		marker := bullet + " "
		if n.IsOrdered() {
			marker = strconv.Itoa(num) + ". "
			num++
		}
		pad := strings.Repeat(" ", width(marker))
		r.blocks(item, first+marker, rest+pad)
		first = rest
		if !n.IsTight && item.NextSibling() != nil {
			r.out.WriteString(strings.TrimRight(rest, " ") + "\n")
		}
	}
}

func (r *mdRenderer) codeBlock(n ast.Node, first, rest string) {
	lines := n.Lines()
	for i := 0; i < lines.Len(); i++ {
		seg := lines.At(i)
		l := strings.TrimRight(string(seg.Value(r.src)), "\n")
		p := rest
		if i == 0 {
			p = first
		}
		for _, w := range wrap(l, max(8, r.width-width(rest)-2)) {
			r.out.WriteString(p + "  " + r.code.Sprint(w) + "\n")
			p = rest
		}
	}
}

// table lays the cells out in aligned columns, shrinking the widest ones
// (their cells wrap) when the table is wider than the terminal.
func (r *mdRenderer) table(table [][]string, first, rest string) {
	var rows [][][]span
	for _, row := range table {
		var cells [][]span
		for _, cell := range row {
			cells = append(cells, r.cellSpans(cell))
		}
		rows = append(rows, cells)
	}
	cols := 0
	for _, row := range rows {
		cols = max(cols, len(row))
	}
	if cols == 0 {
		return
	}
	widths := make([]int, cols)
	for _, row := range rows {
		for i, c := range row {
			widths[i] = max(widths[i], width(plainText(c)), 1)
		}
	}
	sep, cross, rule := " │ ", "─┼─", "─"
	if !r.m.Unicode {
		sep, cross, rule = " | ", "-+-", "-"
	}
	avail := r.width - width(rest) - (cols-1)*width(sep)
	for sum(widths) > avail && avail >= cols*4 {
		i := widest(widths)
		widths[i]--
	}
	for ri, row := range rows {
		wrapped := make([][]styledLine, cols)
		height := 1
		for i := range cols {
			var c []span
			if i < len(row) {
				c = row[i]
			}
			wrapped[i] = r.wrapSpans(c, widths[i])
			height = max(height, len(wrapped[i]))
		}
		for h := range height {
			var b strings.Builder
			for i := range cols {
				if i > 0 {
					b.WriteString(r.dim.Sprint(sep))
				}
				cell := styledLine{}
				if h < len(wrapped[i]) {
					cell = wrapped[i][h]
				}
				text := cell.styled
				if ri == 0 {
					text = r.bold.Sprint(cell.plain)
				}
				b.WriteString(text + strings.Repeat(" ", max(0, widths[i]-width(cell.plain))))
			}
			p := rest
			if ri == 0 && h == 0 {
				p = first
			}
			r.out.WriteString(p + strings.TrimRight(b.String(), " ") + "\n")
		}
		if ri == 0 {
			parts := make([]string, cols)
			for i, w := range widths {
				parts[i] = strings.Repeat(rule, w)
			}
			r.out.WriteString(rest + r.dim.Sprint(strings.Join(parts, cross)) + "\n")
		}
	}
}

func sum(xs []int) int {
	s := 0
	for _, x := range xs {
		s += x
	}
	return s
}

func widest(xs []int) int {
	at := 0
	for i, x := range xs {
		if x > xs[at] {
			at = i
		}
	}
	return at
}

// inline collects the inline content of n as styled spans.
func (r *mdRenderer) inline(n ast.Node) []span {
	var out []span
	var walk func(n ast.Node, style mdStyle)
	walk = func(n ast.Node, style mdStyle) {
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			switch c := c.(type) {
			case *ast.Text:
				out = append(out, span{string(c.Segment.Value(r.src)), style})
				switch {
				case c.HardLineBreak():
					out = append(out, span{"\n", style})
				case c.SoftLineBreak():
					out = append(out, span{" ", style})
				}
			case *ast.String:
				out = append(out, span{string(c.Value), style})
			case *ast.CodeSpan:
				var b strings.Builder
				for t := c.FirstChild(); t != nil; t = t.NextSibling() {
					if tx, ok := t.(*ast.Text); ok {
						b.Write(tx.Segment.Value(r.src))
					}
				}
				out = append(out, span{b.String(), style | mdCode})
			case *ast.Emphasis:
				s := mdItalic
				if c.Level >= 2 {
					s = mdBold
				}
				walk(c, style|s)
			case *ast.Link:
				before := len(out)
				walk(c, style|mdLink)
				label := plainText(out[before:])
				if dest := string(c.Destination); dest != "" && dest != label {
					out = append(out, span{" (" + dest + ")", style})
				}
			case *ast.AutoLink:
				out = append(out, span{string(c.URL(r.src)), style | mdLink})
			case *ast.Image:
				walk(c, style)
			case *ast.RawHTML:
				for i := 0; i < c.Segments.Len(); i++ {
					seg := c.Segments.At(i)
					out = append(out, span{string(seg.Value(r.src)), style})
				}
			default:
				walk(c, style)
			}
		}
	}
	walk(n, mdPlain)
	return out
}

func plainText(spans []span) string {
	var b strings.Builder
	for _, s := range spans {
		b.WriteString(s.text)
	}
	return b.String()
}

// styledLine is one wrapped line: as shown, and its plain text (to measure).
type styledLine struct{ styled, plain string }

// wrapSpans wraps styled text at width columns, breaking at spaces (inside
// a word only when it must), keeping each piece's style.
func (r *mdRenderer) wrapSpans(spans []span, width int) []styledLine {
	width = max(width, 4)
	type word struct {
		pieces []span
		w      int
	}
	var lines []styledLine
	var cur []span
	curW := 0
	flush := func() {
		var s, p strings.Builder
		for _, sp := range cur {
			s.WriteString(r.style(sp))
			p.WriteString(sp.text)
		}
		lines = append(lines, styledLine{s.String(), p.String()})
		cur, curW = nil, 0
	}
	// Split into words (runs without spaces), each possibly several styles.
	var words []word
	var w word
	endWord := func() {
		if len(w.pieces) > 0 {
			words = append(words, w)
		}
		w = word{}
	}
	for _, sp := range spans {
		t := strings.ReplaceAll(sp.text, "\n", "\x00")
		for len(t) > 0 {
			switch {
			case t[0] == ' ':
				endWord()
				t = t[1:]
			case t[0] == 0:
				endWord()
				words = append(words, word{}) // a hard break
				t = t[1:]
			default:
				i := strings.IndexAny(t, " \x00")
				if i < 0 {
					i = len(t)
				}
				piece := sanitize(t[:i])
				w.pieces = append(w.pieces, span{piece, sp.style})
				w.w += uniseg.StringWidth(piece)
				t = t[i:]
			}
		}
	}
	endWord()
	for _, wd := range words {
		if len(wd.pieces) == 0 { // hard break
			flush()
			continue
		}
		if curW > 0 && curW+1+wd.w > width {
			flush()
		}
		if curW > 0 {
			cur = append(cur, span{" ", mdPlain})
			curW++
		}
		if wd.w <= width-curW {
			cur = append(cur, wd.pieces...)
			curW += wd.w
			continue
		}
		// A word longer than the line: cut it.
		for _, p := range wd.pieces {
			for _, chunk := range wrap(p.text, width) {
				if curW > 0 && curW+uniseg.StringWidth(chunk) > width {
					flush()
				}
				cur = append(cur, span{chunk, p.style})
				curW += uniseg.StringWidth(chunk)
			}
		}
	}
	if len(cur) > 0 || len(lines) == 0 {
		flush()
	}
	return lines
}

func (r *mdRenderer) style(s span) string {
	t := s.text
	switch {
	case s.style&mdCode != 0:
		t = r.code.Sprint(t)
	case s.style&mdBold != 0:
		t = r.bold.Sprint(t)
	case s.style&mdItalic != 0:
		t = r.italic.Sprint(t)
	case s.style&mdLink != 0:
		t = r.link.Sprint(t)
	}
	return t
}

func width(s string) int { return uniseg.StringWidth(escapes.ReplaceAllString(s, "")) }
