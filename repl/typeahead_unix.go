//go:build linux || darwin

package repl

import (
	"errors"
	"os"
	"sync"

	"golang.org/x/sys/unix"
	"golang.org/x/term"
)

// maxTypeahead bounds what is kept of text typed while dev works.
const maxTypeahead = 64 << 10

// ttyAhead reads the terminal while dev works: echo and line buffering
// off (keys arrive at once and show nowhere), signals on (Ctrl+C is still
// SIGINT). A pipe wakes the reader when the prompt comes back.
type ttyAhead struct {
	fd int

	mu    sync.Mutex // guards on, saved, wake, done
	on    bool
	saved unix.Termios
	wake  *os.File
	done  chan struct{}

	bufMu sync.Mutex
	buf   []byte
}

func newTypeahead() typeahead {
	fd := int(os.Stdin.Fd())
	if !term.IsTerminal(fd) {
		return noAhead{}
	}
	return &ttyAhead{fd: fd}
}

func (t *ttyAhead) start() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.on {
		return
	}
	tio, err := unix.IoctlGetTermios(t.fd, getTermios)
	if err != nil {
		return
	}
	t.saved = *tio
	quiet := *tio
	quiet.Lflag &^= unix.ECHO | unix.ICANON
	quiet.Lflag |= unix.ISIG
	quiet.Cc[unix.VMIN], quiet.Cc[unix.VTIME] = 1, 0
	r, w, err := os.Pipe()
	if err != nil {
		return
	}
	if err := unix.IoctlSetTermios(t.fd, setTermios, &quiet); err != nil {
		r.Close()
		w.Close()
		return
	}
	t.on, t.wake, t.done = true, w, make(chan struct{})
	go t.read(r, t.done)
}

func (t *ttyAhead) read(wake *os.File, done chan struct{}) {
	defer close(done)
	defer wake.Close()
	buf := make([]byte, 1024)
	fds := []unix.PollFd{
		{Fd: int32(t.fd), Events: unix.POLLIN},
		{Fd: int32(wake.Fd()), Events: unix.POLLIN},
	}
	for {
		if _, err := unix.Poll(fds, -1); err != nil {
			if errors.Is(err, unix.EINTR) {
				continue
			}
			return
		}
		if fds[1].Revents != 0 {
			// The prompt is back: keep what was typed up to now, which
			// may have come with the wake-up, before the terminal's
			// settings change under it.
			t.drain(buf)
			return
		}
		if fds[0].Revents&unix.POLLIN != 0 {
			n, err := unix.Read(t.fd, buf)
			if n > 0 {
				t.keep(buf[:n])
			}
			if err != nil && !errors.Is(err, unix.EINTR) && !errors.Is(err, unix.EAGAIN) || n == 0 && err == nil {
				return
			}
			continue
		}
		if fds[0].Revents&(unix.POLLHUP|unix.POLLERR|unix.POLLNVAL) != 0 {
			return
		}
	}
}

// drain keeps whatever input is waiting, without blocking.
func (t *ttyAhead) drain(buf []byte) {
	for {
		ready := []unix.PollFd{{Fd: int32(t.fd), Events: unix.POLLIN}}
		if n, err := unix.Poll(ready, 0); err != nil || n == 0 || ready[0].Revents&unix.POLLIN == 0 {
			return
		}
		n, err := unix.Read(t.fd, buf)
		if n <= 0 || err != nil {
			return
		}
		t.keep(buf[:n])
	}
}

// keep adds typed bytes to the buffer, up to maxTypeahead.
func (t *ttyAhead) keep(b []byte) {
	t.bufMu.Lock()
	defer t.bufMu.Unlock()
	if len(t.buf)+len(b) <= maxTypeahead {
		t.buf = append(t.buf, b...)
	}
}

// stop ends the reading and gives the terminal its settings back.
func (t *ttyAhead) stop() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.on {
		return
	}
	_, _ = t.wake.Write([]byte{0})
	<-t.done
	t.wake.Close()
	_ = unix.IoctlSetTermios(t.fd, setTermios, &t.saved)
	t.on = false
}

func (t *ttyAhead) take() string {
	t.bufMu.Lock()
	defer t.bufMu.Unlock()
	s := typedText(t.buf)
	t.buf = t.buf[:0]
	return s
}

func (t *ttyAhead) pause() (resume func()) {
	t.mu.Lock()
	on := t.on
	t.mu.Unlock()
	if !on {
		return func() {}
	}
	t.stop()
	return t.start
}
