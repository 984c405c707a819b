package main

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/devagent/dev/app"
	"github.com/devagent/dev/commands"
	"github.com/devagent/dev/config"
	"github.com/devagent/dev/sessions"
)

func TestExitCode(t *testing.T) {
	t.Parallel()
	tests := []struct {
		err  error
		want int
	}{
		{nil, 0},
		{&commands.UsageError{Msg: "bad"}, 2},
		{&config.Error{Path: "config.json", Key: "maxLoops"}, 2},
		{fmt.Errorf("session x: %w", sessions.ErrInUse), 2},
		{fmt.Errorf("x: %w", sessions.ErrNotFound), 2},
		{fmt.Errorf("nothing to resume: %w", sessions.ErrNoSession), 2},
		{sessions.ErrBadID, 2},
		{fmt.Errorf("sandbox: workspace: %w: kernel too old", app.ErrSandbox), 2},
		{&commands.ExitError{Code: 4}, 4},
		{fmt.Errorf("writing: %w", context.Canceled), 130},
		{context.Canceled, 130},
		{errors.New("disk full"), 1},
	}
	for _, tt := range tests {
		if got := exitCode(tt.err); got != tt.want {
			t.Errorf("exitCode(%v) = %d, want %d", tt.err, got, tt.want)
		}
	}
}
