package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWriteFileContent(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, input, path, want, output string
	}{
		{"simple", "\"a.txt\"\n```\nhello\n```\n", "a.txt", "hello\n", "File created: a.txt (1 line, 6 bytes)."},
		{"empty block writes an empty file", "a.txt\n```\n```", "a.txt", "", "File created: a.txt (0 lines, 0 bytes)."},
		{"block closed without a final newline", "'a.go'\n```go\nx := 1\n```", "a.go", "x := 1\n", ""},
		{"unclosed block at the end", "`a.txt`\n```\nabc", "a.txt", "abc\n", ""},
		{"CRLF input", "a.txt\r\n```\r\nline1\r\nline2\r\n```\r\n", "a.txt", "line1\nline2\n", ""},
		{"blank lines kept", "a.txt\n\n```\n\nx\n\n```\n", "a.txt", "\nx\n\n", ""},
		{"sloppy nested fences", "\"README.md\"\n```markdown\n# Title\n```bash\ngo test\n```\nDone.\n```\n", "README.md",
			"# Title\n```bash\ngo test\n```\nDone.\n", ""},
		{"longer outer fence", "README.md\n````markdown\n```\ncode\n```\n````\n", "README.md", "```\ncode\n```\n", ""},
		{"parent directories created", "deep/er/a.txt\n```\nx\n```", "deep/er/a.txt", "x\n", "File created: deep/er/a.txt (1 line, 2 bytes)."},
		{"extra blocks ignored", "a.txt\n```\none\n```\n```\ntwo\n```\n", "a.txt", "one\n",
			"File created: a.txt (1 line, 4 bytes). Only the first code block was written; the block after it was ignored."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			env := newEnv(t, nil)
			r := runTool(t, WriteFileTool{}, env, tt.input)
			if !r.OK {
				t.Fatalf("failed: %s", r.Output)
			}
			if got := readFile(t, filepath.Join(env.Dir, tt.path)); got != tt.want {
				t.Errorf("file = %q, want %q", got, tt.want)
			}
			if tt.output != "" && r.Output != tt.output {
				t.Errorf("Output = %q, want %q", r.Output, tt.output)
			}
			if len(r.Files) != 1 || r.Files[0] != tt.path {
				t.Errorf("Files = %v, want [%s]", r.Files, tt.path)
			}
			if len(r.Attrs) != 1 || r.Attrs[0] != [2]string{"path", tt.path} {
				t.Errorf("Attrs = %v", r.Attrs)
			}
		})
	}
}

func TestWriteFileOverwriteKeepsMode(t *testing.T) {
	t.Parallel()
	env := newEnv(t, nil)
	p := filepath.Join(env.Dir, "run.sh")
	if err := os.WriteFile(p, []byte("old\nold\n"), 0o750); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, 0o750); err != nil {
		t.Fatal(err)
	}
	r := runTool(t, WriteFileTool{}, env, "run.sh\n```sh\necho hi\n```\n")
	if want := "File overwritten: run.sh (1 line, 8 bytes)."; r.Output != want || !r.OK {
		t.Errorf("Output = %q, want %q", r.Output, want)
	}
	if got := readFile(t, p); got != "echo hi\n" {
		t.Errorf("content = %q", got)
	}
	info, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != 0o750 {
		t.Errorf("mode = %v, want 0750", info.Mode().Perm())
	}
	entries, _ := os.ReadDir(env.Dir)
	if len(entries) != 1 {
		t.Errorf("temporary files left behind: %v", entries)
	}
}

func TestWriteFileThroughSymlink(t *testing.T) {
	t.Parallel()
	env := newEnv(t, map[string]string{"real.txt": "old\n"})
	if err := os.Symlink("real.txt", filepath.Join(env.Dir, "link.txt")); err != nil {
		t.Fatal(err)
	}
	runTool(t, WriteFileTool{}, env, "link.txt\n```\nnew\n```")
	if got := readFile(t, filepath.Join(env.Dir, "real.txt")); got != "new\n" {
		t.Errorf("target = %q, want new content", got)
	}
	if fi, err := os.Lstat(filepath.Join(env.Dir, "link.txt")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v %v", fi, err)
	}
}

func TestWriteFileAbsolutePath(t *testing.T) {
	t.Parallel()
	env := newEnv(t, nil)
	other := filepath.Join(t.TempDir(), "x.txt")
	env.WritableRoots = []string{filepath.Dir(other)} // outside the working directory (§13)
	r := runTool(t, WriteFileTool{}, env, other+"\n```\nx\n```")
	if !r.OK || readFile(t, other) != "x\n" {
		t.Fatalf("%+v", r)
	}
	if r.Files[0] != other {
		t.Errorf("Files = %v, want the absolute path", r.Files)
	}
}

func TestWriteFileErrors(t *testing.T) {
	t.Parallel()
	checks := []struct{ name, input, want string }{
		{"empty", "", "WRITE_FILE needs the file's path on the first line"},
		{"no path", "```go\nx\n```", "WRITE_FILE needs the file's path on the first line"},
		{"no block", "a.go\npackage a\n", "WRITE_FILE for a.go has no fenced code block"},
	}
	for _, c := range checks {
		call, err := WriteFileTool{}.Check(c.input)
		if call != nil || err == nil || !strings.HasPrefix(err.Error(), c.want) || !strings.Contains(err.Error(), "```") {
			t.Errorf("%s: Check = %v, %v, want %q… with the expected shape", c.name, call, err, c.want)
		}
	}
	env := newEnv(t, map[string]string{"dir/x": "", "file": ""})
	for input, want := range map[string]string{
		"dir\n```\nx\n```":      "Error: cannot write dir: it is a directory.",
		"file/sub\n```\nx\n```": "Error: cannot write file/sub: not a directory.",
	} {
		r := runTool(t, WriteFileTool{}, env, input)
		if r.OK || r.Output != want || r.Files != nil {
			t.Errorf("%q: %+v, want %q", input, r, want)
		}
	}
}
