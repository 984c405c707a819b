package prompts

import (
	"strings"
	"testing"
)

// The JSON form's text shows the object, the statuses, the bound of the
// calls and every tool's fields, optional ones marked.
func TestJSONForm(t *testing.T) {
	got := JSONForm([]JSONTool{{Name: "READ_FILE", Fields: []JSONField{{"path", false}, {"lines", true}}},
		{Name: "UPDATE_TASK_LIST"}, {Name: "DONE", Fields: []JSONField{{"summary", false}}}}, 4)
	for _, want := range []string{`{"thoughts": "...", "tasks": [{"status": "pending", "text": "..."}], "calls": [{"tool": "TOOL_NAME"`,
		"pending, in-progress or complete", "1 to 4 tools", `- READ_FILE: "path", "lines" (optional)` + "\n",
		"- UPDATE_TASK_LIST: no other field\n", `- DONE: "summary"` + "\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("the JSON form's text lacks %q:\n%s", want, got)
		}
	}
}
