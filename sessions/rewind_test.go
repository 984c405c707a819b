package sessions

import (
	"reflect"
	"slices"
	"testing"

	"github.com/devagent/dev/checkpoints"
	"github.com/devagent/dev/parser"
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

// Undone follows the line of work through the rewinds: a rewind to the
// checkpoint before a request undoes that request and what its steps did;
// a rewind to the checkpoint a rewind took brings back what that one
// undid; a files-only rewind undoes the files but keeps the requests.
func TestUndone(t *testing.T) {
	t.Parallel()
	cp := func(n int, r checkpoints.Reason) checkpoints.Checkpoint {
		return checkpoints.Checkpoint{Number: n, Reason: r}
	}
	req, tool, rewind := checkpoints.BeforeRequest, checkpoints.AfterTool, checkpoints.BeforeRewind
	first := []checkpoints.Checkpoint{cp(0, req), cp(1, tool), cp(2, req), cp(3, tool), cp(4, rewind), cp(5, req), cp(6, tool)}
	keys := func(m map[int]bool) []int {
		var out []int
		for n := range 10 {
			if m[n] {
				out = append(out, n)
			}
		}
		return out
	}
	for _, tt := range []struct {
		name            string
		checkpoints     []checkpoints.Checkpoint
		rewinds         []Rewind
		files, requests []int
	}{
		{"none", first[:4], nil, nil, nil},
		{"undo the second request", first, []Rewind{{To: 2, From: 4}}, []int{3}, []int{2}},
		{"back to a step", first, []Rewind{{To: 1, From: 4}}, []int{3}, []int{2}},
		{"undo the undo", append(first, cp(7, rewind)), []Rewind{{To: 2, From: 4}, {To: 4, From: 7}}, []int{6}, []int{5}},
		{"two undos in a row", first, []Rewind{{To: 2, From: 4}, {To: 0, From: 4}}, []int{1, 3}, []int{0, 2}},
		{"files only", first, []Rewind{{To: 2, From: 4, FilesOnly: true}}, []int{3}, nil},
	} {
		s := &Session{Checkpoints: tt.checkpoints, Rewinds: tt.rewinds}
		files, requests := s.Undone()
		if got := keys(files); !slices.Equal(got, tt.files) {
			t.Errorf("%s: files undone %v, want %v", tt.name, got, tt.files)
		}
		if got := keys(requests); !slices.Equal(got, tt.requests) {
			t.Errorf("%s: requests undone %v, want %v", tt.name, got, tt.requests)
		}
	}
}
