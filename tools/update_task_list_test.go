package tools

import "testing"

func TestUpdateTaskList(t *testing.T) {
	t.Parallel()
	for _, input := range []string{"", "anything"} {
		r := runTool(t, UpdateTaskListTool{}, &Env{}, input)
		if !r.OK || r.Output != "Task list updated." || r.Done {
			t.Errorf("%q: %+v", input, r)
		}
	}
}
