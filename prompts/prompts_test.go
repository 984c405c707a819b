package prompts

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func sampleTools() []Tool {
	return []Tool{
		{Name: "READ_FILE", Description: "Read a file.", Example: `"main.go"`},
		{Name: "ASK_USER", Description: "Ask the user.", Example: "Which port?"},
		{Name: "DONE", Description: "Finish.", Example: "Added the flag."},
	}
}

func TestSystemRender(t *testing.T) {
	t.Parallel()
	s := System{
		Dir:         "/work/app",
		Interactive: false,
		Tools:       sampleTools(),
		Project: &Project{Kind: "Go module", Name: "example.com/app", Manifest: "go.mod",
			Tree: "app/\n├── go.mod\n└── main.go", Readme: "# App\nDoes things."},
		Instructions: []Instruction{{Path: "/work/app/AGENTS.md", Content: "Use tabs."}},
	}
	got := s.Render()
	for _, want := range []string{
		"Working directory: /work/app",
		"You run unattended",
		"# Agent Response\n\n## Thoughts\n",
		"## Tool Choice\nTOOL_NAME\n\n## Tool Input\n",
		"## READ_FILE\nRead a file.\nExample input:\n\"main.go\"\n",
		"## DONE\nFinish.",
		"# Project\nGo module: example.com/app (go.mod)\nFiles:\napp/\n├── go.mod\n└── main.go\nREADME excerpt:\n# App\nDoes things.\n",
		"# Instructions from /work/app/AGENTS.md\nUse tabs.\n",
		"<tool_result>",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("system prompt lacks %q\n---\n%s", want, got)
		}
	}
	if strings.Contains(got, "ASK_USER only when") {
		t.Errorf("automated prompt must not offer ASK_USER:\n%s", got)
	}
	s.Interactive = true
	if got := s.Render(); !strings.Contains(got, "A user is present: use ASK_USER") {
		t.Errorf("interactive prompt does not offer ASK_USER:\n%s", got)
	}
}

func TestSystemRenderWithoutProject(t *testing.T) {
	t.Parallel()
	got := System{Dir: "/x", Tools: sampleTools()}.Render()
	if strings.Contains(got, "# Project") || strings.Contains(got, "# Instructions") {
		t.Errorf("empty sections rendered:\n%s", got)
	}
	if strings.Contains(got, "\n\n\n") {
		t.Errorf("prompt has runs of blank lines (tokens paid on every request):\n%q", got)
	}
}

func TestFormatReminder(t *testing.T) {
	t.Parallel()
	r := FormatReminder()
	if !strings.HasPrefix(r, "Answer with the template only") || !strings.Contains(r, "## Tool Choice\nTOOL_NAME") {
		t.Errorf("FormatReminder = %q", r)
	}
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestDiscoverProject(t *testing.T) {
	t.Parallel()
	tests := []struct {
		file, content, kind, name string
	}{
		{"go.mod", "module example.com/hello\n\ngo 1.22\n", "Go module", "example.com/hello"},
		{"package.json", `{"name": "web-app", "version": "1.0.0"}`, "Node.js package", "web-app"},
		{"Cargo.toml", "[package]\nname = \"crab\"\nversion = \"0.1.0\"\n", "Rust crate", "crab"},
		{"pyproject.toml", "[project]\nname = \"snake\"\n", "Python project", "snake"},
		{"package.json", `{not json`, "Node.js package", ""},
	}
	for _, tt := range tests {
		dir := t.TempDir()
		write(t, filepath.Join(dir, tt.file), tt.content)
		p := DiscoverProject(dir, "")
		if p == nil || p.Kind != tt.kind || p.Name != tt.name || p.Manifest != tt.file {
			t.Errorf("%s: got %+v, want kind %q name %q", tt.file, p, tt.kind, tt.name)
		}
	}
	if p := DiscoverProject(t.TempDir(), "empty/\n"); p != nil {
		t.Errorf("empty dir: got %+v, want nil", p)
	}
	if p := DiscoverProject(t.TempDir(), "app/\n└── main.go\n"); p == nil || p.Tree != "app/\n└── main.go" {
		t.Errorf("tree: got %+v", p)
	}
}

func TestReadmeExcerpt(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	long := "# Title\n\n" + strings.Repeat("word ", 100) + "\n\n" + strings.Repeat("more ", 200)
	write(t, filepath.Join(dir, "README.md"), long)
	p := DiscoverProject(dir, "")
	if len(p.Readme) > readmeExcerptBytes+10 || !strings.HasSuffix(p.Readme, "[…]") || !strings.HasPrefix(p.Readme, "# Title") {
		t.Errorf("excerpt = %q", p.Readme)
	}
}

func TestInstructions(t *testing.T) {
	t.Parallel()
	config := t.TempDir()
	repo := t.TempDir()
	sub := filepath.Join(repo, "svc", "api")
	write(t, filepath.Join(config, "AGENTS.md"), "user rules")
	write(t, filepath.Join(repo, ".git", "HEAD"), "ref: refs/heads/main\n")
	write(t, filepath.Join(repo, "AGENTS.md"), "repo rules")
	write(t, filepath.Join(repo, "svc", "AGENTS.md"), "  \n") // empty: skipped
	write(t, filepath.Join(sub, "AGENTS.md"), "api rules")
	write(t, filepath.Join(filepath.Dir(repo), "AGENTS.md"), "outside the repo") // above the root: ignored

	got := Instructions(config, sub)
	var paths, contents []string
	for _, in := range got {
		paths = append(paths, in.Path)
		contents = append(contents, in.Content)
	}
	want := []string{"user rules", "repo rules", "api rules"}
	if strings.Join(contents, "|") != strings.Join(want, "|") {
		t.Fatalf("contents = %q, want %q (paths %q)", contents, want, paths)
	}
	if paths[1] != filepath.Join(repo, "AGENTS.md") || paths[2] != filepath.Join(sub, "AGENTS.md") {
		t.Errorf("paths = %q", paths)
	}
}

func TestInstructionsCapped(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write(t, filepath.Join(dir, "AGENTS.md"), strings.Repeat("x\n", instructionBytes))
	got := Instructions(t.TempDir(), dir)
	if len(got) != 1 || len(got[0].Content) > instructionBytes+10 || !strings.HasSuffix(got[0].Content, "[…]") {
		t.Errorf("not capped: %d bytes", len(got[0].Content))
	}
}

func TestInstructionsOutsideRepo(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write(t, filepath.Join(dir, "AGENTS.md"), "local")
	got := Instructions(filepath.Join(dir, "nonexistent-config"), dir)
	if len(got) != 1 || got[0].Content != "local" {
		t.Errorf("got %+v", got)
	}
}

func TestSummarize(t *testing.T) {
	t.Parallel()
	got := Summarize("<message role=\"user\">\nfix {{.}} the tests\n</message>")
	for _, want := range []string{
		"You are a context compression assistant.",
		"### 1. Original Request",
		"### 5. Next Steps",
		"## Conversation to Summarize\n\n<conversation>\n<message role=\"user\">\nfix {{.}} the tests\n</message>\n</conversation>\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("summarisation prompt lacks %q\n---\n%s", want, got)
		}
	}
}

func TestDoctorProtocol(t *testing.T) {
	t.Parallel()
	system, request := DoctorProtocol()
	for _, want := range []string{"# Agent Response\n\n## Thoughts\n", "## Tool Choice\nTOOL_NAME\n", "## DONE\nEnds the task.", "Example input:\nOK"} {
		if !strings.Contains(system, want) {
			t.Errorf("protocol probe prompt lacks %q:\n%s", want, system)
		}
	}
	if strings.Contains(system, "{{") || strings.Contains(system, "\n\n\n") {
		t.Errorf("protocol probe prompt is not rendered cleanly:\n%q", system)
	}
	if request != "Reply with the template: tool DONE, input OK." {
		t.Errorf("request = %q", request)
	}
}

func TestSystemRenderBriefTools(t *testing.T) {
	t.Parallel()
	tools := append(sampleTools(),
		Tool{Name: "github.create_issue", Description: "Create a new issue. Long text.", Brief: "Create a new issue."},
		Tool{Name: "fs.read", Description: "Read.", Brief: "Read a file."})
	got := System{Dir: "/x", Tools: tools}.Render()
	want := "## DONE\nFinish.\nExample input:\nAdded the flag.\n\n# MCP tools\n" +
		"Named SERVER.TOOL; the input is one JSON object, e.g. {\"path\": \"a.txt\"}. Before using one the first time, call TOOL_HELP with its name as input: it shows the tool's parameters.\n" +
		"- github.create_issue: Create a new issue.\n- fs.read: Read a file.\n"
	if !strings.Contains(got, want) {
		t.Errorf("system prompt lacks the MCP section %q:\n%s", want, got)
	}
	if strings.Contains(got, "Long text") || strings.Contains(got, "## github") {
		t.Errorf("a brief tool is documented in full:\n%s", got)
	}
	if strings.Contains(got, "\n\n\n") {
		t.Errorf("runs of blank lines:\n%q", got)
	}
	if without := (System{Dir: "/x", Tools: sampleTools()}).Render(); strings.Contains(without, "# MCP tools") {
		t.Errorf("MCP section without MCP tools:\n%s", without)
	}
}
