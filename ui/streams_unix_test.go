//go:build unix

package ui

import (
	"testing"

	"github.com/creack/pty"
)

// The width is the window's as it is when asked, at once after a resize:
// what is drawn next must not wait for the resize signal to be taken in.
// (This process is not on the terminal, so no signal comes at all.)
func TestWidthFollowsTheWindowAtOnce(t *testing.T) {
	t.Parallel()
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skip("no pseudo-terminal here:", err)
	}
	defer ptmx.Close()
	defer tty.Close()
	if err := pty.Setsize(ptmx, &pty.Winsize{Rows: 50, Cols: 100}); err != nil {
		t.Fatal(err)
	}
	s := &Streams{Width: 100, WidthNow: widthNow(int(tty.Fd()), 100)}
	if err := pty.Setsize(ptmx, &pty.Winsize{Rows: 50, Cols: 60}); err != nil {
		t.Fatal(err)
	}
	if w := s.TermWidth(); w != 60 {
		t.Errorf("width %d right after the resize to 60", w)
	}
}

// Tables on stdout fit $COLUMNS when it is set, else the terminal on
// stdout; a pipe has no limit.
func TestOutWidth(t *testing.T) {
	t.Parallel()
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skip("no pseudo-terminal here:", err)
	}
	defer ptmx.Close()
	defer tty.Close()
	if err := pty.Setsize(ptmx, &pty.Winsize{Rows: 50, Cols: 66}); err != nil {
		t.Fatal(err)
	}
	env := func(columns string) Env {
		return func(k string) string {
			if k == "COLUMNS" {
				return columns
			}
			return ""
		}
	}
	for _, tt := range []struct {
		columns string
		tty     bool
		want    int
	}{
		{"", true, 66}, {"", false, 0}, {"72", false, 72}, {"72", true, 72}, {" 90 ", false, 90}, {"0", false, 0}, {"wide", true, 66}, {"-5", false, 0},
	} {
		if got := outWidth(env(tt.columns), int(tty.Fd()), tt.tty); got != tt.want {
			t.Errorf("COLUMNS=%q, terminal %v: width %d, want %d", tt.columns, tt.tty, got, tt.want)
		}
	}
}
