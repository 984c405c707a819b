package ui

import (
	"strings"
	"testing"
	"time"

	"github.com/devagent/dev/checkpoints"
)

// Each word of a rewind's preview is pinned to its change kind: the change
// from the present to the checkpoint. It said the opposite once ("write
// back" for a file the rewind deleted).
func TestRewindVerb(t *testing.T) {
	t.Parallel()
	for kind, want := range map[checkpoints.ChangeKind]string{
		checkpoints.Deleted:  "delete",   // created since: the checkpoint lacks it
		checkpoints.Added:    "recreate", // deleted since: the present lacks it
		checkpoints.Modified: "restore",  // changed since
	} {
		if got := RewindVerb(kind); got != want {
			t.Errorf("RewindVerb(%s) = %q, want %q", kind, got, want)
		}
	}
}

func TestRewindPlan(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	RewindPlan(&b, checkpoints.Plan{
		Target: checkpoints.Checkpoint{Number: 3, Time: time.Date(2026, 11, 26, 9, 0, 0, 0, time.Local)},
		Restore: checkpoints.Restore{Changes: []checkpoints.Change{
			{Path: "new.txt", Change: checkpoints.Deleted},
			{Path: "edit.go", Change: checkpoints.Modified},
			{Path: "gone.txt", Change: checkpoints.Added},
			{Path: "theirs.txt", Change: checkpoints.Deleted},
		}},
		Foreign: []checkpoints.Change{{Path: "edit.go", Change: checkpoints.Modified}},
		Others:  []checkpoints.SessionChanges{{Session: "0123abcd-0000-4000-8000-000000000000", Paths: []string{"theirs.txt"}}},
		Before:  checkpoints.Taken{New: true, Checkpoint: checkpoints.Checkpoint{Number: 7, Tree: "t"}},
	}, false, "dev rewind")
	want := `Rewind to checkpoint 3 (2026-11-26 09:00:00):
  delete   new.txt
  restore  edit.go
  recreate gone.txt
  delete   theirs.txt
Changed since the last checkpoint by something other than dev (undone too):
  modified edit.go
Changed by session 0123abcd-0000-4000-8000-000000000000, which a dev is running in this directory now (undone too):
  delete   theirs.txt
The session's history, task list and audits go back to that point too.
Before any file changes, the present is kept as checkpoint 7 (dev rewind 7 undoes this).
`
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
	// A checkpoint of the list holds the present already: it is named.
	b.Reset()
	RewindPlan(&b, checkpoints.Plan{Before: checkpoints.Taken{Checkpoint: checkpoints.Checkpoint{Number: 2, Tree: "t"}}}, true, "/rewind")
	if !strings.HasSuffix(b.String(), "(--files-only).\nCheckpoint 2 holds the present (/rewind 2 undoes this).\n") {
		t.Errorf("got\n%s", b.String())
	}
}
