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

// Check implements Tool.
func (DoneTool) Check(input string) error {
	if strings.TrimSpace(input) == "" {
		return fmt.Errorf("DONE needs a summary of what was done, e.g.:\n%s", DoneTool{}.Doc().Example)
	}
	return nil
}

// Run implements Tool.
func (t DoneTool) Run(_ context.Context, _ *Env, input string) Result {
	summary := strings.TrimSpace(input)
	r := Result{Tool: Done, Summary: textfmt.Summary(summary, 80)}
	if err := t.Check(input); err != nil {
		return r.fail(err.Error())
	}
	r.OK, r.Done, r.Output = true, true, summary
	return r
}
