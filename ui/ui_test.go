package ui

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/devagent/dev/audit"
	"github.com/devagent/dev/loop"
	"github.com/devagent/dev/parser"
	"github.com/devagent/dev/tools"
)

// script is a small run's events, as the loop and main emit them.
func script() []loop.Event {
	resp := parser.Response{
		Thoughts:    "Read the file first.\nThen edit it.",
		Reasoning:   "hidden reasoning",
		HasTaskList: true,
		Tasks:       []parser.Task{{Status: parser.Complete, Text: "look"}, {Status: parser.InProgress, Text: "edit main.go"}, {Status: parser.Pending, Text: "test"}},
		Tools:       []parser.ToolCall{{Name: "READ_FILE", Input: "\"main.go\""}},
	}
	return []loop.Event{
		loop.SessionStarted{ID: "abc", Model: "m", Dir: "/p"},
		loop.ContextWindow{Window: 4096, Configured: 131072, Server: "llama.cpp", ServerWindow: 4096, Source: "GET /props default_generation_settings.n_ctx"},
		loop.RequestStarted{Step: 1},
		loop.Streaming{Content: "# Agent", Chunks: 1},
		loop.ReplyParsed{Step: 1, Response: resp},
		loop.ToolStarted{Tool: "READ_FILE", Input: "\"main.go\""},
		loop.ToolFinished{Result: tools.Result{Tool: "READ_FILE", Summary: "main.go", OK: true, Output: "main.go (2 lines)\npackage main\n"}},
		loop.FormatProblem{Message: "No Tool Choice section.\nAnswer with the template.", Attempt: 1, Max: 10},
		loop.Retrying{Message: "HTTP 500: boom", Attempt: 1, Max: 10, Wait: 2 * time.Second},
		loop.Warning{Message: "careful"},
		loop.Compressing{Tokens: 3500, Window: 4096, Reason: loop.ReasonThreshold},
		loop.Compressed{TokensBefore: 3500, TokensAfter: 1204, Window: 4096, Reason: loop.ReasonThreshold, Cuts: 2},
		loop.ToolStarted{Tool: "COMMAND", Input: "```sh\ngo test ./...\n```"},
		loop.ToolFinished{Result: tools.Result{Tool: "COMMAND", Summary: "go test ./...", OK: false, Output: "Command failed (exit code 1).\nFAIL"}},
		loop.Failure{Message: "the server went away"},
		loop.Finished{Status: "failed", ExitCode: 1, Loops: 3},
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

func TestTerminalNormal(t *testing.T) {
	t.Parallel()
	got := render(Normal, &Streams{Width: 80, Unicode: true})
	want := `dev: new session abc → model m in /p
dev: llama.cpp gives this model a context window of 4,096 tokens; using it instead of maxContextTokens (131,072)
Read the file first.
tasks 1/3 edit main.go
▸ READ_FILE "main.go"
  ✓ main.go (2 lines)
! reply not in the expected format (1/10): No Tool Choice section.
↻ HTTP 500: boom; retrying in 2s (1/10)
! careful
↓ compressed the conversation: 3,500 → 1,204 tokens
▸ COMMAND go test ./...
  ✗ Command failed (exit code 1).
✗ the server went away
✗ failed after 3 steps (exit 1)
`
	if got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

func TestTerminalQuiet(t *testing.T) {
	t.Parallel()
	got := render(Quiet, &Streams{Width: 80, Unicode: true})
	want := `✓ READ_FILE main.go
! reply not in the expected format (1/10): No Tool Choice section.
↻ HTTP 500: boom; retrying in 2s (1/10)
! careful
↓ compressed the conversation: 3,500 → 1,204 tokens
✗ COMMAND go test ./...
✗ the server went away
✗ failed after 3 steps (exit 1)
`
	if got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

func TestTerminalVerbose(t *testing.T) {
	t.Parallel()
	got := render(Verbose, &Streams{Width: 80, Unicode: true})
	for _, want := range []string{
		"    hidden reasoning\n",
		"    Read the file first.\n    Then edit it.\n",
		"    main.go (2 lines)\n    package main\n",
		"    Answer with the template.\n",
		"using it instead of maxContextTokens (131,072) (from GET /props default_generation_settings.n_ctx)\n",
		"the prompt reached about 3,500 tokens, 85% of the 4,096-token context window; compressing the conversation\n",
		"↓ compressed the conversation: 3,500 → 1,204 tokens; window 4,096, 2 tool results or messages shortened to fit the summary request\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("verbose output lacks %q:\n%s", want, got)
		}
	}
}

func TestTerminalASCIIAndNarrow(t *testing.T) {
	t.Parallel()
	got := render(Normal, &Streams{Width: 30, Unicode: false})
	for _, line := range strings.Split(strings.TrimRight(got, "\n"), "\n") {
		for _, r := range line {
			if r > 127 {
				t.Fatalf("non-ASCII %q in %q", r, line)
			}
		}
	}
	if !strings.Contains(got, "> READ_FILE") || !strings.Contains(got, "  ok main.go") || !strings.Contains(got, "v compressed the conversation: 3,500 -> 1,204") {
		t.Errorf("ASCII symbols missing:\n%s", got)
	}
	if !strings.Contains(got, "...") {
		t.Errorf("long lines are not clipped at width 30:\n%s", got)
	}
}

func TestTerminalColour(t *testing.T) {
	t.Parallel()
	if got := render(Normal, &Streams{Width: 80, Unicode: true}); strings.Contains(got, "\x1b[") {
		t.Errorf("escape codes without colour:\n%q", got)
	}
	if got := render(Normal, &Streams{Width: 80, Unicode: true, Color: true}); !strings.Contains(got, "\x1b[31m") || !strings.Contains(got, "\x1b[1;33m▸ READ_FILE") {
		t.Errorf("no colours with Color set:\n%q", got)
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
		{"format_error", []string{"message", "attempt", "max"}},
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
	_ = json.Unmarshal([]byte(lines[7]), &comp)
	if comp.Reason != "threshold" || comp.TokensBefore != 3500 || comp.TokensAfter != 1204 {
		t.Errorf("compression event: %s", lines[7])
	}
	if strings.Contains(buf.String(), "hidden reasoning") {
		t.Errorf("reasoning leaked into JSON")
	}
}

func TestTerminalContextWindow(t *testing.T) {
	t.Parallel()
	emit := func(level Verbosity, e loop.ContextWindow) string {
		var buf bytes.Buffer
		NewTerminal(&Streams{Err: &buf, Width: 200, Unicode: true}, level).Emit(e)
		return buf.String()
	}
	larger := loop.ContextWindow{Window: 8192, Configured: 8192, Server: "vLLM", ServerWindow: 32768, Source: "GET /v1/models max_model_len"}
	unknown := loop.ContextWindow{Window: 131072, Configured: 131072}
	if got := emit(Normal, larger) + emit(Normal, unknown); got != "" {
		t.Errorf("normal mode reports a window that changes nothing: %q", got)
	}
	if got := emit(Verbose, larger); got != "dev: context window 8,192 tokens (maxContextTokens); vLLM reports 32,768 (from GET /v1/models max_model_len)\n" {
		t.Errorf("verbose, larger server window: %q", got)
	}
	if got := emit(Verbose, unknown); got != "dev: context window 131,072 tokens (maxContextTokens); the server did not report its own\n" {
		t.Errorf("verbose, unknown: %q", got)
	}
	smaller := loop.ContextWindow{Window: 4096, Configured: 131072, ServerWindow: 4096, Server: "Ollama"}
	if got := emit(Quiet, smaller); got != "" {
		t.Errorf("quiet mode: %q", got)
	}
}

func auditEvents(v audit.Verdict) []loop.Event {
	return []loop.Event{
		loop.AuditStarted{},
		loop.AuditFinished{Result: audit.Result{Verdict: v, Steps: 2,
			Feedback: "| check | result |\n|---|---|\n| tests | FAIL |\n\nOverall: " + string(v) + "\nAdd the missing test.",
			Transcript: []audit.Step{{Thoughts: "Run the tests.", Calls: []parser.ToolCall{{Name: "COMMAND", Input: "go test ./..."}},
				Results: []tools.Result{{Tool: "COMMAND", OK: true, Output: "ok  example 0.1s"}}}}}},
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
	var ev map[string]any
	if err := json.Unmarshal(buf.Bytes(), &ev); err != nil || ev["type"] != "audit" || ev["verdict"] != "FAIL" || ev["steps"] != 2.0 ||
		!strings.Contains(ev["feedback"].(string), "Add the missing test.") {
		t.Errorf("audit JSON %q (%v)", buf.String(), err)
	}
}
