package doctor_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/devagent/dev/doctor"
)

// The snapshots check gives what checkpoints cost in the working
// directory, and warns where they cost more than SPEC §12 allows or
// cannot work.
func TestCheckpointsCheck(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // no server needed
	big := project
	big.Files, big.Dirs, big.Took = 1_500_000, 20_000, 9*time.Second
	partial := project
	partial.Partial = true
	tooBig := project
	tooBig.Bytes = 3 << 30
	unwatched := project
	unwatched.WatchLimit, unwatched.WatchWhy = 0, "watching directories needs Linux's inotify"
	overLimit := project
	overLimit.WatchLimit = 10
	tests := []struct {
		name   string
		cp     doctor.Checkpoints
		status doctor.Status
		detail []string
	}{
		{"off", doctor.Checkpoints{}, doctor.OK, []string{"off (checkpoints: false)"}},
		{"a project", project, doctor.OK, []string{"1,234 files (3.0 MB) in 56 directories", "about 12 ms", "only the directories that changed"}},
		{"a home directory", big, doctor.Warn, []string{"1,500,000 files", "about 9.0 s"}},
		{"cut short", partial, doctor.Warn, []string{"more than 1,234 files"}},
		{"too many bytes", tooBig, doctor.Warn, []string{"3072.0 MB", "checkpoints will be off there"}},
		{"no watcher", unwatched, doctor.OK, []string{"reads every directory again (watching directories needs Linux's inotify): 12 ms"}},
		{"past the watch limit", overLimit, doctor.OK, []string{"more than the 10 inotify watches allowed"}},
		{"unreadable", doctor.Checkpoints{On: true, Dir: "/x", Err: "permission denied"}, doctor.Warn, []string{"/x cannot be walked (permission denied)"}},
	}
	for _, tt := range tests {
		cfg := doctor.Config{APIURL: "http://127.0.0.1:1/v1", Sends: sends(), File: configFile, FileFound: true, Safety: safety, Checkpoints: tt.cp}
		c := check(t, doctor.Run(ctx, cfg), doctor.CheckCheckpoints)
		if c.Status != tt.status {
			t.Errorf("%s: status %s, want %s: %+v", tt.name, c.Status, tt.status, c)
		}
		for _, want := range tt.detail {
			if !strings.Contains(c.Detail, want) {
				t.Errorf("%s: %q does not say %q", tt.name, c.Detail, want)
			}
		}
		if (c.Status == doctor.Warn) != (c.Fix != "") && tt.cp.Err == "" {
			t.Errorf("%s: fix %q", tt.name, c.Fix)
		}
	}
}
