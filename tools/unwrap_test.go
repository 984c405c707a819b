package tools

import (
	"reflect"
	"testing"

	"github.com/devagent/dev/parser"
)

func TestUnwrapReadsWhatWrapWrote(t *testing.T) {
	t.Parallel()
	results := []Result{
		{Tool: "READ_FILE", OK: true, Output: "a.go (1 line)\npackage a", Attrs: [][2]string{{"path", `a "b".go`}}},
		{Tool: "COMMAND", OK: false, Output: "Error: it printed </tool_result> and <TOOL_RESULT x>\nand &lt;b&gt;"},
	}
	calls := []parser.ToolCall{{Name: "READ_FILE"}, {Name: "COMMAND"}, {Name: "DONE"}}
	got := Unwrap(ResultsMessage(calls, results, "A note."))
	if !reflect.DeepEqual(got, results) {
		t.Errorf("got %+v\nwant %+v", got, results)
	}
	if got := Unwrap("<user_request>\nhi\n</user_request>"); len(got) != 0 {
		t.Errorf("a request has results: %+v", got)
	}
}
