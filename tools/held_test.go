package tools

import (
	"reflect"
	"testing"

	"github.com/devagent/dev/history"
)

// A result goes into the history and comes back with what the history
// keeps, an accepted DONE still Done.
func TestHeldAndBack(t *testing.T) {
	t.Parallel()
	for _, r := range []Result{
		{Tool: ReadFile, OK: true, Output: "a.go (1 line)\npackage a", Attrs: [][2]string{{"path", "a.go"}}},
		{Tool: Done, OK: true, Done: true, Output: "Finished."},
		{Tool: Done, Output: history.AuditRejection("Overall: FAIL")},
	} {
		e := history.ReadMessage(history.Results(nil, Held([]Result{r}), ""))
		if got := FromHistory(e.Results[0]); !reflect.DeepEqual(got, r) {
			t.Errorf("read back %#v\nwant %#v", got, r)
		}
	}
}
