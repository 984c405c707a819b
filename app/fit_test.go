package app

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/rivo/uniseg"

	"github.com/devagent/dev/config"
	"github.com/devagent/dev/event"
	"github.com/devagent/dev/llm"
	"github.com/devagent/dev/loop"
	"github.com/devagent/dev/step"
	"github.com/devagent/dev/ui"
)

// The messages a run ends with, or starts with, fit the terminal at 80
// columns and at 60, wrapped between words (SPEC §17: every text fits).
func TestMessagesFitTheTerminal(t *testing.T) {
	t.Parallel()
	cfg := config.Default()
	cfg.CompressModel = "summariser"
	path := "/home/ada/.config/dev/config.json"
	msgs := []string{
		unreachable(cfg.APIURL, "dial tcp 127.0.0.1:8005: connect: connection refused", path),
		explainError(fmt.Errorf("%w: %w", llm.ErrRetriesExhausted, &llm.Error{Kind: llm.KindUnreachable, Message: "connection refused"}), cfg, path),
		explainError(&llm.Error{Kind: llm.KindAuth, Status: 401, Message: "invalid api key"}, cfg, path),
		explainError(&llm.Error{Kind: llm.KindModelNotFound, Models: []string{"qwen3-coder-30b-a3b-instruct", "gemma-3-27b-it"}}, cfg, path),
		explainError(fmt.Errorf("%w: %w", step.ErrCompression, &llm.Error{Kind: llm.KindModelNotFound}), cfg, path),
		explainError(fmt.Errorf("%w: %w", step.ErrContextTooSmall, &llm.Error{Kind: llm.KindOverflow, ContextLimit: 4096, PromptTokens: 4390}), cfg, path),
		explainError(&llm.Error{Kind: llm.KindOverflow, MaxTokensCause: true, ContextLimit: 4096, PromptTokens: 4000}, cfg, path),
		explainFormat(loop.Outcome{FormatErrors: 6, CutReplies: 3, CutLimit: 1024}, false, false, path),
	}
	for _, width := range []int{80, 60} {
		var buf bytes.Buffer
		term := ui.NewTerminal(&ui.Streams{Err: &buf, ErrTTY: true, Width: width, Unicode: true}, ui.Normal)
		for _, m := range msgs {
			term.Emit(event.Failure{Message: m})
			term.Emit(event.Warning{Message: m})
			term.Emit(event.Notice{Message: m})
		}
		for _, l := range strings.Split(strings.TrimRight(buf.String(), "\n"), "\n") {
			if n := uniseg.StringWidth(l); n >= width {
				t.Errorf("%d columns: a line of %d:\n%s", width, n, l)
			}
		}
		if !strings.Contains(buf.String(), "scripts/llama-server.sh") {
			t.Errorf("the message was lost:\n%s", buf.String())
		}
	}
}
