package repl

import (
	"strings"
	"unicode/utf8"
)

// typeahead keeps what is typed while dev works: the terminal does not
// echo it (it would land in the middle of the live output) and dev reads
// it itself, to put it on the next prompt's line instead of losing it.
// Ctrl+C still interrupts: the terminal keeps turning it into a signal.
type typeahead interface {
	start()
	stop()
	// take returns what was typed since the last take, edited as a line
	// editor would (backspace, Ctrl+U, Ctrl+W), without control keys.
	take() string
	// pause stops reading for a while (a question is asked); resume
	// starts again if it was reading.
	pause() (resume func())
}

// noAhead is type-ahead where the terminal cannot be read aside (Windows,
// or stdin is not a terminal): text typed meanwhile stays with the
// terminal.
type noAhead struct{}

func (noAhead) start()                 {}
func (noAhead) stop()                  {}
func (noAhead) take() string           { return "" }
func (noAhead) pause() (resume func()) { return func() {} }

// typedText turns the bytes typed into the text they stand for: printable
// characters and newlines, with the editing keys applied and escape
// sequences (arrow keys) and other control characters dropped.
func typedText(b []byte) string {
	var out []rune
	for len(b) > 0 {
		c := b[0]
		switch {
		case c == 0x1b: // ESC [ params final, or ESC and one key
			n := 1
			if len(b) > 1 && (b[1] == '[' || b[1] == 'O') {
				n = 2
				for n < len(b) && (b[n] < 0x40 || b[n] > 0x7e) {
					n++
				}
				n++
			} else if len(b) > 1 {
				n = 2
			}
			b = b[min(n, len(b)):]
			continue
		case c == '\r' || c == '\n':
			out = append(out, '\n')
		case c == '\t':
			out = append(out, ' ')
		case c == 0x7f || c == 0x08: // backspace
			if len(out) > 0 && out[len(out)-1] != '\n' {
				out = out[:len(out)-1]
			}
		case c == 0x15: // Ctrl+U: the line so far
			for len(out) > 0 && out[len(out)-1] != '\n' {
				out = out[:len(out)-1]
			}
		case c == 0x17: // Ctrl+W: the word before
			for len(out) > 0 && out[len(out)-1] == ' ' {
				out = out[:len(out)-1]
			}
			for len(out) > 0 && out[len(out)-1] != ' ' && out[len(out)-1] != '\n' {
				out = out[:len(out)-1]
			}
		case c < 0x20:
			// Ctrl+D and the like mean nothing here.
		default:
			r, size := utf8.DecodeRune(b)
			if r != utf8.RuneError || size > 1 {
				out = append(out, r)
			}
			b = b[size:]
			continue
		}
		b = b[1:]
	}
	return strings.Trim(string(out), "\n")
}
