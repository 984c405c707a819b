package tools

import (
	"context"
	"os"
)

// Action is something a tool is about to do that the user may have to
// approve (SPEC §13 approval modes): a command to start, or a file change.
type Action struct {
	Tool    string
	Command string // a command line, for COMMAND and custom tools
	// Input is the tool's input as the model wrote it; for an MCP call
	// (MCP true) its JSON arguments.
	Input string
	MCP   bool
	// For a file change: the path as shown to the model, the absolute
	// path, and the file's content before (Existed false: a new file) and
	// after.
	Path, Abs string
	Existed   bool
	Old, New  string
}

// Verdict is the answer to an Action.
type Verdict struct {
	Allowed bool
	// Why is told to the model when the action was not allowed: the user's
	// reason, or why nobody could be asked.
	Why string
}

// approve asks env's Approve, if any, about a; nil approves everything.
func (e *Env) approve(ctx context.Context, a Action) Verdict {
	if e == nil || e.Approve == nil {
		return Verdict{Allowed: true}
	}
	return e.Approve(ctx, a)
}

// approveChange asks about writing content to abs, with what it holds now.
func (e *Env) approveChange(ctx context.Context, tool, disp, abs, content string) Verdict {
	if e.Approve == nil {
		return Verdict{Allowed: true}
	}
	old, err := os.ReadFile(abs)
	return e.approve(ctx, Action{Tool: tool, Path: disp, Abs: abs, Existed: err == nil, Old: string(old), New: content})
}
