// Package parser turns a model's reply into the protocol's template: thoughts,
// task list and tool calls, or a precise format error the model can act on.
// It is a pure function of the reply text; it never reads files or prints.
package parser

import "strings"

// Status is the state of one task-list item.
type Status string

// Task-list statuses as stored in sessions and shown to users.
const (
	Pending    Status = "pending"     // [ ]
	InProgress Status = "in-progress" // [~]
	Complete   Status = "complete"    // [x]
)

// Mark is the checkbox the protocol writes for s; an unknown status is
// pending.
func (s Status) Mark() string {
	switch s {
	case Complete:
		return "[x]"
	case InProgress:
		return "[~]"
	default:
		return "[ ]"
	}
}

// Task is one line of the task list, as the protocol, sessions, the audit
// and renderers all know it.
type Task struct {
	Status Status `json:"status"`
	Text   string `json:"text"`
}

// String writes t as the protocol does: "[x] text".
func (t Task) String() string { return t.Status.Mark() + " " + t.Text }

// TaskLines writes a task list in the protocol's notation, one task per line.
func TaskLines(tasks []Task) string {
	lines := make([]string, len(tasks))
	for i, t := range tasks {
		lines[i] = t.String()
	}
	return strings.Join(lines, "\n")
}

// ToolCall is one `Tool Choice` / `Tool Input` pair, in reply order.
type ToolCall struct {
	Name  string `json:"name"`  // the tool's name as the tools spell it: WRITE_FILE, github.create_issue
	Input string `json:"input"` // raw section text, surrounding blank lines trimmed
}

// Response is a successfully parsed reply.
type Response struct {
	Thoughts    string
	Tasks       []Task
	HasTaskList bool // false when the reply had no Task List section
	Tools       []ToolCall
	// Reasoning holds the text of <think> blocks: shown in verbose mode,
	// never stored in history.
	Reasoning string
	// Warnings name each leniency applied (missing H1, lower-case tool, ...),
	// one sentence each, for the user.
	Warnings []string
}

// Masked returns r with mask (e.g. redact.Redactor.Redact) applied to all
// its text: thoughts, tasks, tool inputs, reasoning and warnings. What is
// stored and shown of a reply is its masked copy; its tools run with the
// inputs as written.
func (r Response) Masked(mask func(string) string) Response {
	if mask == nil {
		return r
	}
	r.Thoughts, r.Reasoning = mask(r.Thoughts), mask(r.Reasoning)
	if r.Tasks != nil {
		tasks := make([]Task, len(r.Tasks))
		for i, t := range r.Tasks {
			tasks[i] = Task{Status: t.Status, Text: mask(t.Text)}
		}
		r.Tasks = tasks
	}
	if r.Tools != nil {
		calls := make([]ToolCall, len(r.Tools))
		for i, c := range r.Tools {
			calls[i] = ToolCall{Name: c.Name, Input: mask(c.Input)}
		}
		r.Tools = calls
	}
	if r.Warnings != nil {
		warnings := make([]string, len(r.Warnings))
		for i, w := range r.Warnings {
			warnings[i] = mask(w)
		}
		r.Warnings = warnings
	}
	return r
}

// FormatError is a reply the protocol cannot accept. Message is written for
// the model: what is wrong and how to fix it.
type FormatError struct {
	Message string
}

func (e *FormatError) Error() string { return e.Message }
