// Package ui renders loop events for people and programs: the terminal
// renderer (progress on stderr, spinner and colours only on a terminal) and
// the JSON-lines renderer; and dev doctor's report, as text or JSON. It
// owns the process's streams and their terminal-ness; nothing else in dev
// writes to the terminal.
//
// The live part (live.go) draws its own spinner rather than use
// github.com/briandowns/spinner, which the design named. The spinner is one
// line of a part that also shows streamed thoughts or a command's last
// lines under a line of elapsed time and tokens, and v1.23.2 cannot carry
// that: it draws from a goroutine of its own under a lock of its own, and
// only Stop erases what it drew (erase is unexported), so each step line,
// box or question printed meanwhile means Stop and Start (a new goroutine,
// the cursor hidden and shown); it measures the width of fd 0 (stdin, not
// the stream it writes to) and counts a character's bytes as its columns,
// so its multi-line erase takes too many rows with non-ASCII text (erasing
// lines printed above it) and too few when stdin is not a terminal (a
// prompt piped in); it erases with escape codes even where dev promises
// none (TERM=dumb, NO_COLOR); and it draws nothing unless its writer is an
// *os.File on a terminal, so the live part could not be tested with
// buffers. Its one reusable piece, the frames (⠋⠙⠹…, |/-\), is two lines of
// live.go.
package ui

import (
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"

	"github.com/fatih/color"
	"golang.org/x/term"
)

// Streams are the process's standard streams and what is known about them.
type Streams struct {
	In  io.Reader
	Out io.Writer
	Err io.Writer

	InTTY, OutTTY, ErrTTY bool
	Color                 bool // colour on stderr
	OutColor              bool // colour on stdout (a command's own output, e.g. dev doctor's report)
	Unicode               bool // the locale can show box-drawing and braille characters
	Width                 int  // of the terminal on stderr when dev started; 80 when unknown
	// WidthNow is the width of the terminal on stderr now: it follows a
	// resize. Nil: Width.
	WidthNow func() int
	// OutWidth is the width tables on stdout fit: $COLUMNS when set, else
	// the width of the terminal on stdout; 0 (no limit) when stdout is a
	// pipe or a file, so that scripts get whole cells.
	OutWidth int
	// HeightNow is the height of the terminal on stderr now; nil, or 0,
	// when it is not known.
	HeightNow func() int
}

// defaultHeight is the height of a screen when the terminal's is not
// known: what a resumed session shows of itself is still a screen at most.
const defaultHeight = 24

// TermHeight is the number of rows of the terminal now, or a common
// screen's when it is not known.
func (s *Streams) TermHeight() int {
	if s.HeightNow != nil {
		if h := s.HeightNow(); h > 0 {
			return h
		}
	}
	return defaultHeight
}

// OutFit is the room of a table written on stdout (a command's output).
func (s *Streams) OutFit() Fit { return Fit{Width: s.OutWidth, ASCII: !s.Unicode} }

// ErrFit is the room of a table written on stderr beside the terminal's
// other output (interactive mode's /sessions, /checkpoints): its width now.
func (s *Streams) ErrFit() Fit { return Fit{Width: s.TermWidth(), ASCII: !s.Unicode} }

// TermWidth is the width to draw at now: the terminal's, after any resize.
func (s *Streams) TermWidth() int {
	if s.WidthNow != nil {
		if w := s.WidthNow(); w > 0 {
			return w
		}
	}
	if s.Width > 0 {
		return s.Width
	}
	return 80
}

// Env looks up an environment variable.
type Env func(string) string

// System returns the real streams, with colour off when NO_COLOR is set,
// TERM is dumb, or the stream is not a terminal.
func System(env Env) *Streams {
	s := &Streams{In: os.Stdin, Out: os.Stdout, Err: os.Stderr, Width: 80}
	s.InTTY = term.IsTerminal(int(os.Stdin.Fd()))
	s.OutTTY = term.IsTerminal(int(os.Stdout.Fd()))
	s.ErrTTY = term.IsTerminal(int(os.Stderr.Fd()))
	if s.ErrTTY {
		if w, _, err := term.GetSize(int(os.Stderr.Fd())); err == nil && w > 0 {
			s.Width = w
		}
		s.WidthNow = widthNow(int(os.Stderr.Fd()), s.Width)
		s.HeightNow = heightNow(int(os.Stderr.Fd()))
	}
	s.OutWidth = outWidth(env, int(os.Stdout.Fd()), s.OutTTY)
	_, noColor := lookup(env, "NO_COLOR")
	s.Color = s.ErrTTY && !noColor && env("TERM") != "dumb"
	s.OutColor = s.OutTTY && !noColor && env("TERM") != "dumb"
	s.Unicode = unicodeLocale(env)
	return s
}

// widthNow reads the width of the terminal on fd whenever it is asked (one
// ioctl), so that what is drawn fits the window as it is at that moment.
// Following SIGWINCH instead left a gap: the signal is taken in by another
// goroutine, and a frame drawn right after a resize, before that goroutine
// ran (a user typing at once, a busy machine), had the old width.
func widthNow(fd, initial int) func() int {
	return func() int {
		if w, _, err := term.GetSize(fd); err == nil && w > 0 {
			return w
		}
		return initial
	}
}

// outWidth is the width tables on stdout fit: a positive $COLUMNS wins
// (what a script or a user asks for), then the terminal's width; a pipe
// has none.
func outWidth(env Env, fd int, tty bool) int {
	if n, err := strconv.Atoi(strings.TrimSpace(env("COLUMNS"))); err == nil && n > 0 {
		return n
	}
	if tty {
		if w, _, err := term.GetSize(fd); err == nil && w > 0 {
			return w
		}
		return 80
	}
	return 0
}

// heightNow reads the height of the terminal on fd whenever it is asked.
func heightNow(fd int) func() int {
	return func() int {
		if _, h, err := term.GetSize(fd); err == nil {
			return h
		}
		return 0
	}
}

func lookup(env Env, key string) (string, bool) {
	v := env(key)
	return v, v != ""
}

// unicodeLocale reports whether the locale is UTF-8. Windows terminals
// render UTF-8 without any locale variable; elsewhere none means the C locale.
func unicodeLocale(env Env) bool {
	for _, key := range []string{"LC_ALL", "LC_CTYPE", "LANG"} {
		if v := env(key); v != "" {
			v = strings.ToLower(v)
			return strings.Contains(v, "utf-8") || strings.Contains(v, "utf8")
		}
	}
	return runtime.GOOS == "windows"
}

// colour is a colour of attrs that paints only when on: fatih/color decides
// by itself from os.Stdout, and dev decides per stream (Streams).
func colour(on bool, attrs ...color.Attribute) *color.Color {
	c := color.New(attrs...)
	if on {
		c.EnableColor()
	} else {
		c.DisableColor()
	}
	return c
}
