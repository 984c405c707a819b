// Package interrupt is dev's one path from signals to contexts: Ctrl+C,
// SIGTERM, SIGHUP and a closed stdout cancel the work running, and a
// signal with no work running ends the process. It is process wiring,
// kept out of package main so that main stays thin and this can be
// tested in process.
package interrupt

import (
	"context"
	"errors"
	"io"
	"os"
	"sync"
	"syscall"
)

// Handler is dev's one path from signals to contexts. Ctrl+C (SIGINT)
// cancels the work running: a request, a command, a probe. SIGTERM, SIGHUP
// (a closed terminal, a dropped ssh) and a closed stdout do too, and end
// dev after it. A signal with no work
// running, or a second one before the first was handled, ends dev at once:
// main() exits when Forced() is closed, after CleanUp.
type Handler struct {
	mu      sync.Mutex
	cancel  context.CancelFunc // of the work running, nil when none
	ending  bool
	cleanup []func()

	force     chan struct{}
	forceOnce sync.Once
}

// New returns a Handler; Watch feeds it signals.
func New() *Handler {
	return &Handler{force: make(chan struct{})}
}

// Work returns a context the next signal cancels, and done, to call when
// the work is over.
func (i *Handler) Work(parent context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancel(parent)
	i.mu.Lock()
	i.cancel = cancel
	i.mu.Unlock()
	return ctx, func() {
		i.mu.Lock()
		i.cancel = nil
		i.mu.Unlock()
		cancel()
	}
}

// Ending reports that dev was asked to end once the work running is over.
func (i *Handler) Ending() bool {
	i.mu.Lock()
	defer i.mu.Unlock()
	return i.ending
}

// Watch handles signals until the process ends.
func (i *Handler) Watch(signals <-chan os.Signal) {
	for s := range signals {
		i.interrupt(s == syscall.SIGTERM || s == syscall.SIGHUP)
	}
}

// interrupt cancels the work running; with none, dev must end now. end:
// no work starts after this.
func (i *Handler) interrupt(end bool) {
	i.mu.Lock()
	defer i.mu.Unlock()
	if end {
		i.ending = true
	}
	if i.cancel == nil {
		i.forceOnce.Do(func() { close(i.force) })
		return
	}
	i.cancel()
	i.cancel = nil // the next signal forces
}

// Forced is closed when dev must end at once.
func (i *Handler) Forced() <-chan struct{} { return i.force }

// OnForce registers f to run before a forced exit (stopping the processes
// dev started).
func (i *Handler) OnForce(f func()) {
	i.mu.Lock()
	defer i.mu.Unlock()
	i.cleanup = append(i.cleanup, f)
}

// CleanUp runs, in order, what OnForce registered.
func (i *Handler) CleanUp() {
	i.mu.Lock()
	fs := i.cleanup
	i.mu.Unlock()
	for _, f := range fs {
		f()
	}
}

// WatchOutput wraps stdout so that a reader that went away (dev -p … |
// head -1) stops dev like an interrupt: the session is saved as
// interrupted, never left active.
func (i *Handler) WatchOutput(w io.Writer) io.Writer {
	ignoreBrokenPipe()
	return &stdout{w: w, gone: func() {
		i.mu.Lock()
		defer i.mu.Unlock()
		i.ending = true
		if i.cancel != nil {
			i.cancel()
			i.cancel = nil
		}
	}}
}

// stdout reports, once, that its reader went away.
type stdout struct {
	w    io.Writer
	once sync.Once
	gone func()
}

func (s *stdout) Write(p []byte) (int, error) {
	n, err := s.w.Write(p)
	if errors.Is(err, syscall.EPIPE) {
		s.once.Do(s.gone)
	}
	return n, err
}
