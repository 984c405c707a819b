package tools

import (
	"path/filepath"
	"strings"
	"testing"
)

func fr(path, find, replace string) string {
	return "\"" + path + "\"\n```find\n" + find + "```\n```replace\n" + replace + "```\n"
}

func TestFindAndReplace(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		content string
		input   string
		want    string // file content afterwards
		ok      bool
		output  string
	}{
		{
			name:    "exact",
			content: "a\nb\nc\n",
			input:   fr("f.txt", "b\n", "B1\nB2\n"),
			want:    "a\nB1\nB2\nc\n",
			ok:      true,
			output:  "Edited f.txt: replaced line 2 with 2 lines, now 2-3; the file has 4 lines.",
		},
		{
			name:    "exact within a line, final newline of the block not part of it",
			content: "x := 1 // one\ny := 2\n",
			input:   fr("f.go", "1 // one\n", "10\n"),
			want:    "x := 10\ny := 2\n",
			ok:      true,
			output:  "Edited f.go: replaced line 1 with 1 line, now 1; the file has 2 lines.",
		},
		{
			name:    "blocks in either order by info string",
			content: "old\n",
			input:   "f.txt\n```replace\nnew\n```\n```find\nold\n```\n",
			want:    "new\n",
			ok:      true,
		},
		{
			name:    "unlabelled blocks: find then replace",
			content: "old\n",
			input:   "f.txt\n```\nold\n```\n```python\nnew\n```\n",
			want:    "new\n",
			ok:      true,
		},
		{
			name:    "delete",
			content: "keep\ndrop\nkeep\n",
			input:   fr("f.txt", "drop\n", ""),
			want:    "keep\n\nkeep\n",
			ok:      true,
			output:  "Edited f.txt: replaced line 2 with nothing; the file has 3 lines.",
		},
		{
			name:    "trailing whitespace ignored",
			content: "func a() {   \n\treturn\n}\n",
			input:   fr("f.go", "func a() {\n\treturn\n}\n", "func a() {\n\treturn nil\n}\n"),
			want:    "func a() {\n\treturn nil\n}\n",
			ok:      true,
			output:  "Edited f.go: replaced lines 1-3 with 3 lines, now 1-3; the file has 3 lines. Note: matched ignoring trailing whitespace.",
		},
		{
			name:    "file indented deeper: replacement re-indented",
			content: "class A:\n    def f(self):\n        return 1\n\n    def g(self):\n        pass\n",
			input:   fr("a.py", "def f(self):\n    return 1\n", "def f(self):\n    x = 1\n\n    return x\n"),
			want:    "class A:\n    def f(self):\n        x = 1\n\n        return x\n\n    def g(self):\n        pass\n",
			ok:      true,
			output:  "Edited a.py: replaced lines 2-3 with 4 lines, now 2-5; the file has 8 lines. Note: matched ignoring whitespace; the replacement's indentation was adjusted by +4 spaces to fit.",
		},
		{
			name:    "find indented deeper than the file",
			content: "if x {\n\ty()\n}\n",
			input:   fr("f.go", "\t\tif x {\n\t\t\ty()\n\t\t}\n", "\t\tif x {\n\t\t\tz()\n\t\t}\n"),
			want:    "if x {\n\tz()\n}\n",
			ok:      true,
			output:  "Edited f.go: replaced lines 1-3 with 3 lines, now 1-3; the file has 3 lines. Note: matched ignoring whitespace; the replacement's indentation was adjusted by -2 tabs to fit.",
		},
		{
			name:    "CRLF file edited with LF blocks keeps CRLF",
			content: "one\r\ntwo\r\nthree\r\n",
			input:   fr("f.txt", "two\nthree\n", "2\n3\n"),
			want:    "one\r\n2\r\n3\r\n",
			ok:      true,
		},
		{
			name:    "zero matches quote the closest lines",
			content: "package a\n\nfunc Sum(a, b int) int {\n\treturn a + b\n}\n\nfunc Other() {}\n",
			input:   fr("a.go", "func Sum(a, b int) int {\n\treturn a - b\n}\n", "x\n"),
			want:    "package a\n\nfunc Sum(a, b int) int {\n\treturn a + b\n}\n\nfunc Other() {}\n",
			output: "Error: the find text does not occur in a.go, not even ignoring trailing whitespace and indentation. The most similar lines of the file are 3-5:\n" +
				"3| func Sum(a, b int) int {\n4| \treturn a + b\n5| }\n" +
				"Copy the text exactly as the file has it into the find block (without the line numbers), or read it again with READ_FILE \"a.go\" 3-5.",
		},
		{
			name:    "zero matches, closest by similar characters",
			content: "alpha\nbeta\nconst timeout = 30\ngamma\n",
			input:   fr("c.txt", "const timeOut = 60\n", "x\n"),
			want:    "alpha\nbeta\nconst timeout = 30\ngamma\n",
			output: "Error: the find text does not occur in c.txt, not even ignoring trailing whitespace and indentation. The most similar lines of the file are 3:\n" +
				"3| const timeout = 30\n" +
				"Copy the text exactly as the file has it into the find block (without the line numbers), or read it again with READ_FILE \"c.txt\" 3-3.",
		},
		{
			name:    "zero matches, nothing similar",
			content: "aaaa\n",
			input:   fr("c.txt", "zzzz qqqq\n", "x\n"),
			want:    "aaaa\n",
			output:  "Error: the find text does not occur in c.txt, not even ignoring trailing whitespace and indentation. No lines of the file resemble it. Read the file (READ_FILE \"c.txt\") and copy the text to change exactly into the find block.",
		},
		{
			name:    "several matches with line numbers",
			content: "x = 1\ny\nx = 1\nz\nx = 1\n",
			input:   fr("m.py", "x = 1\n", "x = 2\n"),
			want:    "x = 1\ny\nx = 1\nz\nx = 1\n",
			output:  "Error: the find text occurs 3 times in m.py, starting at lines 1, 3, 5; it must occur exactly once. Add neighbouring lines to the find block so that it matches one place only.",
		},
		{
			name:    "several loose matches",
			content: "  a\nb\n    a\n",
			input:   fr("m.txt", "a \n", "c\n"),
			want:    "  a\nb\n    a\n",
			output:  "Error: the find text occurs 2 times in m.txt (ignoring whitespace differences), starting at lines 1, 3; it must occur exactly once. Add neighbouring lines to the find block so that it matches one place only.",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path, _ := splitFirstLine(tt.input)
			path = unquote(path)
			env := newEnv(t, map[string]string{path: tt.content})
			r := runTool(t, FindAndReplaceTool{}, env, tt.input)
			if r.OK != tt.ok {
				t.Errorf("OK = %v: %s", r.OK, r.Output)
			}
			if tt.output != "" && r.Output != tt.output {
				t.Errorf("Output =\n%s\nwant\n%s", r.Output, tt.output)
			}
			if got := readFile(t, filepath.Join(env.Dir, path)); got != tt.want {
				t.Errorf("file = %q, want %q", got, tt.want)
			}
			if tt.ok && (len(r.Files) != 1 || r.Files[0] != path) {
				t.Errorf("Files = %v", r.Files)
			}
			if !tt.ok && r.Files != nil {
				t.Errorf("Files = %v on failure", r.Files)
			}
		})
	}
}

func TestFindAndReplaceCheck(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, input, want string }{
		{"no path", "```find\na\n```\n```replace\nb\n```", "FIND_AND_REPLACE_IN_FILE needs the file's path on the first line"},
		{"one block", "f.txt\n```find\na\n```\n", "FIND_AND_REPLACE_IN_FILE for f.txt needs two fenced code blocks after the path, a ```find block (the exact current text) and a ```replace block (the new text); found 1."},
		{"empty find", fr("f.txt", "", "b\n"), "FIND_AND_REPLACE_IN_FILE for f.txt: the find block is empty."},
	}
	for _, tt := range tests {
		_, err := FindAndReplaceTool{}.Check(tt.input)
		if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("%s: Check = %v, want prefix %q", tt.name, err, tt.want)
		}
	}
}

// Identical blocks are well formed (a reply the server's grammar shaped
// may hold them): the tool fails, changing nothing.
func TestFindAndReplaceIdenticalBlocks(t *testing.T) {
	t.Parallel()
	env := newEnv(t, map[string]string{"f.txt": "a\n"})
	if _, err := (FindAndReplaceTool{}).Check(fr("f.txt", "a\n", "a\n")); err != nil {
		t.Errorf("Check: %v, want none: the input's shape is right", err)
	}
	r := runTool(t, FindAndReplaceTool{}, env, fr("f.txt", "a\n", "a\n"))
	if r.OK || r.Output != "Error: the find and replace blocks for f.txt are identical, so nothing would change. Put the new text in the replace block." {
		t.Errorf("result %+v", r)
	}
	if got := readFile(t, filepath.Join(env.Dir, "f.txt")); got != "a\n" {
		t.Errorf("file = %q", got)
	}
}

func TestFindAndReplaceMissingFile(t *testing.T) {
	t.Parallel()
	env := newEnv(t, map[string]string{"src/main.go": "x\n"})
	r := runTool(t, FindAndReplaceTool{}, env, fr("src/mian.go", "x\n", "y\n"))
	want := "Error: src/mian.go does not exist (paths are relative to " + env.Dir + "). Did you mean: src/main.go?"
	if r.OK || r.Output != want {
		t.Errorf("Output = %q, want %q", r.Output, want)
	}
}
