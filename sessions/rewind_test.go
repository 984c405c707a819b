package sessions

import (
	"github.com/devagent/dev/parser"
	"reflect"
	"testing"
)

// A session cut back to a checkpoint's state has the history, task list,
// audits and compressions it had then, and keeps what it spent.
func TestCheckpointStateRoundTrip(t *testing.T) {
	t.Parallel()
	then := fullSession()
	st := then.CheckpointState()
	if len(st.Messages) != len(then.History) {
		t.Fatalf("%d messages kept, history has %d", len(st.Messages), len(then.History))
	}

	now := fullSession()
	now.History = append(now.History, now.History...)
	now.TaskList = []parser.Task{{Status: "complete", Text: "all done"}}
	now.Audits = nil
	now.Compressions = append(now.Compressions, now.Compressions...)
	now.CompressionCount = 2
	now.TotalTokens = 99999
	if err := now.RestoreCheckpointState(st); err != nil {
		t.Fatal(err)
	}
	want := fullSession()
	want.TotalTokens = 99999
	if !reflect.DeepEqual(inUTC(now), inUTC(want)) {
		t.Errorf("after the restore:\n%+v\nwant\n%+v", now, want)
	}

	empty := &Session{}
	if err := empty.RestoreCheckpointState((&Session{}).CheckpointState()); err != nil || empty.History == nil || empty.TaskList == nil {
		t.Errorf("an empty state: %v, %+v", err, empty)
	}
	before := fullSession()
	bad := before.CheckpointState()
	bad.Messages[1] = []byte("{not json")
	if err := before.RestoreCheckpointState(bad); err == nil || !reflect.DeepEqual(before, fullSession()) {
		t.Errorf("a corrupt state: %v; the session changed: %v", err, !reflect.DeepEqual(before, fullSession()))
	}
}
