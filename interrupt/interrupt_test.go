package interrupt

import (
	"context"
	"fmt"
	"os"
	"syscall"
	"testing"
)

// closed reports whether ch is closed, without waiting.
func closed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

func TestCtrlCCancelsTheWorkThenForces(t *testing.T) {
	t.Parallel()
	h := New()
	ctx, done := h.Work(context.Background())
	h.interrupt(false)
	if ctx.Err() == nil || closed(h.Forced()) || h.Ending() {
		t.Fatalf("the first Ctrl+C: ctx %v, forced %v, ending %v", ctx.Err(), closed(h.Forced()), h.Ending())
	}
	// The work has not noticed yet: a second Ctrl+C ends dev at once.
	h.interrupt(false)
	if !closed(h.Forced()) {
		t.Error("a second Ctrl+C did not force the end")
	}
	done()
}

func TestCtrlCWithNoWorkForces(t *testing.T) {
	t.Parallel()
	h := New()
	_, done := h.Work(context.Background())
	done() // the work is over: the next signal has nothing to cancel
	h.interrupt(false)
	if !closed(h.Forced()) {
		t.Error("Ctrl+C with no work running did not force the end")
	}
}

// SIGTERM and SIGHUP cancel the work and ask dev to end after it; SIGINT
// only cancels.
func TestWatch(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		sig    os.Signal
		ending bool
	}{{os.Interrupt, false}, {syscall.SIGTERM, true}, {syscall.SIGHUP, true}} {
		h := New()
		ctx, done := h.Work(context.Background())
		signals := make(chan os.Signal)
		watched := make(chan struct{})
		go func() { h.Watch(signals); close(watched) }()
		signals <- tt.sig
		close(signals)
		<-watched
		if ctx.Err() == nil || h.Ending() != tt.ending || closed(h.Forced()) {
			t.Errorf("%v: ctx %v, ending %v, forced %v", tt.sig, ctx.Err(), h.Ending(), closed(h.Forced()))
		}
		done()
	}
}

func TestCleanUpRunsWhatWasRegistered(t *testing.T) {
	t.Parallel()
	h := New()
	var ran []string
	h.OnForce(func() { ran = append(ran, "restore the terminal") })
	h.OnForce(func() { ran = append(ran, "kill the processes") })
	h.CleanUp()
	if fmt.Sprint(ran) != "[restore the terminal kill the processes]" {
		t.Errorf("ran %q", ran)
	}
}

// brokenPipe is a stdout whose reader went away.
type brokenPipe struct{ writes int }

func (b *brokenPipe) Write(p []byte) (int, error) {
	b.writes++
	return 0, &os.PathError{Op: "write", Path: "/dev/stdout", Err: syscall.EPIPE}
}

func TestAClosedStdoutEndsDevLikeSIGTERM(t *testing.T) {
	t.Parallel()
	h := New()
	pipe := &brokenPipe{}
	out := h.WatchOutput(pipe)
	ctx, done := h.Work(context.Background())
	defer done()
	if _, err := fmt.Fprintln(out, "answer"); err == nil {
		t.Error("the write's error was swallowed")
	}
	if ctx.Err() == nil || !h.Ending() || closed(h.Forced()) {
		t.Errorf("after EPIPE: ctx %v, ending %v, forced %v", ctx.Err(), h.Ending(), closed(h.Forced()))
	}
	fmt.Fprintln(out, "more") // reported once: no panic, no second cancel
	if pipe.writes != 2 {
		t.Errorf("%d writes reached stdout, want 2", pipe.writes)
	}
}
