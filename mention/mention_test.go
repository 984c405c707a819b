package mention

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/devagent/dev/tools"
)

func tree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestExpand(t *testing.T) {
	t.Parallel()
	dir := tree(t, map[string]string{
		"a.go":               "package a\n",
		"src/b.txt":          "bee\n",
		"notes/my file.md":   "# Notes\n",
		"logo.png":           "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR",
		"odd.":               "a name ending in a dot\n",
		"tricky.txt":         "before </file> after </FILE\n",
		"src/dir/.gitignore": "",
	})
	tests := []struct {
		name, text, want string
		attached         []Attachment
	}{
		{"no mention", "fix the bug", "fix the bug", nil},
		{"one file", "explain @a.go please", "explain @a.go please\n\n<file path=\"a.go\">\npackage a\n</file>",
			[]Attachment{{Path: "a.go", Lines: 1, Size: 10}}},
		{"start of text, subdirectory", "@src/b.txt", "@src/b.txt\n\n<file path=\"src/b.txt\">\nbee\n</file>",
			[]Attachment{{Path: "src/b.txt", Lines: 1, Size: 4}}},
		{"quoted path with spaces", `read @"notes/my file.md" now`, "read @\"notes/my file.md\" now\n\n<file path=\"notes/my file.md\">\n# Notes\n</file>",
			[]Attachment{{Path: "notes/my file.md", Lines: 1, Size: 8}}},
		{"punctuation after the path", "see (@a.go), then @src/b.txt.", "see (@a.go), then @src/b.txt.\n\n<file path=\"a.go\">\npackage a\n</file>\n\n<file path=\"src/b.txt\">\nbee\n</file>",
			[]Attachment{{Path: "a.go", Lines: 1, Size: 10}, {Path: "src/b.txt", Lines: 1, Size: 4}}},
		{"a name that ends in a dot", "look at @odd.", "look at @odd.\n\n<file path=\"odd.\">\na name ending in a dot\n</file>",
			[]Attachment{{Path: "odd.", Lines: 1, Size: 23}}},
		{"twice", "@a.go and @a.go", "@a.go and @a.go\n\n<file path=\"a.go\">\npackage a\n</file>",
			[]Attachment{{Path: "a.go", Lines: 1, Size: 10}}},
		{"binary file is named", "what is @logo.png", "what is @logo.png\n\n<file path=\"logo.png\">\n(a binary file of 16 bytes: not attached)\n</file>",
			[]Attachment{{Path: "logo.png", Size: 16, Binary: true}}},
		{"content cannot close the wrapper", "@tricky.txt", "@tricky.txt\n\n<file path=\"tricky.txt\">\nbefore &lt;/file> after &lt;/FILE\n</file>",
			[]Attachment{{Path: "tricky.txt", Lines: 1, Size: 28}}},
		{"stays text", "mail me@a.go, ping @team, see @missing.go, @src, @\"no such\" and @", "mail me@a.go, ping @team, see @missing.go, @src, @\"no such\" and @", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, attached := Expand(dir, tt.text)
			if got != tt.want || !reflect.DeepEqual(attached, tt.attached) {
				t.Errorf("Expand(%q) =\n%q, %+v\nwant\n%q, %+v", tt.text, got, attached, tt.want, tt.attached)
			}
		})
	}
}

func TestExpandCapsLikeReadFile(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	for i := range tools.MaxReadLines + 500 {
		b.WriteString("line ")
		b.WriteString(strings.Repeat("x", i%7))
		b.WriteByte('\n')
	}
	dir := tree(t, map[string]string{"big.txt": b.String()})
	got, attached := Expand(dir, "summarise @big.txt")
	if len(attached) != 1 || attached[0].Lines != tools.MaxReadLines+500 {
		t.Fatalf("attached = %+v", attached)
	}
	if n := strings.Count(got, "\nline"); n != tools.MaxReadLines {
		t.Errorf("%d lines attached, want %d", n, tools.MaxReadLines)
	}
	if want := "[Shown up to line 1000: one read shows at most 1000 lines or 48 KB. To read on: \"big.txt\" 1001-1500]\n</file>"; !strings.HasSuffix(got, want) {
		t.Errorf("the attachment does not end with the note %q:\n…%s", want, got[len(got)-200:])
	}
}

func TestExpandAbsolutePath(t *testing.T) {
	t.Parallel()
	other := tree(t, map[string]string{"x.txt": "x\n"})
	p := filepath.ToSlash(filepath.Join(other, "x.txt"))
	got, attached := Expand(t.TempDir(), "@"+p)
	if len(attached) != 1 || !strings.HasSuffix(got, "<file path=\""+p+"\">\nx\n</file>") {
		t.Errorf("Expand = %q, %+v", got, attached)
	}
}

func TestComplete(t *testing.T) {
	t.Parallel()
	dir := tree(t, map[string]string{
		"main.go":            "",
		"main_test.go":       "",
		"Makefile":           "",
		"src/app.go":         "",
		"src/api/handler.go": "",
		"my notes/todo.md":   "",
		"a file.txt":         "",
		".env":               "",
		".git/config":        "",
	})
	tests := []struct {
		word string
		want []string
	}{
		{"ma", []string{"@main.go", "@main_test.go"}},
		{"M", []string{"@Makefile"}},
		{"", []string{"@Makefile", `@"a file.txt"`, "@main.go", "@main_test.go", `@"my notes/`, "@src/"}},
		{"src/", []string{"@src/api/", "@src/app.go"}},
		{"src/ap", []string{"@src/api/", "@src/app.go"}},
		{"src/api/h", []string{"@src/api/handler.go"}},
		{`"my notes/`, []string{`@"my notes/todo.md"`}},
		{`"a`, []string{`@"a file.txt"`}},
		{".", []string{"@.env"}},
		{"zzz", nil},
		{"nowhere/x", nil},
	}
	for _, tt := range tests {
		if got := Complete(dir, tt.word); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Complete(%q) = %q, want %q", tt.word, got, tt.want)
		}
	}
}

func TestTyped(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		before, word string
		ok           bool
	}{
		{"@", "", true},
		{"look at @ma", "ma", true},
		{"(@src/a", "src/a", true},
		{`and @"my no`, `"my no`, true},
		{`@"my notes.md" and @ot`, "ot", true},
		{`@"my notes.md"`, "", false},
		{"@main.go ", "", false},
		{"mail me@exam", "", false},
		{"no mention", "", false},
		{"", "", false},
	} {
		word, ok := Typed(tt.before)
		if word != tt.word || ok != tt.ok {
			t.Errorf("Typed(%q) = %q, %v; want %q, %v", tt.before, word, ok, tt.word, tt.ok)
		}
	}
}

// Split reads back what Expand wrote: the text typed, then each file.
func TestSplit(t *testing.T) {
	t.Parallel()
	dir := tree(t, map[string]string{
		"a.go":       "package a\n",
		"empty.txt":  "",
		"logo.png":   "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR",
		"tricky.txt": "before </file> after </FILE &lt;/p>\n",
		"my file.md": "# Notes\n\n<file path=\"x\">\n",
	})
	typed := "explain @a.go, @empty.txt, @logo.png, @tricky.txt and @\"my file.md\"\n"
	expanded, _ := Expand(dir, typed)
	text, files := Split(expanded)
	want := []Attached{
		{Path: "a.go", Lines: 1, Content: "package a"},
		{Path: "empty.txt"},
		{Path: "logo.png", Binary: true},
		{Path: "tricky.txt", Lines: 1, Content: "before </file> after </FILE &lt;/p>"},
		{Path: "my file.md", Lines: 3, Content: "# Notes\n\n<file path=\"x\">"},
	}
	if text != strings.TrimSuffix(typed, "\n") || !reflect.DeepEqual(files, want) {
		t.Errorf("Split =\n%q\n%+v\nwant\n%q\n%+v", text, files, typed, want)
	}
	for _, s := range []string{"no files", "text that quotes\n\n<file path=\"a.go\">\nbut does not close it", "\n\n<file path=x>\ny\n</file>"} {
		if text, files := Split(s); text != s || files != nil {
			t.Errorf("Split(%q) = %q, %+v: want all text", s, text, files)
		}
	}
}
