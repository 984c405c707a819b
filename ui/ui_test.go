package ui

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/devagent/dev/audit"
	"github.com/devagent/dev/event"
	"github.com/devagent/dev/history"
	"github.com/devagent/dev/llm"
	"github.com/devagent/dev/parser"
	"github.com/devagent/dev/tools"
	"github.com/rivo/uniseg"
)

// script is a small run's events, as the loop and main emit them.
func script() []event.Event {
	resp := parser.Response{
		Thoughts:    "Read the file first.\nThen edit it.",
		Reasoning:   "hidden reasoning",
		HasTaskList: true,
		Tasks:       []parser.Task{{Status: parser.Complete, Text: "look"}, {Status: parser.InProgress, Text: "edit main.go"}, {Status: parser.Pending, Text: "test"}},
		Tools:       []parser.ToolCall{{Name: "READ_FILE", Input: "\"main.go\""}},
	}
	return []event.Event{
		event.SessionStarted{ID: "abc", Model: "m", Dir: "/p"},
		event.ContextWindow{Window: 4096, Configured: 131072, Server: "llama.cpp", ServerWindow: 4096, Source: "GET /props default_generation_settings.n_ctx"},
		event.RequestStarted{Step: 1},
		event.Streaming{Content: "# Agent", Chunks: 1},
		event.ReplyParsed{Step: 1, Response: resp},
		event.ToolStarted{Tool: "READ_FILE", Input: "\"main.go\""},
		event.ToolFinished{Result: tools.Result{Tool: "READ_FILE", Summary: "main.go", OK: true, Output: "main.go (2 lines)\npackage main\n"}},
		event.FormatProblem{Message: "No Tool Choice section.\nAnswer with the template.", Attempt: 1, Max: 10,
			Head: []string{"Sure! Here is a script:", "```python", "def main():"}, Tail: []string{"```", "Hope this helps!"}, Lines: 14},
		event.FormatProblem{Message: "Your reply was cut off at the output limit of 2,048 tokens (maxTokens) before it was complete.", Attempt: 10, Max: 10,
			Final: true, Cut: true, Limit: 2048, Head: []string{"# Agent Response", "## Thoughts"}, Tail: []string{"and then I will write the file again and again and"}, Lines: 300},
		event.Retrying{Message: "HTTP 500: boom", Attempt: 1, Max: 10, Wait: 2 * time.Second},
		event.Warning{Message: "careful"},
		event.Compressing{Tokens: 3500, Window: 4096, Reason: event.ReasonThreshold},
		event.Compressed{TokensBefore: 3500, TokensAfter: 1204, Window: 4096, Reason: event.ReasonThreshold, Cuts: 2},
		event.ToolStarted{Tool: "COMMAND", Input: "```sh\ngo test ./...\n```"},
		event.ToolFinished{Result: tools.Result{Tool: "COMMAND", Summary: "go test ./...", OK: false, Output: "Command failed (exit code 1).\nFAIL"}},
		event.Failure{Message: "the server went away"},
		event.Finished{Status: "failed", ExitCode: 1, Loops: 3},
	}
}

func render(level Verbosity, s *Streams) string {
	var buf bytes.Buffer
	s.Err = &buf
	t := NewTerminal(s, level)
	for _, e := range script() {
		t.Emit(e)
	}
	return buf.String()
}

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// golden compares got with testdata/name.golden, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./ui -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from %s:\ngot:\n%s\nwant:\n%s", name, path, got, want)
	}
}

func TestTerminalGolden(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		level   Verbosity
		streams Streams
	}{
		{"normal-80", Normal, Streams{Width: 80, Unicode: true}},
		{"normal-40", Normal, Streams{Width: 40, Unicode: true}},
		{"ascii-40", Normal, Streams{Width: 40}},
		{"quiet-80", Quiet, Streams{Width: 80, Unicode: true}},
		{"verbose-80", Verbose, Streams{Width: 80, Unicode: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := tt.streams
			golden(t, "terminal-"+tt.name, render(tt.level, &s))
		})
	}
}

func TestTerminalASCII(t *testing.T) {
	t.Parallel()
	got := render(Normal, &Streams{Width: 30})
	for _, line := range strings.Split(strings.TrimRight(got, "\n"), "\n") {
		for _, r := range line {
			if r > 127 {
				t.Fatalf("non-ASCII %q in %q", r, line)
			}
		}
	}
}

func TestBoxesFitTheWidth(t *testing.T) {
	t.Parallel()
	for _, width := range []int{20, 40, 80, 200} {
		got := render(Verbose, &Streams{Width: width, Unicode: true})
		for _, line := range strings.Split(strings.TrimRight(got, "\n"), "\n") {
			if strings.HasPrefix(line, "│") || strings.HasPrefix(line, "┌") || strings.HasPrefix(line, "└") {
				if w := uniseg.StringWidth(line); w != min(width, maxBoxWidth) {
					t.Errorf("width %d: box line is %d wide: %q", width, w, line)
				}
			}
		}
	}
}

func TestWrapAndSanitize(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in    string
		width int
		want  []string
	}{
		{"short", 10, []string{"short"}},
		{"two words here", 9, []string{"two words", "here"}},
		{"abcdefghijkl", 5, []string{"abcde", "fghij", "kl"}},
		{"a\tb", 10, []string{"a    b"}},
		{"\x1b[31mred\x1b[0m plain", 20, []string{"red plain"}},
		{"title\x1b]0;pwned\x07 ok", 20, []string{"title ok"}},
		{"bell\x07 cr\r\nnext", 20, []string{"bell cr", "next"}},
		{"日本語のテキスト", 6, []string{"日本語", "のテキ", "スト"}},
		{"", 5, []string{""}},
	}
	for _, tt := range tests {
		if got := wrap(tt.in, tt.width); strings.Join(got, "|") != strings.Join(tt.want, "|") {
			t.Errorf("wrap(%q, %d) = %q, want %q", tt.in, tt.width, got, tt.want)
		}
	}
}

func TestTerminalColour(t *testing.T) {
	t.Parallel()
	if got := render(Normal, &Streams{Width: 80, Unicode: true}); strings.Contains(got, "\x1b[") {
		t.Errorf("escape codes without colour:\n%q", got)
	}
	if got := render(Verbose, &Streams{Width: 80, Unicode: true, Color: true}); !strings.Contains(got, "\x1b[31m") || !strings.Contains(got, "\x1b[1;33mTool: READ_FILE") {
		t.Errorf("no colours with Color set:\n%q", got)
	}
	if got := render(Normal, &Streams{Width: 80, Unicode: true, Color: true}); !strings.Contains(got, "\x1b[31m✗\x1b[0m \x1b[1mCOMMAND") ||
		!strings.Contains(got, "\x1b[32m✓\x1b[0m \x1b[1mREAD_FILE") || !strings.Contains(got, "\x1b[2m  Read the file first.") {
		t.Errorf("no colours on the calm screen with Color set:\n%q", got)
	}
}

func TestUnicodeLocale(t *testing.T) {
	t.Parallel()
	env := func(vars map[string]string) Env { return func(k string) string { return vars[k] } }
	tests := []struct {
		vars map[string]string
		want bool
	}{
		{map[string]string{"LANG": "en_US.UTF-8"}, true},
		{map[string]string{"LC_ALL": "C", "LANG": "en_US.UTF-8"}, false},
		{map[string]string{"LC_CTYPE": "de_DE.utf8"}, true},
		{map[string]string{"LANG": "C"}, false},
	}
	for _, tt := range tests {
		if got := unicodeLocale(env(tt.vars)); got != tt.want {
			t.Errorf("%v: %v, want %v", tt.vars, got, tt.want)
		}
	}
}

func TestJSONEvents(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	j := NewJSON(&buf)
	for _, e := range script() {
		j.Emit(e)
	}
	lines := strings.Split(strings.TrimRight(buf.String(), "\n"), "\n")
	want := []struct {
		typ    string
		fields []string
	}{
		{"session", []string{"id", "resumed", "model", "workingDirectory"}},
		{"response", []string{"step", "thoughts", "tasks", "tools"}},
		{"tool_start", []string{"tool", "input"}},
		{"tool_result", []string{"tool", "input", "ok", "output"}},
		{"format_error", []string{"message", "attempt", "max", "head", "tail", "lines"}},
		{"format_error", []string{"message", "attempt", "max", "final", "cut", "limit"}},
		{"retry", []string{"message", "attempt", "max", "waitSeconds"}},
		{"warning", []string{"message"}},
		{"compression", []string{"reason", "tokensBefore", "tokensAfter", "window"}},
		{"tool_start", []string{"tool", "input"}},
		{"tool_result", []string{"tool", "input", "ok", "output"}},
		{"error", []string{"message"}},
		{"result", []string{"status", "exitCode", "summary", "sessionId", "loops", "tokens", "formatErrors", "audits"}},
	}
	if len(lines) != len(want) {
		t.Fatalf("%d lines, want %d:\n%s", len(lines), len(want), buf.String())
	}
	for i, line := range lines {
		var ev map[string]any
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("line %d is not JSON: %s", i, line)
		}
		if ev["type"] != want[i].typ {
			t.Errorf("line %d type %v, want %s", i, ev["type"], want[i].typ)
		}
		for _, f := range want[i].fields {
			if _, ok := ev[f]; !ok {
				t.Errorf("%s event lacks %q: %s", want[i].typ, f, line)
			}
		}
	}
	var resp struct {
		Tasks []struct{ Status, Text string }
		Tools []struct{ Name, Input string }
	}
	_ = json.Unmarshal([]byte(lines[1]), &resp)
	if len(resp.Tasks) != 3 || resp.Tasks[1].Status != "in-progress" || resp.Tools[0].Name != "READ_FILE" {
		t.Errorf("response event: %s", lines[1])
	}
	var comp struct {
		Reason                    string
		TokensBefore, TokensAfter int
	}
	_ = json.Unmarshal([]byte(lines[8]), &comp)
	if comp.Reason != "threshold" || comp.TokensBefore != 3500 || comp.TokensAfter != 1204 {
		t.Errorf("compression event: %s", lines[8])
	}
	if strings.Contains(buf.String(), "hidden reasoning") {
		t.Errorf("reasoning leaked into JSON")
	}
}

func TestTerminalContextWindow(t *testing.T) {
	t.Parallel()
	emit := func(level Verbosity, e event.ContextWindow) string {
		var buf bytes.Buffer
		NewTerminal(&Streams{Err: &buf, Width: 200, Unicode: true}, level).Emit(e)
		return buf.String()
	}
	larger := event.ContextWindow{Window: 8192, Configured: 8192, Server: "vLLM", ServerWindow: 32768, Source: "GET /v1/models max_model_len"}
	unknown := event.ContextWindow{Window: 131072, Configured: 131072}
	if got := emit(Normal, larger) + emit(Normal, unknown); got != "" {
		t.Errorf("normal mode reports a window that changes nothing: %q", got)
	}
	if got := emit(Verbose, larger); got != "dev: context window 8,192 tokens (maxContextTokens); vLLM reports 32,768 (from GET /v1/models max_model_len)\n" {
		t.Errorf("verbose, larger server window: %q", got)
	}
	if got := emit(Verbose, unknown); got != "dev: context window 131,072 tokens (maxContextTokens); the server did not report its own\n" {
		t.Errorf("verbose, unknown: %q", got)
	}
	smaller := event.ContextWindow{Window: 4096, Configured: 131072, ServerWindow: 4096, Server: "Ollama"}
	if got := emit(Quiet, smaller); got != "" {
		t.Errorf("quiet mode: %q", got)
	}
}

// auditEvents is an audit of two steps as the auditor's conversation emits
// it: its replies and tools, then the verdict.
func auditEvents(v audit.Verdict) []event.Event {
	report := "| check | result |\n|---|---|\n| tests | FAIL |\n\nOverall: " + string(v) + "\nAdd the missing test."
	return []event.Event{
		event.AuditStarted{},
		event.RequestStarted{Agent: event.Auditor, Step: 1},
		event.ReplyParsed{Agent: event.Auditor, Step: 1, Response: parser.Response{Thoughts: "Run the tests.",
			Tools: []parser.ToolCall{{Name: "COMMAND", Input: "go test ./..."}}}},
		event.ToolStarted{Agent: event.Auditor, Tool: "COMMAND", Input: "go test ./..."},
		event.ToolFinished{Agent: event.Auditor, Input: "go test ./...", Result: tools.Result{Tool: "COMMAND", OK: true, Output: "ok  example 0.1s"}},
		event.RequestStarted{Agent: event.Auditor, Step: 2},
		event.ReplyParsed{Agent: event.Auditor, Step: 2, Response: parser.Response{Tools: []parser.ToolCall{{Name: "DONE", Input: report}}}},
		event.ToolStarted{Agent: event.Auditor, Tool: "DONE", Input: report},
		event.ToolFinished{Agent: event.Auditor, Input: report, Result: tools.Result{Tool: "DONE", OK: true, Done: true, Output: report}},
		event.AuditFinished{Verdict: string(v), Steps: 2, Feedback: report},
	}
}

func TestTerminalAudit(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		level   Verbosity
		verdict audit.Verdict
		want    []string
		not     []string
	}{
		{Normal, audit.Pass, []string{"✓ audit passed (2 steps)\n"}, []string{"Run the tests.", "go test"}},
		{Normal, audit.Fail, []string{"✗ audit failed (2 steps): Add the missing test.\n"}, []string{"Run the tests."}},
		{Verbose, audit.Fail, []string{"    Run the tests.\n", "  audit ▸ COMMAND go test ./...\n", "    ok  example 0.1s\n", "    Overall: FAIL\n"}, nil},
	} {
		var buf bytes.Buffer
		term := NewTerminal(&Streams{Err: &buf, Width: 80, Unicode: true}, tt.level)
		for _, e := range auditEvents(tt.verdict) {
			term.Emit(e)
		}
		for _, w := range tt.want {
			if !strings.Contains(buf.String(), w) {
				t.Errorf("level %d %s: lacks %q:\n%s", tt.level, tt.verdict, w, buf.String())
			}
		}
		for _, n := range tt.not {
			if strings.Contains(buf.String(), n) {
				t.Errorf("level %d %s: shows %q:\n%s", tt.level, tt.verdict, n, buf.String())
			}
		}
	}
	var buf bytes.Buffer
	j := NewJSON(&buf)
	for _, e := range auditEvents(audit.Fail) {
		j.Emit(e)
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	var ev map[string]any
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &ev); err != nil || ev["type"] != "audit" || ev["verdict"] != "FAIL" || ev["steps"] != 2.0 ||
		!strings.Contains(ev["feedback"].(string), "Add the missing test.") {
		t.Errorf("audit JSON %q (%v)", buf.String(), err)
	}
}

// A resumed session shows where it stood: its last request, the steps
// since as the calm screen shows them, its last answer (the DONE summary,
// rendered; never the thoughts), its task list, and how its last run ended
// and when.
func TestTerminalResumedGolden(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	now := time.Date(2026, 3, 16, 12, 0, 0, 0, time.UTC)
	term := NewTerminal(&Streams{Err: &buf, Width: 60, Unicode: true}, Normal)
	term.now = func() time.Time { return now }
	read := parser.ToolCall{Name: "READ_FILE", Input: "\"main.go\""}
	tasks := []parser.Task{{Status: parser.Complete, Text: "add the flag"}, {Status: parser.Pending, Text: "document it"}}
	recent := []llm.Message{
		history.Request("add a --verbose flag"),
		history.Reply(parser.Response{Thoughts: "Read main.go first.", Tools: []parser.ToolCall{read}}),
		history.Results([]parser.ToolCall{read}, []history.ToolResult{{Tool: "READ_FILE", OK: true, Output: "main.go (3 lines)\npackage main"}}, ""),
		history.Reply(parser.Response{Thoughts: "The flag is in; the thoughts are not the answer.", HasTaskList: true, Tasks: tasks,
			Tools: []parser.ToolCall{{Name: "DONE", Input: "Added the flag to `main.go`; **go test** passes."}}}),
	}
	term.Emit(event.SessionStarted{ID: "abc", Resumed: true, Model: "m", Dir: "/p",
		LastRequest: "add a --verbose flag", LastAnswer: "Added the flag to `main.go`; **go test** passes.", Recent: recent,
		LastStatus: "complete", LastUsed: now.Add(-50 * time.Hour), Tasks: tasks})
	// The same task list again is not shown twice.
	term.Emit(event.ReplyParsed{Response: parser.Response{HasTaskList: true, Tasks: tasks}})
	got := buf.String()
	golden(t, "terminal-resumed-60", got)
	if strings.Count(got, "Added the flag") != 1 || strings.Contains(got, "┌─") {
		t.Errorf("the answer once, no box:\n%s", got)
	}
	// /last shows the session's last tool result.
	if last, ok := term.Last(); !ok || last.Title != "READ_FILE \"main.go\"" || last.Output != "main.go (3 lines)\npackage main" {
		t.Errorf("/last after a resume: %+v, %v", last, ok)
	}
}

// A resumed session's view fits the screen, however long its last request
// ran: the steps are cut first, then the answer.
func TestTerminalResumedFitsTheScreen(t *testing.T) {
	t.Parallel()
	recent := []llm.Message{history.Request(strings.Repeat("a long request line\n", 20))}
	for i := range 60 {
		call := parser.ToolCall{Name: "COMMAND", Input: fmt.Sprintf("echo step %d", i)}
		recent = append(recent, history.Reply(parser.Response{Thoughts: fmt.Sprintf("Step %d.", i), Tools: []parser.ToolCall{call}}),
			history.Results([]parser.ToolCall{call}, []history.ToolResult{{Tool: "COMMAND", OK: i%7 != 0, Output: "Command failed (exit code 1).\n" + numbered(20)}}, ""))
	}
	answer := strings.Repeat("A line of the answer.\n\n", 40)
	for _, height := range []int{15, 24, 50} {
		var buf bytes.Buffer
		term := NewTerminal(&Streams{Err: &buf, Width: 80, Unicode: true, HeightNow: func() int { return height }}, Normal)
		term.Emit(event.SessionStarted{ID: "abc", Resumed: true, Model: "m", Dir: "/p", LastRequest: strings.Repeat("a long request line\n", 20),
			LastAnswer: answer, Recent: recent, LastStatus: "complete"})
		got := buf.String()
		if n := strings.Count(got, "\n") + 2; n > height { // and the help's line and the prompt
			t.Errorf("height %d: %d lines:\n%s", height, n, got)
		}
		for _, want := range []string{"a long request line", "earlier lines (dev sessions show has them all)", "A line of the answer.", "✓ last run: done"} {
			if !strings.Contains(got, want) {
				t.Errorf("height %d: lacks %q:\n%s", height, want, got)
			}
		}
		if height == 50 && !strings.Contains(got, "✓ COMMAND echo step 59") {
			t.Errorf("the last step is not shown:\n%s", got)
		}
	}
}
