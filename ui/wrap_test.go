package ui

import (
	"bytes"
	"strings"
	"testing"
)

func TestWrap(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, text string
		width      int
		want       string
	}{
		{"fits", "a short line\n  and another", 20, "a short line\n  and another"},
		{"between words", "one two three four five", 14, "one two three\nfour five"},
		{"under its indent", "  one two three four five", 14, "  one two\n  three four\n  five"},
		{"a list stays a list", "  /help      show this list of commands", 30,
			"  /help      show this list\n             of commands"},
		{"a deep column falls back", "  --a-very-long-flag-name VALUE   the flag's text goes here", 40,
			"  --a-very-long-flag-name VALUE   the\n      flag's text goes here"},
		{"a word wider than the line", "abcdefghij", 4, "abcd\nefgh\nij"},
		{"no width", "one two three", 0, "one two three"},
	} {
		if got := Wrap(tt.text, tt.width); got != tt.want {
			t.Errorf("%s:\n got %q\nwant %q", tt.name, got, tt.want)
		}
	}
}

func TestWrapWriter(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	w := NewWrapWriter(&b, 10)
	for _, piece := range []string{"one two ", "three\nfour ", "five six"} {
		w.Write([]byte(piece))
	}
	if got := b.String(); got != "one two\nthree\n" {
		t.Errorf("before Flush: %q", got)
	}
	w.Flush()
	if got := b.String(); got != "one two\nthree\nfour five\nsix" {
		t.Errorf("after Flush: %q", got)
	}
	for _, l := range strings.Split(b.String(), "\n") {
		if len(l) > 10 {
			t.Errorf("%q is wider than 10", l)
		}
	}
}
