package parser

import "testing"

func TestTemplate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		r    Response
		want string
	}{
		{
			name: "full",
			r: Response{
				Thoughts:    "Plan.\n\nMore plan.",
				HasTaskList: true,
				Tasks:       []Task{{Complete, "a"}, {InProgress, "b"}, {Pending, "c"}},
				Tools:       []ToolCall{{"WRITE_FILE", "\"a.go\"\n```go\npackage a\n```"}, {"DONE", "ok"}},
				Reasoning:   "not stored",
				Warnings:    []string{"not stored"},
			},
			want: "# Agent Response\n\n## Thoughts\nPlan.\n\nMore plan.\n\n## Task List\n[x] a\n[~] b\n[ ] c\n\n" +
				"## Tool Choice\nWRITE_FILE\n\n## Tool Input\n\"a.go\"\n```go\npackage a\n```\n\n" +
				"## Tool Choice\nDONE\n\n## Tool Input\nok",
		},
		{
			name: "no thoughts, no task list, empty input",
			r:    Response{Tools: []ToolCall{{"LIST_BACKGROUND_PROCESSES", ""}}},
			want: "# Agent Response\n\n## Tool Choice\nLIST_BACKGROUND_PROCESSES\n\n## Tool Input",
		},
		{
			name: "empty task list clears the list",
			r:    Response{Thoughts: "t", HasTaskList: true, Tools: []ToolCall{{"DONE", "x"}}},
			want: "# Agent Response\n\n## Thoughts\nt\n\n## Task List\n\n## Tool Choice\nDONE\n\n## Tool Input\nx",
		},
		{
			name: "unknown status is pending",
			r:    Response{HasTaskList: true, Tasks: []Task{{"weird", "x"}}, Tools: []ToolCall{{"DONE", ""}}},
			want: "# Agent Response\n\n## Task List\n[ ] x\n\n## Tool Choice\nDONE\n\n## Tool Input",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := tt.r.Template(); got != tt.want {
				t.Errorf("Template()\n got  %q\n want %q", got, tt.want)
			}
		})
	}
}

// TestTemplateRoundTrip parses hand-built responses' templates, including
// inputs that look like template sections from inside code blocks.
func TestTemplateRoundTrip(t *testing.T) {
	t.Parallel()
	rs := []Response{
		{Thoughts: "x", Tools: []ToolCall{{"DONE", ""}}},
		{HasTaskList: true, Tools: []ToolCall{{"UPDATE_TASK_LIST", ""}}},
		{Thoughts: "```md\n## Tool Choice\nDONE\n```", Tools: []ToolCall{{"COMMAND", "  indented\n\n\nls"}}},
		{Tools: []ToolCall{
			{"WRITE_FILE", "\"R.md\"\n```markdown\n# Agent Response\n```bash\nx\n```\n## Tool Choice\nDONE\n```"},
			{"COMMAND", "## Thoughts are content here\n# Heading"},
		}},
	}
	for _, r := range rs {
		checkRoundTrip(t, r)
	}
}

func TestTaskLines(t *testing.T) {
	t.Parallel()
	if got := TaskLines(nil); got != "" {
		t.Errorf("no tasks: %q", got)
	}
}
