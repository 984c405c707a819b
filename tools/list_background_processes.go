package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/devagent/dev/parser"
	"github.com/devagent/dev/textfmt"
)

// ListBackground is the tool's name, as the protocol spells it.
const ListBackground = "LIST_BACKGROUND_PROCESSES"

// ListBackgroundTool lists the background processes.
type ListBackgroundTool struct{}

// Name implements Tool.
func (ListBackgroundTool) Name() string { return ListBackground }

// Doc implements Tool.
func (ListBackgroundTool) Doc() Doc {
	return describe(ListBackground, "list_background_processes", parser.InputNone, ReachNothing, nil)
}

// Check implements Tool: any input is accepted and ignored.
func (t ListBackgroundTool) Check(input string) (Checked, error) {
	return Bind(input, AsWritten, t.run)
}

func (ListBackgroundTool) run(_ context.Context, env *Env, _ string) Result {
	res := Result{Tool: ListBackground, Summary: "background processes", OK: true}
	if env.Background == nil {
		res.Output = "No background processes."
		return res
	}
	list := env.Background.List()
	if len(list) == 0 {
		res.Output = "No background processes."
		return res
	}
	var b strings.Builder
	for _, i := range list {
		fmt.Fprintf(&b, "%s (%s", i.ID, procState(i))
		if i.Unread > 0 {
			fmt.Fprintf(&b, ", %s unread", textfmt.Size(i.Unread))
		}
		fmt.Fprintf(&b, "): %s\n", textfmt.Summary(i.Command, 100))
	}
	res.Output = strings.TrimSuffix(b.String(), "\n")
	return res
}
