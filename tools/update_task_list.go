package tools

import (
	"context"

	"github.com/devagent/dev/parser"
)

// UpdateTaskList is the tool's name, as the protocol spells it.
const UpdateTaskList = "UPDATE_TASK_LIST"

// UpdateTaskListTool acknowledges a task list change; the loop reads the
// list itself from the reply.
type UpdateTaskListTool struct{}

// Name implements Tool.
func (UpdateTaskListTool) Name() string { return UpdateTaskList }

// Doc implements Tool.
func (UpdateTaskListTool) Doc() Doc {
	return describe(UpdateTaskList, "update_task_list", parser.InputNone, ReachNothing, nil)
}

// Check implements Tool: any input is accepted and ignored.
func (t UpdateTaskListTool) Check(input string) (Checked, error) {
	return Bind(input, AsWritten, t.run)
}

func (UpdateTaskListTool) run(context.Context, *Env, string) Result {
	return Result{Tool: UpdateTaskList, Summary: "task list", OK: true, Output: "Task list updated."}
}
