package parser

import (
	"reflect"
	"testing"
)

func TestCodeBlocks(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		input string
		want  []CodeBlock
	}{
		{"none", "\"a.txt\"\nno fence here\n", nil},
		{"simple", "\"a.go\"\n\n```go\npackage a\n```\n", []CodeBlock{{"go", "package a\n"}}},
		{"empty block", "\"a\"\n```\n```\n", []CodeBlock{{"", ""}}},
		{"blank line content", "```\n\n```", []CodeBlock{{"", "\n"}}},
		{"find and replace", "\"a\"\n```find\nx := 1\n```\n\n```replace\nx := 2\n```\n",
			[]CodeBlock{{"find", "x := 1\n"}, {"replace", "x := 2\n"}}},
		{"sloppy nesting same length",
			"\"README.md\"\n```markdown\n# T\n```bash\nnpm i\n```\nmore\n```\n",
			[]CodeBlock{{"markdown", "# T\n```bash\nnpm i\n```\nmore\n"}}},
		{"four backtick outer",
			"````markdown\n# T\n```\nplain\n```\n````\n",
			[]CodeBlock{{"markdown", "# T\n```\nplain\n```\n"}}},
		{"tilde outer holds backticks", "~~~\n```\n~~~\n", []CodeBlock{{"", "```\n"}}},
		{"unclosed runs to end", "```sh\necho hi\nls", []CodeBlock{{"sh", "echo hi\nls\n"}}},
		{"unclosed nested runs to end", "```md\n```go\nx\n", []CodeBlock{{"md", "```go\nx\n"}}},
		{"crlf", "```go\r\na\r\n```\r\n", []CodeBlock{{"go", "a\n"}}},
		{"indented four spaces is not a fence", "    ```\nx\n", nil},
		{"closing may be longer", "```\nx\n`````\n", []CodeBlock{{"", "x\n"}}},
		{"shorter bare fence is content", "````\n```\n````\n", []CodeBlock{{"", "```\n"}}},
		{"nested twice", "```md\n```go\n```sh\nx\n```\n```\ny\n```\n",
			[]CodeBlock{{"md", "```go\n```sh\nx\n```\n```\ny\n"}}},
		{"tilde nested same length", "~~~md\n~~~sh\nx\n~~~\n~~~\n", []CodeBlock{{"md", "~~~sh\nx\n~~~\n"}}},
		{"longer inner fence with info is content", "```md\n````go\n````\n", []CodeBlock{{"md", "````go\n"}}},
		{"info string with spaces", "``` go title=\"a\" \nx\n```", []CodeBlock{{"go title=\"a\"", "x\n"}}},
		{"backtick info with backtick is not a fence", "``` a`b\nx\n", nil},
		{"three space indent is a fence", "   ```\nx\n   ```\n", []CodeBlock{{"", "x\n"}}},
		{"text around blocks", "a\n```\n1\n```\nb\n~~~\n2\n~~~\nc", []CodeBlock{{"", "1\n"}, {"", "2\n"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := CodeBlocks(tt.input)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("CodeBlocks(%q)\n got  %q\n want %q", tt.input, got, tt.want)
			}
		})
	}
}
