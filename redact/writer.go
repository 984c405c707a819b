package redact

import (
	"bytes"
	"io"
	"strings"
)

// Writer sizes: text is masked in chunks of about chunkSize bytes, cut
// after a line break; a line longer than maxLine is cut inside, where no
// secret can straddle the cut.
const (
	chunkSize = 64 << 10
	maxLine   = 1 << 20
	// maxToken bounds how far back a cut inside a line moves to stay out
	// of a run of token bytes (a token shape).
	maxToken = 4 << 10
)

// Writer masks a stream (a command's saved output) as it is written: what
// reaches the underlying writer is what Redact would make of the whole
// stream. It holds back the text that may continue a secret (the current
// line, within limits) until more comes or Flush is called, so a secret
// split across two writes is masked all the same. Not safe for
// concurrent use.
type Writer struct {
	r   *Redactor
	w   io.Writer
	buf []byte
	// flat is how much of buf is known to hold no line break.
	flat int
	err  error
}

// NewWriter returns a Writer masking what it is given into w. With a nil
// Redactor nothing is masked and nothing is held back.
func (r *Redactor) NewWriter(w io.Writer) *Writer { return &Writer{r: r, w: w} }

// Write masks and passes on p, but for what it holds back. An error of the
// underlying writer is returned, by this and every later call.
func (x *Writer) Write(p []byte) (int, error) {
	if x.err != nil {
		return 0, x.err
	}
	if x.r == nil {
		_, x.err = x.w.Write(p)
		return len(p), x.err
	}
	x.buf = append(x.buf, p...)
	for len(x.buf) >= chunkSize {
		cut := x.cut()
		if cut == 0 {
			break // one line, not yet long enough to cut inside
		}
		if err := x.emit(x.buf[:cut]); err != nil {
			return len(p), err
		}
		x.buf = x.buf[:copy(x.buf, x.buf[cut:])]
		x.flat = 0
	}
	return len(p), nil
}

// Flush masks and passes on everything held back: the end of the stream.
func (x *Writer) Flush() error {
	if x.err != nil || len(x.buf) == 0 {
		return x.err
	}
	err := x.emit(x.buf)
	x.buf, x.flat = x.buf[:0], 0
	return err
}

func (x *Writer) emit(p []byte) error {
	s := string(p)
	if masked := x.r.Redact(s); masked != s { // the same string when nothing was masked: no compare
		_, x.err = io.WriteString(x.w, masked)
	} else {
		_, x.err = x.w.Write(p)
	}
	return x.err
}

// cut returns how much of the buffer can be masked now, without the
// rest: up to the last line break (no token shape holds one, nor any
// literal form but those in r.newline, which are checked), or, in a line
// longer than maxLine, a point that no literal form straddles and that is
// not inside a run of token bytes. 0: hold everything.
func (x *Writer) cut() int {
	b := x.buf
	if i := bytes.LastIndexByte(b[x.flat:], '\n'); i >= 0 {
		return x.r.clear(b, x.flat+i+1, x.r.newlineByFirst)
	}
	x.flat = len(b)
	if len(b) < maxLine {
		return 0
	}
	c := outOfToken(b, len(b)-x.r.longest)
	return x.r.clear(b, c, x.r.byFirst)
}

// outOfToken moves the cut c in b back out of a run of token bytes that
// runs across it, up to maxToken bytes.
func outOfToken(b []byte, c int) int {
	for k := 0; k < maxToken && c > 0 && isTokenByte(b[c-1]) && (c == len(b) || isTokenByte(b[c])); k++ {
		c--
	}
	return c
}

// clear moves the cut c in b back to the start of any form (of
// byFirst, by its first byte) that straddles it: starts before c and runs
// past it, also past the end of b (a form not yet written in full).
func (r *Redactor) clear(b []byte, c int, byFirst map[byte][]string) int {
	if len(byFirst) == 0 {
		return c
	}
	for moved := true; moved && c > 0; {
		moved = false
		for s := max(0, c-r.longest+1); s < c && !moved; s++ {
			forms := byFirst[b[s]]
			if len(forms) == 0 {
				continue
			}
			text := string(b[s:min(len(b), s+r.longest)])
			for _, f := range forms {
				if len(f) > c-s && (strings.HasPrefix(text, f) || len(text) < len(f) && strings.HasPrefix(f, text)) {
					c, moved = s, true
					break
				}
			}
		}
	}
	return c
}

// isTokenByte: the bytes of token shapes and encodings (letters, digits,
// _ - + / = .).
func isTokenByte(c byte) bool {
	return tokenByte(c) || c == '+' || c == '/' || c == '=' || c == '.'
}

// Stream masks a text that comes in pieces and is shown as it comes (a
// reply streaming from the model): Write returns what can be shown of
// the text so far, masked as Redact masks the whole text. It holds back
// only what may be part of a secret not yet complete: the run of token
// characters the text ends with, the start of a secret value, a private
// key block not yet ended; Flush returns the rest. Not safe for
// concurrent use. A nil Redactor's Stream holds nothing back.
type Stream struct {
	r   *Redactor
	buf []byte
}

// NewStream returns a Stream masking with r.
func (r *Redactor) NewStream() *Stream { return &Stream{r: r} }

// Write adds piece to the text and returns what can be shown of it now.
func (s *Stream) Write(piece string) string {
	if s.r == nil {
		return piece
	}
	s.buf = append(s.buf, piece...)
	b := s.buf
	c := len(b)
	for {
		next := s.r.clear(b, outOfToken(b, c), s.r.byFirst)
		if begin := openBlock(b[:next], b); begin >= 0 {
			next = begin
		}
		if next == c {
			break
		}
		c = next
	}
	if c == 0 {
		return ""
	}
	out := s.r.Redact(string(b[:c]))
	s.buf = b[:copy(b, b[c:])]
	return out
}

// Flush returns the rest of the text, masked: its end.
func (s *Stream) Flush() string {
	if s.r == nil || len(s.buf) == 0 {
		return ""
	}
	out := s.r.Redact(string(s.buf))
	s.buf = s.buf[:0]
	return out
}

// openBlock is where the last key block that starts in head, a prefix of
// b, begins, when head does not hold its end marker whole; else -1.
func openBlock(head, b []byte) int {
	begin := bytes.LastIndex(head, []byte(pemDash+"BEGIN "))
	if begin < 0 {
		return -1
	}
	end := bytes.Index(b[begin:], []byte(pemDash+"END "))
	if end < 0 {
		return begin
	}
	end += begin + len(pemDash+"END ")
	dashes := bytes.Index(b[end:], []byte(pemDash))
	if dashes < 0 || end+dashes+len(pemDash) > len(head) {
		return begin
	}
	return -1
}
