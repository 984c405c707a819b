package checkpoints

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// The patches of every kind of change, as dev diff prints them.
func TestPatchGolden(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links and permission bits need a Unix file system")
	}
	dir := t.TempDir()
	lines := func(from, to int, change map[int]string) string {
		var b strings.Builder
		for i := from; i <= to; i++ {
			if c, ok := change[i]; ok {
				b.WriteString(c)
			} else {
				b.WriteString("line " + itoa(i) + "\n")
			}
		}
		return b.String()
	}
	write(t, dir, files{
		"edited.go":    lines(1, 30, nil),
		"deleted.txt":  "gone\nsoon\n",
		"no-eol.txt":   "last line",
		"image.png":    "\x89PNG\x00\x00data",
		"script.sh":    "echo hi\n",
		"link":         "->edited.go",
		"text-to-null": "text\n",
	})
	ss := newSession(t, dir, Options{})
	ss.take(BeforeRequest, "")
	must(t, os.Remove(filepath.Join(dir, "deleted.txt")))
	write(t, dir, files{
		"edited.go":    lines(1, 30, map[int]string{3: "changed 3\n", 20: "", 28: "line 28\nadded after 28\n"}),
		"added.txt":    "new\nfile\n",
		"no-eol.txt":   "last line\nand more",
		"image.png":    "\x89PNG\x00\x00other",
		"link":         "->script.sh",
		"empty-new":    "",
		"text-to-null": "te\x00xt\n",
	})
	must(t, os.Chmod(filepath.Join(dir, "script.sh"), 0o755))
	tk := ss.take(AfterTool, "COMMAND")

	var b strings.Builder
	for _, c := range tk.Changes {
		text, binary, err := ss.s.Patch(c)
		must(t, err)
		if binary != strings.Contains(text, "Binary files") {
			t.Errorf("%s: binary=%v for\n%s", c.Path, binary, text)
		}
		b.WriteString(text)
	}
	golden(t, "patch.golden", b.String())

	// The JSON of --json's tool_result files.
	data, err := json.Marshal(tk.Changes[:2])
	must(t, err)
	if got := string(data); got != `[{"path":"added.txt","change":"added"},{"path":"deleted.txt","change":"deleted"}]` {
		t.Errorf("JSON: %s", got)
	}
}

// Unified needs no store: a tool holding both contents renders the same.
func TestUnifiedWithoutStore(t *testing.T) {
	t.Parallel()
	c := Change{Path: "a.txt", Change: Modified, From: File{Mode: 0o644}, To: File{Mode: 0o644}}
	text, binary := Unified(c, []byte("one\ntwo\n"), []byte("one\n2\n"))
	want := "diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+2\n"
	if text != want || binary {
		t.Errorf("got %q, binary %v\nwant %q", text, binary, want)
	}
}

// A tree diff compares only directories whose hash differs.
func TestChangesBetweenSnapshots(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write(t, dir, files{"a/1": "1", "a/2": "2", "b/3": "3"})
	s, err := Open(t.TempDir(), dir, Options{})
	must(t, err)
	ctx := context.Background()
	first, err := s.Snapshot(ctx)
	must(t, err)
	write(t, dir, files{"a/2": "two", "c/4": "4"})
	must(t, os.RemoveAll(filepath.Join(dir, "b")))
	second, err := s.Snapshot(ctx)
	must(t, err)
	for _, tt := range []struct {
		from, to ID
		want     string
	}{
		{first.Tree, second.Tree, "modified a/2\ndeleted b/3\nadded c/4\n"},
		{second.Tree, first.Tree, "modified a/2\nadded b/3\ndeleted c/4\n"},
		{first.Tree, first.Tree, ""},
		{"", first.Tree, "added a/1\nadded a/2\nadded b/3\n"},
	} {
		cs, err := s.Changes(ctx, tt.from, tt.to)
		must(t, err)
		if got := changeList(cs); got != tt.want {
			t.Errorf("changes:\n%s\nwant:\n%s", got, tt.want)
		}
	}
	if _, err := s.Changes(ctx, "not-an-id", first.Tree); err == nil {
		t.Error("a bad id was accepted")
	}
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	p := filepath.Join("testdata", name)
	if *update {
		must(t, os.MkdirAll("testdata", 0o755))
		must(t, os.WriteFile(p, []byte(got), 0o644))
		return
	}
	want, err := os.ReadFile(p)
	must(t, err)
	if got != string(want) {
		t.Errorf("%s differs (go test -update rewrites it):\n%s", name, got)
	}
}

func itoa(i int) string {
	data, _ := json.Marshal(i)
	return string(data)
}
