package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/devagent/dev/parser"
	"github.com/devagent/dev/textfmt"
)

// Done is the tool's name, as the protocol spells it.
const Done = "DONE"

// DoneTool ends the work; its input is the summary for the user.
type DoneTool struct{}

// Name implements Tool.
func (DoneTool) Name() string { return Done }

// Doc implements Tool.
func (DoneTool) Doc() Doc { return describe(Done, "done", parser.InputText, ReachNothing, nil) }

// readSummary reads DONE's input: the summary.
func readSummary(input string) (string, error) {
	if summary := strings.TrimSpace(input); summary != "" {
		return summary, nil
	}
	return "", fmt.Errorf("DONE needs a summary of what was done, e.g.:\n%s", DoneTool{}.Doc().Example)
}

// Check implements Tool.
func (t DoneTool) Check(input string) (Checked, error) {
	return Bind(input, readSummary, t.run)
}

func (DoneTool) run(_ context.Context, _ *Env, summary string) Result {
	return Result{Tool: Done, Summary: textfmt.Summary(summary, 80), OK: true, Done: true, Output: summary}
}
