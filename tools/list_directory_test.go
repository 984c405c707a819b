package tools

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
)

// repoFixture is a small git work tree exercising every skipping rule.
func repoFixture(t *testing.T) *Env {
	t.Helper()
	env := newEnv(t, map[string]string{
		".git/HEAD":               "ref: refs/heads/main\n",
		".git/info/exclude":       "# local\nsecret.env\n",
		".gitignore":              "*.log\n/build/\n",
		"build/out.bin":           "",
		"cmd/app/main.go":         "package main\n",
		"cmd/app/debug.log":       "",
		"docs/README.md":          "",
		"node_modules/x/index.js": "",
		"sub/.gitignore":          "generated/\r\n!keep.log\r\n",
		"sub/generated/a.go":      "",
		"sub/keep.log":            "",
		"sub/z.go":                "",
		"secret.env":              "",
		"go.mod":                  "module x\n",
		"Zeta.txt":                "",
		"alpha.txt":               "",
	})
	if err := os.Mkdir(filepath.Join(env.Dir, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("go.mod", filepath.Join(env.Dir, "link")); err != nil {
		t.Fatal(err)
	}
	return env
}

func TestListDirectoryTree(t *testing.T) {
	t.Parallel()
	env := repoFixture(t)
	r := runTool(t, ListDirectoryTool{}, env, "")
	if !r.OK {
		t.Fatal(r.Output)
	}
	golden(t, t.Name(), r.Output)
	if r2 := runTool(t, ListDirectoryTool{}, env, `"."`); r2.Output != r.Output {
		t.Errorf(`"." lists differently from empty input:\n%s`, r2.Output)
	}
}

func TestListDirectoryPaths(t *testing.T) {
	t.Parallel()
	env := repoFixture(t)
	tests := []struct {
		input string
		ok    bool
		want  string
	}{
		// The root .gitignore applies when listing below it.
		{"cmd", true, "cmd/\n└── app/\n    └── main.go"},
		{"cmd/app/", true, "cmd/app/\n└── main.go"},
		// A directory named explicitly is listed even when ignored.
		{"build", true, "build/\n└── out.bin"},
		{"empty", true, "empty/ is empty (or holds only ignored files)."},
		{"go.mod", true, "go.mod is a file (9 bytes), not a directory; use READ_FILE to read it."},
		{"sbu", false, "Error: sbu does not exist (paths are relative to " + env.Dir + "). Did you mean: sub/?"},
		{"**/*.go", true, "2 paths match \"**/*.go\":\n./\n├── cmd/\n│   └── app/\n│       └── main.go\n└── sub/\n    └── z.go"},
		{"cmd/**", true, "2 paths match \"cmd/**\":\ncmd/\n└── app/\n    └── main.go"},
		{"sub/*.{go,log}", true, "2 paths match \"sub/*.{go,log}\":\nsub/\n├── keep.log\n└── z.go"},
		{"**/*.rs", true, "No paths match \"**/*.rs\" (searched 15 entries under ./, skipping .git, node_modules and ignored paths)."},
		{"nope/**/*.go", false, "Error: nope does not exist (paths are relative to " + env.Dir + "). Use LIST_DIRECTORY to see what exists."},
	}
	for _, tt := range tests {
		r := runTool(t, ListDirectoryTool{}, env, tt.input)
		if r.OK != tt.ok || r.Output != tt.want {
			t.Errorf("%s: OK=%v\n%s\nwant\n%s", tt.input, r.OK, r.Output, tt.want)
		}
	}
	abs := filepath.Join(env.Dir, "sub")
	r := runTool(t, ListDirectoryTool{}, env, abs)
	if want := "sub/\n├── .gitignore\n├── keep.log\n└── z.go"; r.Output != want || r.Attrs[0][1] != "sub" {
		t.Errorf("absolute path: %q %v", r.Output, r.Attrs)
	}
	if _, err := (ListDirectoryTool{}).Check("src/[a"); err == nil || !strings.Contains(err.Error(), "not a valid glob") {
		t.Errorf("Check of a bad glob = %v", err)
	}
}

// A bracket in a real name is a path, not a glob.
func TestListDirectoryLiteralBrackets(t *testing.T) {
	t.Parallel()
	env := newEnv(t, map[string]string{"app/[id]/page.tsx": ""})
	r := runTool(t, ListDirectoryTool{}, env, "app/[id]")
	if r.Output != "app/[id]/\n└── page.tsx" {
		t.Errorf("%q", r.Output)
	}
}

func TestListDirectoryCap(t *testing.T) {
	t.Parallel()
	files := map[string]string{}
	for i := range 600 {
		files[fmt.Sprintf("many/f%03d", i)] = ""
	}
	for i := range 10 {
		files[fmt.Sprintf("few/g%d", i)] = ""
	}
	env := newEnv(t, files)

	r := runTool(t, ListDirectoryTool{}, env, "many")
	lines := strings.Split(r.Output, "\n")
	if len(lines) != 502 || lines[500] != "├── f499" || lines[501] != "… 100 more (not shown: list a subdirectory or use a glob to see them)" {
		t.Errorf("%d lines, ending %q", len(lines), lines[len(lines)-2:])
	}
	// Too many for two levels: the first level is shown whole, collapsed.
	r = runTool(t, ListDirectoryTool{}, env, ".")
	want := "./\n├── few/ (10 entries)\n└── many/ (600 entries)\n… 610 more (not shown: list a subdirectory or use a glob to see them)"
	if r.Output != want {
		t.Errorf("got\n%s\nwant\n%s", r.Output, want)
	}
}

// lockedFS fails to read the directories it names, as an unreadable
// directory does.
type lockedFS struct {
	fstest.MapFS
	locked map[string]bool
}

func (l lockedFS) ReadDir(name string) ([]fs.DirEntry, error) {
	if l.locked[name] {
		return nil, &fs.PathError{Op: "readdirent", Path: name, Err: fs.ErrPermission}
	}
	return l.MapFS.ReadDir(name)
}

func TestScanUnreadableAndLimit(t *testing.T) {
	t.Parallel()
	fsys := lockedFS{
		MapFS: fstest.MapFS{
			"top.txt":       {},
			"locked/x":      {},
			"open/f":        {},
			"open/deep/a/b": {},
		},
		locked: map[string]bool{"locked": true},
	}
	s := scanTree(context.Background(), fsys, ".", nil, 0, walkLimit)
	want := "./\n├── locked/ (unreadable: permission denied)\n├── open/\n│   ├── deep/\n│   │   └── a/\n│   │       └── b\n│   └── f\n└── top.txt"
	if got := s.render("./", 100); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	// Reading stops at the limit; the count of what is left is a lower bound.
	s = scanTree(context.Background(), fsys, ".", nil, 0, 4)
	want = "./\n├── locked/ (unreadable: permission denied)\n├── open/\n│   ├── deep/\n│   └── f\n└── top.txt\n… more (the listing stopped after 5 entries: list a subdirectory or use a glob to see them)"
	if got := s.render("./", 100); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	want = "./\n├── locked/ (unreadable: permission denied)\n├── open/ (2+ entries)\n└── top.txt\n… 2+ more (the listing stopped after 5 entries: list a subdirectory or use a glob to see them)"
	if got := s.render("./", 4); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	// A cancelled context stops the walk as well.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if s := scanTree(ctx, fsys, ".", nil, 0, walkLimit); s.complete || s.total != 0 {
		t.Errorf("cancelled scan: complete=%v total=%d", s.complete, s.total)
	}
}

func TestListDirectoryBelowAFile(t *testing.T) {
	t.Parallel()
	env := newEnv(t, map[string]string{"f": ""})
	r := runTool(t, ListDirectoryTool{}, env, "f/x")
	if r.OK || !strings.HasPrefix(r.Output, "Error: cannot open f/x: not a directory") {
		t.Errorf("%q", r.Output)
	}
}

func TestTree(t *testing.T) {
	t.Parallel()
	env := repoFixture(t)
	base := filepath.Base(env.Dir)
	want := base + "/\n├── cmd/\n├── docs/\n├── empty/\n├── sub/\n├── .gitignore\n├── alpha.txt\n├── go.mod\n├── link -> go.mod\n└── Zeta.txt"
	if got := Tree(env.Dir, 1, 0); got != want {
		t.Errorf("depth 1:\n%s\nwant\n%s", got, want)
	}
	// Depth 2 does not fit in 4 entries: the first level, collapsed; the
	// counts are lower bounds as the third level was not read.
	want = base + "/\n├── cmd/ (1+ entries)\n├── docs/ (1 entry)\n├── empty/\n├── sub/ (3 entries)\n… 10 more (not shown: list a subdirectory or use a glob to see them)"
	if got := Tree(env.Dir, 2, 4); got != want {
		t.Errorf("depth 2, 4 entries:\n%s\nwant\n%s", got, want)
	}
	if got := Tree(filepath.Join(env.Dir, "missing"), 2, 10); !strings.HasPrefix(got, "(cannot list ") {
		t.Errorf("missing dir: %q", got)
	}
}
