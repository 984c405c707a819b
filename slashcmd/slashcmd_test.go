package slashcmd

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func write(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestDiscover(t *testing.T) {
	t.Parallel()
	repo := t.TempDir()
	config := t.TempDir()
	work := filepath.Join(repo, "services", "api")
	write(t, repo, map[string]string{
		".git/HEAD":                            "ref: refs/heads/main\n",
		".dev/commands/review.md":              "---\ndescription: \"Review the diff\"\nargument-hint: [file]\n---\nReview $ARGUMENTS carefully.\n",
		".dev/commands/git/commit.md":          "# Write a commit message\n\nLook at git diff --staged.",
		".dev/commands/shared.md":              "from the repository root",
		"services/api/.dev/commands/shared.md": "from the working directory",
		".dev/commands/help.md":                "shadows a built-in",
		".dev/commands/bad name.md":            "spaces",
		".dev/commands/notes.txt":              "not markdown",
	})
	write(t, config, map[string]string{
		"commands/review.md": "the user's review, shadowed by the project's",
		"commands/mine.md":   "---\ndescription: mine\n---\nMy own command.",
	})
	// Above the repository: never read.
	write(t, filepath.Dir(repo), map[string]string{".dev/commands/outside.md": "outside"})
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}

	cmds, warnings := Discover(work, config, []string{"help", "exit"})
	type brief struct{ Name, Description, Body, Dir string }
	var got []brief
	for _, c := range cmds {
		rel, _ := filepath.Rel(filepath.Dir(repo), c.Path)
		got = append(got, brief{c.Name, c.Description, c.Body, filepath.ToSlash(rel)})
	}
	base := filepath.Base(repo) + "/"
	cfg, _ := filepath.Rel(filepath.Dir(repo), config)
	want := []brief{
		{"git:commit", "Write a commit message", "# Write a commit message\n\nLook at git diff --staged.", base + ".dev/commands/git/commit.md"},
		{"mine", "mine", "My own command.", filepath.ToSlash(cfg) + "/commands/mine.md"},
		{"review", "Review the diff", "Review $ARGUMENTS carefully.", base + ".dev/commands/review.md"},
		{"shared", "from the working directory", "from the working directory", base + "services/api/.dev/commands/shared.md"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("commands =\n%+v\nwant\n%+v", got, want)
	}
	if len(warnings) != 2 || !strings.Contains(warnings[0]+warnings[1], "/help is a built-in command; the file is ignored") ||
		!strings.Contains(warnings[0]+warnings[1], "bad name.md: a command name has letters") {
		t.Errorf("warnings = %q", warnings)
	}
}

func TestDiscoverOutsideARepository(t *testing.T) {
	t.Parallel()
	parent := t.TempDir()
	work := filepath.Join(parent, "work")
	write(t, parent, map[string]string{".dev/commands/up.md": "from above", "work/.dev/commands/here.md": "here"})
	cmds, warnings := Discover(work, "", nil)
	if len(cmds) != 1 || cmds[0].Name != "here" || len(warnings) != 0 {
		t.Errorf("Discover = %+v, %q; want only the working directory's command", cmds, warnings)
	}
}

func TestExpand(t *testing.T) {
	t.Parallel()
	cmds := []Command{
		{Name: "review", Body: "Review $ARGUMENTS carefully. Then $ARGUMENTS again."},
		{Name: "git:commit", Body: "Write a commit message."},
	}
	tests := []struct {
		request, want, name string
		ok                  bool
	}{
		{"/review main.go", "Review main.go carefully. Then main.go again.", "review", true},
		{"  /review   a.go b.go  ", "Review a.go b.go carefully. Then a.go b.go again.", "review", true},
		{"/review", "Review  carefully. Then  again.", "review", true},
		{"/review\nline one\nline two", "Review line one\nline two carefully. Then line one\nline two again.", "review", true},
		{"/git:commit", "Write a commit message.", "git:commit", true},
		{"/git:commit keep it short", "Write a commit message.\n\nkeep it short", "git:commit", true},
		{"/unknown x", "", "", false},
		{"review main.go", "", "", false},
		{"/ review", "", "", false},
		{"//review", "", "", false},
		{"", "", "", false},
	}
	for _, tt := range tests {
		got, cmd, ok := Expand(cmds, tt.request)
		if got != tt.want || ok != tt.ok || cmd.Name != tt.name {
			t.Errorf("Expand(%q) = %q, %q, %v; want %q, %q, %v", tt.request, got, cmd.Name, ok, tt.want, tt.name, tt.ok)
		}
	}
}

func TestFrontMatter(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, desc, body string }{
		{"---\ndescription: Plain\n---\nBody", "Plain", "Body"},
		{"---\ndescription: 'Quoted: yes'\nmodel: x\n---\n\nBody\n", "Quoted: yes", "Body"},
		{"\ufeff---\ndescription: bom\n---\nB", "bom", "B"},
		{"---\ndescription: only\n---", "only", ""},
		{"---\nno closing line\nBody", "", "---\nno closing line\nBody"},
		{"Just a body", "", "Just a body"},
	}
	for _, tt := range tests {
		desc, body := frontMatter(tt.in)
		if desc != tt.desc || body != tt.body {
			t.Errorf("frontMatter(%q) = %q, %q; want %q, %q", tt.in, desc, body, tt.desc, tt.body)
		}
	}
}

func TestComplete(t *testing.T) {
	t.Parallel()
	cmds := []Command{{Name: "git:commit"}, {Name: "git:push"}, {Name: "review"}}
	if got := Complete(cmds, "git"); !reflect.DeepEqual(got, []string{"/git:commit", "/git:push"}) {
		t.Errorf("Complete(git) = %q", got)
	}
	if got := Complete(cmds, ""); len(got) != 3 {
		t.Errorf("Complete('') = %q", got)
	}
	if got := Complete(cmds, "x"); got != nil {
		t.Errorf("Complete(x) = %q", got)
	}
}
