package web

import (
	"bytes"
	"html"
	"html/template"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/util"

	"github.com/devagent/dev/ui"
)

// answerHTML renders an answer's markdown (a DONE summary) as HTML for the
// page: headings, emphasis, lists, code, quotes, links and the GFM pipe
// tables the terminal renders too. The model wrote it, so nothing in it
// may reach the page as markup: goldmark's renderer leaves raw HTML out
// (html.WithUnsafe is off; here it is shown as escaped text instead of
// dropped, so nothing the model wrote goes missing) and links whose URL
// could run script; all other text is escaped. The page's CSP forbids
// inline script and outside images besides.
func answerHTML(src string) template.HTML {
	md := newMarkdown()
	var b strings.Builder
	for _, part := range ui.MarkdownParts(src) {
		if part.Table != nil {
			table(md, &b, part.Table)
			continue
		}
		b.WriteString(convert(md, part.Text))
	}
	return template.HTML(b.String())
}

// newMarkdown is goldmark's core parser and HTML renderer, raw HTML
// escaped. Its table extension is not used: its package compiles patterns
// at every start of dev (see ui.Markdown).
func newMarkdown() goldmark.Markdown {
	return goldmark.New(goldmark.WithRendererOptions(renderer.WithNodeRenderers(util.Prioritized(escapedHTML{}, 100))))
}

// convert renders markdown as HTML.
func convert(md goldmark.Markdown, src string) string {
	var buf bytes.Buffer
	if err := md.Convert([]byte(src), &buf); err != nil {
		// goldmark's renderer fails only when the writer does.
		return "<pre>" + html.EscapeString(src) + "</pre>"
	}
	return buf.String()
}

// table writes a pipe table, each cell's inline markdown rendered.
func table(md goldmark.Markdown, b *strings.Builder, rows [][]string) {
	b.WriteString("<div class=\"scroll\"><table>\n<thead><tr>")
	for _, c := range rows[0] {
		b.WriteString("<th>" + inline(md, c) + "</th>")
	}
	b.WriteString("</tr></thead>\n<tbody>\n")
	for _, row := range rows[1:] {
		b.WriteString("<tr>")
		for _, c := range row {
			b.WriteString("<td>" + inline(md, c) + "</td>")
		}
		b.WriteString("</tr>\n")
	}
	b.WriteString("</tbody></table></div>\n")
}

// inline renders a table cell: one paragraph's content.
func inline(md goldmark.Markdown, cell string) string {
	s := strings.TrimSpace(convert(md, cell))
	s = strings.TrimPrefix(s, "<p>")
	return strings.TrimSuffix(s, "</p>")
}

// escapedHTML renders raw HTML in markdown as the text it is.
type escapedHTML struct{}

func (escapedHTML) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(ast.KindHTMLBlock, renderHTMLBlock)
	reg.Register(ast.KindRawHTML, renderRawHTML)
}

func renderHTMLBlock(w util.BufWriter, source []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	n := node.(*ast.HTMLBlock)
	if entering {
		_, _ = w.WriteString("<p>")
		for i := range n.Lines().Len() {
			line := n.Lines().At(i)
			_, _ = w.WriteString(html.EscapeString(string(line.Value(source))))
		}
		return ast.WalkContinue, nil
	}
	if n.HasClosure() {
		_, _ = w.WriteString(html.EscapeString(string(n.ClosureLine.Value(source))))
	}
	_, _ = w.WriteString("</p>\n")
	return ast.WalkContinue, nil
}

func renderRawHTML(w util.BufWriter, source []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	if entering {
		n := node.(*ast.RawHTML)
		for i := range n.Segments.Len() {
			seg := n.Segments.At(i)
			_, _ = w.WriteString(html.EscapeString(string(seg.Value(source))))
		}
	}
	return ast.WalkSkipChildren, nil
}
