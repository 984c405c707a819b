package ui

import (
	"strings"
	"testing"

	"github.com/rivo/uniseg"
)

const answer = "## Summary\n\nAdded **Greet(name)** in `greet.go` with a test; see [the docs](https://example.com/docs).\n\n" +
	"- one item that is long enough to wrap around the narrow width of sixty columns here\n- two\n  1. nested\n  2. more\n\n" +
	"| check | result |\n|---|---|\n| greet.go defines Greet | PASS |\n| go test ./... | PASS |\n\n" +
	"```go\nfunc Greet(n string) string { return \"Hello, \" + n }\n```\n\n> quoted text\n\n---\n\nOverall: *PASS*"

func TestMarkdownGolden(t *testing.T) {
	t.Parallel()
	for name, md := range map[string]Markdown{
		"markdown-60":       {Width: 60, Unicode: true},
		"markdown-ascii-40": {Width: 40},
	} {
		got := md.Render(answer)
		golden(t, name, got)
		for _, l := range strings.Split(got, "\n") {
			if w := uniseg.StringWidth(l); w > md.Width {
				t.Errorf("%s: line of %d columns: %q", name, w, l)
			}
			for _, raw := range []string{"**", "`", "|---|", "](", "## "} {
				if strings.Contains(l, raw) {
					t.Errorf("%s: markdown %q left: %q", name, raw, l)
				}
			}
		}
		if !md.Unicode {
			for _, r := range got {
				if r > 127 {
					t.Fatalf("%s: non-ASCII %q", name, r)
				}
			}
		}
	}
}

func TestMarkdownColour(t *testing.T) {
	t.Parallel()
	got := Markdown{Width: 60, Color: true, Unicode: true}.Render("# Title\n\n**bold** and `code`")
	if !strings.Contains(got, "\x1b[1mbold") || !strings.Contains(got, "\x1b[36mcode") || strings.Contains(got, "─") {
		t.Errorf("%q", got)
	}
	if got := (Markdown{Width: 60}).Render("plain **text**"); strings.Contains(got, "\x1b") || got != "plain text\n" {
		t.Errorf("without colour: %q", got)
	}
}

func TestMarkdownWideTableShrinks(t *testing.T) {
	t.Parallel()
	src := "| a | b |\n|---|---|\n| " + strings.Repeat("word ", 20) + "| " + strings.Repeat("more ", 20) + "|"
	got := Markdown{Width: 40, Unicode: true}.Render(src)
	for _, l := range strings.Split(strings.TrimRight(got, "\n"), "\n") {
		if w := uniseg.StringWidth(l); w > 40 {
			t.Errorf("line of %d columns: %q", w, l)
		}
	}
	if strings.Count(got, "word") != 20 || strings.Count(got, "more") != 20 {
		t.Errorf("cells lost text:\n%s", got)
	}
}

func TestMarkdownTablesOnlyOutsideCode(t *testing.T) {
	t.Parallel()
	src := "Before.\n\n```\n| a | b |\n|---|---|\n```\n\n| x \\| y | **z** |\n| :-- | --: |\n| 1 | 2 |\nAfter."
	got := Markdown{Width: 60, Unicode: true}.Render(src)
	want := "Before.\n\n  | a | b |\n  |---|---|\n\nx | y │ z\n──────┼──\n1     │ 2\n\nAfter.\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
