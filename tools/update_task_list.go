package tools

import "github.com/devagent/dev/parser"

import "context"

// UpdateTaskListTool acknowledges a task list change; the loop reads the
// list itself from the reply.
type UpdateTaskListTool struct{}

// Name implements Tool.
func (UpdateTaskListTool) Name() string { return UpdateTaskList }

// Doc implements Tool.
func (UpdateTaskListTool) Doc() Doc {
	return describe(UpdateTaskList, "update_task_list", parser.InputNone, nil)
}

// Check implements Tool: any input is accepted and ignored.
func (UpdateTaskListTool) Check(string) error { return nil }

// Run implements Tool.
func (UpdateTaskListTool) Run(context.Context, *Env, string) Result {
	return Result{Tool: UpdateTaskList, Summary: "task list", OK: true, Output: "Task list updated."}
}
