package tools

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

func numbered(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.String()
}

func TestReadFile(t *testing.T) {
	t.Parallel()
	env := newEnv(t, map[string]string{
		"a.txt":     "one\ntwo\nthree\nfour\nfive\n",
		"nonl.txt":  "x\ny",
		"crlf.txt":  "a\r\nb\r\n",
		"empty.txt": "",
		"big.txt":   numbered(2500),
		"latin.txt": "caf\xe9 au lait\nna\xefve\n",
		"v 1-2":     "named like a range\n",
		"dir/x":     "",
	})
	tests := []struct {
		input string
		ok    bool
		want  string
	}{
		{`"a.txt"`, true, "a.txt (5 lines)\none\ntwo\nthree\nfour\nfive"},
		{"a.txt", true, "a.txt (5 lines)\none\ntwo\nthree\nfour\nfive"},
		{`"a.txt" 2-3`, true, "a.txt (lines 2-3 of 5)\ntwo\nthree"},
		{"a.txt:2-3", true, "a.txt (lines 2-3 of 5)\ntwo\nthree"},
		{"a.txt 2-3", true, "a.txt (lines 2-3 of 5)\ntwo\nthree"},
		{"'a.txt' 4 - 9", true, "a.txt (lines 4-5 of 5)\nfour\nfive"},
		{"`a.txt`:1-5", true, "a.txt (5 lines)\none\ntwo\nthree\nfour\nfive"},
		{`"a.txt" 6-9`, false, "Error: a.txt has 5 lines; the range 6-9 starts past the end. Read \"a.txt\" 1-5 instead."},
		{"nonl.txt", true, "nonl.txt (2 lines)\nx\ny"},
		{"crlf.txt", true, "crlf.txt (2 lines, CRLF line endings)\na\nb"},
		{"empty.txt", true, "empty.txt (empty file, 0 lines)"},
		{"latin.txt", true, "latin.txt (2 lines)\ncaf\uFFFD au lait\nna\uFFFDve"},
		{"v 1-2", true, "v 1-2 (1 line)\nnamed like a range"},
		{"dir", false, "Error: dir is a directory, not a file. Use LIST_DIRECTORY to see what it holds."},
		{`"big.txt" 2490-2600`, true, "big.txt (lines 2490-2500 of 2500)\n" + strings.TrimSuffix(strings.Join(strings.SplitAfter(numbered(2500), "\n")[2489:], ""), "\n")},
	}
	for _, tt := range tests {
		r := runTool(t, ReadFileTool{}, env, tt.input)
		if r.OK != tt.ok || r.Output != tt.want {
			t.Errorf("%s: OK=%v Output=\n%q\nwant %v\n%q", tt.input, r.OK, r.Output, tt.ok, tt.want)
		}
	}
}

func TestReadFileCaps(t *testing.T) {
	t.Parallel()
	env := newEnv(t, map[string]string{
		"big.txt":  numbered(2500),
		"wide.txt": strings.Repeat(strings.Repeat("w", 1023)+"\n", 100),
		"long.txt": strings.Repeat("é", 30<<10) + "\nnext\n",
	})
	r := runTool(t, ReadFileTool{}, env, "big.txt")
	lines := strings.Split(r.Output, "\n")
	if lines[0] != "big.txt (lines 1-1000 of 2500)" || lines[1000] != "line 1000" || len(lines) != 1002 {
		t.Errorf("header %q, line 1000 %q, %d lines", lines[0], lines[1000], len(lines))
	}
	if want := `[Shown up to line 1000: one read shows at most 1000 lines or 48 KB. To read on: "big.txt" 1001-2000]`; lines[1001] != want {
		t.Errorf("note = %q, want %q", lines[1001], want)
	}
	r = runTool(t, ReadFileTool{}, env, `"big.txt" 1001-1200`)
	if !strings.HasPrefix(r.Output, "big.txt (lines 1001-1200 of 2500)\nline 1001\n") || !strings.HasSuffix(r.Output, "\nline 1200") {
		t.Errorf("range read: %.80q … %q", r.Output, r.Output[len(r.Output)-20:])
	}

	r = runTool(t, ReadFileTool{}, env, "wide.txt")
	lines = strings.Split(r.Output, "\n")
	// 48 KB hold 48 lines of 1 KB (with their newlines).
	if lines[0] != "wide.txt (lines 1-48 of 100)" || len(lines) != 50 {
		t.Errorf("header %q, %d lines", lines[0], len(lines))
	}
	if want := `[Shown up to line 48: one read shows at most 1000 lines or 48 KB. To read on: "wide.txt" 49-100]`; lines[49] != want {
		t.Errorf("note = %q", lines[49])
	}

	r = runTool(t, ReadFileTool{}, env, "long.txt")
	head, rest, _ := strings.Cut(r.Output, "\n")
	body, note, _ := strings.Cut(rest, "\n")
	if head != "long.txt (lines 1-1 of 2)" || body != strings.Repeat("é", 24<<10) {
		t.Errorf("header %q, body %d bytes", head, len(body))
	}
	if want := "[Line 1 is longer than 48 KB; only its start is shown.]\n[Shown up to line 1: one read shows at most 1000 lines or 48 KB. To read on: \"long.txt\" 2-2]"; note != want {
		t.Errorf("notes = %q", note)
	}
}

func TestReadFileBinary(t *testing.T) {
	t.Parallel()
	invalid := strings.Repeat("\xff\xfe\xc3", 400) // no NUL, not UTF-8
	env := newEnv(t, map[string]string{"img.png": "\x89PNG\r\n\x1a\n\x00\x00" + strings.Repeat("x", 1014), "blob": invalid})
	for input, want := range map[string]string{
		"img.png": "Error: img.png is a binary file (1.0 KB); READ_FILE shows text only. Inspect it with COMMAND instead (e.g. `file`, `xxd | head`).",
		"blob":    "Error: blob is a binary file (1.2 KB); READ_FILE shows text only. Inspect it with COMMAND instead (e.g. `file`, `xxd | head`).",
	} {
		r := runTool(t, ReadFileTool{}, env, input)
		if r.OK || r.Output != want {
			t.Errorf("%s: %q, want %q", input, r.Output, want)
		}
	}
}

func TestReadFileMissingSuggests(t *testing.T) {
	t.Parallel()
	env := newEnv(t, map[string]string{
		"src/handler.go":          "",
		"src/handler_test.go":     "",
		"pkg/util/handler.go":     "",
		"node_modules/handler.go": "",
		"README.md":               "",
	})
	tests := []struct{ input, want string }{
		{"src/handlr.go", "Did you mean: src/handler.go?"},
		{"handler.go", "Did you mean: pkg/util/handler.go, src/handler.go?"},
		{"readme.md", "Did you mean: README.md?"},
		{"srcc/handler.go", "Did you mean: src/, pkg/util/handler.go, src/handler.go?"},
		{"zzz/qqq.txt", "Use LIST_DIRECTORY to see what exists."},
	}
	for _, tt := range tests {
		r := runTool(t, ReadFileTool{}, env, tt.input)
		prefix := "Error: " + tt.input + " does not exist (paths are relative to " + env.Dir + "). "
		if r.OK || r.Output != prefix+tt.want {
			t.Errorf("%s:\n%q\nwant\n%q", tt.input, r.Output, prefix+tt.want)
		}
	}
}

func TestReadFileCheck(t *testing.T) {
	t.Parallel()
	tests := []struct{ input, want string }{
		{"", "READ_FILE needs a path."},
		{`""`, "READ_FILE needs a path."},
		{`"a.go" lines`, `READ_FILE: cannot read the line range "lines".`},
	}
	for _, tt := range tests {
		_, err := ReadFileTool{}.Check(tt.input)
		if err == nil || !strings.HasPrefix(err.Error(), tt.want) || !strings.Contains(err.Error(), `"src/main.go" 1-120`) {
			t.Errorf("Check(%q) = %v, want %q and the example", tt.input, err, tt.want)
		}
	}
}

// A range that ends before it starts is well formed (a reply the server's
// grammar shaped may hold one): the tool fails, saying how to write it.
func TestReadFileBackwardsRange(t *testing.T) {
	t.Parallel()
	env := newEnv(t, map[string]string{"a.go": "package a\n"})
	if _, err := (ReadFileTool{}).Check(`"a.go" 80-40`); err != nil {
		t.Errorf("Check: %v, want none: the input's shape is right", err)
	}
	r := runTool(t, ReadFileTool{}, env, `"a.go" 80-40`)
	if r.OK || !strings.HasPrefix(r.Output, "Error: the line range 80-40 ends before it starts.") || !strings.Contains(r.Output, `"src/main.go" 1-120`) {
		t.Errorf("result %+v, want a failure explaining the range, with the example", r)
	}
}

func TestReadText(t *testing.T) {
	t.Parallel()
	env := newEnv(t, map[string]string{"a.txt": "one\r\ntwo\r\n", "b.bin": "\x00\x01\x02"})
	f, err := ReadText(filepath.Join(env.Dir, "a.txt"), "a.txt")
	if err != nil || f != (TextFile{Text: "one\ntwo", Lines: 2, Size: 10}) {
		t.Errorf("text: %+v, %v", f, err)
	}
	f, err = ReadText(filepath.Join(env.Dir, "b.bin"), "b.bin")
	if err != nil || f != (TextFile{Binary: true, Size: 3}) {
		t.Errorf("binary: %+v, %v", f, err)
	}
	if _, err := ReadText(filepath.Join(env.Dir, "none"), "none"); err == nil {
		t.Error("missing file: no error")
	}
}
