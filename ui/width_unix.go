//go:build unix

package ui

import (
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"

	"golang.org/x/term"
)

// watchWidth follows the width of the terminal on fd: the kernel sends
// SIGWINCH when the window is resized, and the width is read again then, so
// that frames drawn afterwards fit the new width.
func watchWidth(fd, initial int) func() int {
	var width atomic.Int64
	width.Store(int64(initial))
	resized := make(chan os.Signal, 1)
	signal.Notify(resized, syscall.SIGWINCH)
	go func() {
		for range resized {
			if w, _, err := term.GetSize(fd); err == nil && w > 0 {
				width.Store(int64(w))
			}
		}
	}()
	return func() int { return int(width.Load()) }
}
