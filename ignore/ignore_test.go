package ignore

import (
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// The indexed matcher must answer exactly as go-git's Matcher over the same
// patterns in the same order.
func TestIgnoresMatchLikeGoGit(t *testing.T) {
	t.Parallel()
	files := []struct {
		domain []string
		lines  string
	}{
		{nil, "*.log\n!keep.log\n/build/\nnode\n**/cache/\ndocs/*.md\n*.py[co]\n*~\nfoo/**/bar\nsub/\n!sub/x.log\n\\#hash\ntrail \\ \n/\n!\n"},
		{[]string{"pkg"}, "gen/\n!*.log\n/local\n**/tmp\n*.out\n"},
		{[]string{"pkg", "deep"}, "*\n!*.go\n"},
	}
	var ign *Rules
	var all []gitignore.Pattern
	for _, f := range files {
		ign = ign.WithFile([]byte(f.lines), f.domain)
		for _, line := range strings.Split(f.lines, "\n") {
			if strings.TrimSpace(line) != "" && !strings.HasPrefix(line, "#") {
				all = append(all, gitignore.ParsePattern(line, f.domain))
			}
		}
	}
	want := gitignore.NewMatcher(all)
	names := []string{"a.log", "keep.log", "build", "node", "cache", "docs", "x.md", "m.pyc", "m.py", "e~", "foo", "bar",
		"sub", "x.log", "#hash", "trail  ", "pkg", "gen", "local", "tmp", "r.out", "deep", "main.go", "z", ".log"}
	var paths [][]string
	for _, a := range names {
		paths = append(paths, []string{a})
		for _, b := range names {
			paths = append(paths, []string{a, b})
			for _, c := range []string{"a.log", "main.go", "bar", "tmp", "x.md"} {
				paths = append(paths, []string{a, b, c})
			}
		}
	}
	checked, ignored := 0, 0
	for _, p := range paths {
		for _, dir := range []bool{false, true} {
			w := want.Match(p, dir)
			if got := ign.Match(p, dir); got != w {
				t.Errorf("%v (dir %v): ignored=%v, go-git says %v", p, dir, got, w)
			}
			checked++
			if w {
				ignored++
			}
		}
	}
	if ignored == 0 || ignored == checked {
		t.Fatalf("the cases do not discriminate: %d of %d ignored", ignored, checked)
	}
}

func TestClassify(t *testing.T) {
	t.Parallel()
	tests := []struct {
		line string
		kind int
		key  string
	}{
		{"node_modules", byName, "node_modules"},
		{"!dist/", byName, "dist"},
		{"*.log", byExt, ".log"},
		{"*.tar.gz", generic, ""},
		{"*.py[co]", generic, ""},
		{"/build/", byFirst, "build"},
		{"docs/*.md", byFirst, "docs"},
		{"**/cache/", byName, "cache"},
		{"**/a/b", generic, ""},
		{"*/x", generic, ""},
	}
	for _, tt := range tests {
		if kind, key := classify(tt.line); kind != tt.kind || key != tt.key {
			t.Errorf("classify(%q) = %d %q, want %d %q", tt.line, kind, key, tt.kind, tt.key)
		}
	}
}
