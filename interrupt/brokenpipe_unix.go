//go:build unix

package interrupt

import (
	"os"
	"os/signal"
	"syscall"
)

// ignoreBrokenPipe makes a write to a closed stdout fail with EPIPE instead
// of killing dev with SIGPIPE, so that dev can save the session first.
// The signal is caught, not ignored: an ignored signal stays ignored in the
// commands dev runs, and pipelines there rely on it. What arrives is
// dropped (the channel is never read; delivery does not block): stdout's
// writer notices EPIPE itself, and a SIGPIPE from another pipe (a tool's
// stdin) is no reason to stop.
func ignoreBrokenPipe() { signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE) }
