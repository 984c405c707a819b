package tools

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/devagent/dev/textfmt"
)

func TestTarget(t *testing.T) {
	dir := filepath.FromSlash("/work/p")
	abs := func(rel string) string { return filepath.Join(dir, filepath.FromSlash(rel)) }
	cases := []struct {
		tool, input string
		path        string
		line        int
		ok          bool
	}{
		{ReadFile, `"a.go" 40-80`, abs("a.go"), 40, true},
		{ReadFile, "src/b.go", abs("src/b.go"), 0, true},
		{ReadFile, "", "", 0, false},
		{WriteFile, "out/c.txt\n```\nhello\n```", abs("out/c.txt"), 0, true},
		{WriteFile, "c.txt", "", 0, false}, // no block: the tool would refuse
		{FindAndReplace, "d.go\n```find\nx\n```\n```replace\ny\n```", abs("d.go"), 0, true},
		{ListDirectory, "", abs("."), 0, true},
		{ListDirectory, "src/**/*.go", abs("src"), 0, true},
		{ListDirectory, "*.md", abs("."), 0, true},
		{Command, "ls", "", 0, false},
		{Done, "ok", "", 0, false},
	}
	for _, c := range cases {
		path, line, ok := Target(dir, c.tool, c.input)
		if path != c.path || line != c.line || ok != c.ok {
			t.Errorf("Target(%s, %q) = %q, %d, %v; want %q, %d, %v", c.tool, c.input, path, line, ok, c.path, c.line, c.ok)
		}
	}
}

func TestTextOf(t *testing.T) {
	var long strings.Builder
	for i := 1; i <= MaxReadLines+5; i++ {
		fmt.Fprintf(&long, "line %d\n", i)
	}
	f := TextOf(long.String(), "buf.go")
	if f.Binary || f.Lines != MaxReadLines+5 || !strings.Contains(f.Text, "line 1000\n") || strings.Contains(f.Text, "line 1001") ||
		!strings.Contains(f.Text, `"buf.go" 1001-1005`) {
		t.Errorf("a long buffer is not capped as READ_FILE caps a file: %d lines, %q", f.Lines, textfmt.Excerpt(f.Text, 200))
	}
	if f := TextOf("a\x00b", "x.bin"); !f.Binary || f.Text != "" || f.Size != 3 {
		t.Errorf("binary content: %+v", f)
	}
}
