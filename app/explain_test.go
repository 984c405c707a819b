package app

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/devagent/dev/config"
	"github.com/devagent/dev/history"
	"github.com/devagent/dev/llm"
	"github.com/devagent/dev/loop"
	"github.com/devagent/dev/mention"
	"github.com/devagent/dev/parser"
	"github.com/devagent/dev/sessions"
	"github.com/devagent/dev/step"
	"github.com/devagent/dev/tools"
)

func TestOutcomeCode(t *testing.T) {
	t.Parallel()
	tests := map[loop.Stop]int{
		loop.Done: 0, loop.Failed: 1, loop.AuditFailed: 3, loop.MaxLoops: 4, loop.FormatFailed: 5, loop.Looping: 5, loop.Interrupted: 130,
	}
	for stop, want := range tests {
		if got := exitCode(loop.Outcome{Stop: stop}); got != want {
			t.Errorf("stop %d: exit %d, want %d", stop, got, want)
		}
	}
}

func TestExplainError(t *testing.T) {
	t.Parallel()
	cfg := config.Default()
	cfg.Model = "big"
	err := &llm.Error{Kind: llm.KindModelNotFound, Models: []string{"a", "b"}}
	if got, want := explainError(err, cfg, "/c/config.json"), `the server at http://localhost:8005/v1 has no model "big"; it offers: a, b. Set model in /c/config.json, DEV_MODEL or --model.`; got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	wrapped := fmt.Errorf("%w after 4 attempts: %w", llm.ErrRetriesExhausted, &llm.Error{Kind: llm.KindUnreachable, Message: "connection refused"})
	if got, want := explainError(wrapped, cfg, "/c/config.json"), "gave up after repeated failures: cannot reach the model server at http://localhost:8005/v1 (connection refused). "+
		"Fix: start it (no server yet? the README's quick start runs one with scripts/llama-server.sh, from dev's checkout), or set apiUrl in /c/config.json or DEV_API_URL; dev doctor checks the setup."; got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestExplainContextErrors(t *testing.T) {
	t.Parallel()
	cfg := config.Default()
	cfg.CompressModel = "summariser"
	tooSmall := fmt.Errorf("%w: %w", step.ErrContextTooSmall, &llm.Error{Kind: llm.KindOverflow, ContextLimit: 4096, PromptTokens: 4390})
	got := explainError(tooSmall, cfg, "/c/config.json")
	for _, want := range []string{"4390 tokens for a window of 4096", "-c", "OLLAMA_CONTEXT_LENGTH", "--max-model-len", "maxContextTokens in /c/config.json"} {
		if !strings.Contains(got, want) {
			t.Errorf("overflow explanation lacks %q: %s", want, got)
		}
	}
	maxTokens := &llm.Error{Kind: llm.KindOverflow, ContextLimit: 2048, PromptTokens: 8, MaxTokensCause: true}
	if got := explainError(maxTokens, cfg, "/c/config.json"); !strings.Contains(got, "Lower or remove maxTokens in /c/config.json") || strings.Contains(got, "maxContextTokens") {
		t.Errorf("max_tokens explanation: %s", got)
	}
	noModel := fmt.Errorf("%w: %w", step.ErrCompression, &llm.Error{Kind: llm.KindModelNotFound, Models: []string{"a"}})
	if got := explainError(noModel, cfg, "/c/config.json"); !strings.Contains(got, `no model "summariser" to compress`) || !strings.Contains(got, "Set compressModel") {
		t.Errorf("unknown compressModel: %s", got)
	}
}

// The system prompt is paid on every request by every user: this budget
// keeps it from growing unnoticed. Raise it only for a reason worth tokens.
func TestSystemPromptBudget(t *testing.T) {
	t.Parallel()
	const budgetTokens = 880
	dir := t.TempDir()
	for _, automated := range []bool{true, false} {
		a := &App{opts: Options{ConfigDir: t.TempDir(), Automated: automated}, sess: &sessions.Session{WorkingDirectory: dir}}
		prompt := a.systemPrompt(tools.Worker())
		tokens := len(prompt) / 4
		t.Logf("automated=%v: system prompt %d chars, ~%d tokens (chars/4)", automated, len(prompt), tokens)
		if tokens > budgetTokens {
			t.Errorf("automated=%v: system prompt is ~%d tokens, over the budget of %d", automated, tokens, budgetTokens)
		}
	}
}

// The last exchange is the last request and the DONE summary that ended
// it, or the question the model asked last; never the model's thoughts
// (before, a request interrupted mid-work showed its last Thoughts as the
// "last answer").
func TestLastExchange(t *testing.T) {
	t.Parallel()
	done := "# Agent Response\n\n## Thoughts\nFinished.\n\n## Tool Choice\nDONE\n\n## Tool Input\nAdded the flag."
	step := "# Agent Response\n\n## Thoughts\nRead main.go next.\n\n## Tool Choice\nREAD_FILE\n\n## Tool Input\nmain.go"
	ask := "# Agent Response\n\n## Thoughts\nI need to know.\n\n## Tool Choice\nASK_USER\n\n## Tool Input\nWhich name should it have?"
	h := []llm.Message{
		history.Request("first"),
		{Role: "assistant", Content: done},
		history.Request("add a flag"),
		{Role: "assistant", Content: done},
	}
	if ex := lastExchange(h); ex.request != "add a flag" || ex.answer != "Added the flag." || ex.asked || len(ex.recent) != 2 {
		t.Errorf("got %+v", ex)
	}
	attached, _ := mention.Expand(t.TempDir(), "look at @a.txt")
	if ex := lastExchange([]llm.Message{history.Request(attached)}); ex.typed != "look at @a.txt" {
		t.Errorf("a request naming a missing file: got %+v", ex)
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("one\ntwo\n"), 0o600)
	attached, _ = mention.Expand(dir, "look at @a.txt")
	if ex := lastExchange([]llm.Message{history.Request(attached)}); ex.typed != "look at @a.txt\nattached a.txt (2 lines)" || ex.request != attached {
		t.Errorf("a request with a file attached: got %+v", ex)
	}
	h = append(h, history.Request("now tests"), llm.Message{Role: "assistant", Content: step},
		history.Results([]parser.ToolCall{{Name: "READ_FILE", Input: "main.go"}}, []history.ToolResult{{Tool: "READ_FILE", OK: true, Output: "package main"}}, ""))
	if ex := lastExchange(h); ex.request != "now tests" || ex.answer != "" || len(ex.recent) != 3 {
		t.Errorf("interrupted mid-work: got %+v", ex)
	}
	h = append(h, llm.Message{Role: "assistant", Content: ask}, history.InterruptedStep(nil, nil))
	if ex := lastExchange(h); ex.answer != "Which name should it have?" || !ex.asked {
		t.Errorf("a question: got %+v", ex)
	}
	compressed := []llm.Message{history.Compressed{Summary: "Read it.", Original: "first", Current: "now tests"}.Message(), {Role: "assistant", Content: done}}
	if ex := lastExchange(compressed); ex.request != "now tests" || ex.answer != "Added the flag." {
		t.Errorf("compressed: got %+v", ex)
	}
	if ex := lastExchange(nil); ex.request != "" || ex.answer != "" || ex.recent != nil {
		t.Errorf("empty: got %+v", ex)
	}
}

// A run that ends on format errors names what would help, in order: the
// server shaping the replies, a larger cap for replies that ran to it
// (naming maxTokens), a stronger model.
func TestExplainFormat(t *testing.T) {
	t.Parallel()
	o := loop.Outcome{Stop: loop.FormatFailed, FormatErrors: 11, CutReplies: 11, CutLimit: 400}
	got := explainFormat(o, false, true, "/c/config.json")
	for _, want := range []string{"11 format errors, 11 of them cut off at the output limit of 400 tokens", "constrain on in /c/config.json", "raise maxTokens in /c/config.json", "a stronger model"} {
		if !strings.Contains(got, want) {
			t.Errorf("explanation lacks %q: %s", want, got)
		}
	}
	if strings.Index(got, "constrain") > strings.Index(got, "maxTokens") || strings.Index(got, "maxTokens") > strings.Index(got, "stronger") {
		t.Errorf("fixes out of order: %s", got)
	}
	plain := explainFormat(loop.Outcome{Stop: loop.FormatFailed, FormatErrors: 3}, true, false, "/c/config.json")
	if strings.Contains(plain, "constrain") || strings.Contains(plain, "maxTokens") || !strings.Contains(plain, "stronger model") {
		t.Errorf("constrained, nothing cut: %s", plain)
	}
}
