package config

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
)

// Err, when set, is the underlying cause (an I/O error); Error satisfies
// errors.Is/As through it.
func (e *Error) Unwrap() error { return e.Err }

// Error reads like a compiler diagnostic, so editors and terminals can jump
// to the spot: `/home/u/.dev-agent/config.json:3:14: "maxLoops" must be an
// integer, got string "10"`.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.Path)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d:%d", e.Line, e.Column)
	}
	b.WriteString(": ")
	if e.Key != "" {
		fmt.Fprintf(&b, "%q ", e.Key)
	}
	b.WriteString(e.Reason)
	return b.String()
}

// ioError wraps an I/O failure on path without repeating the path, which
// Error already prints.
func ioError(path, doing string, err error) *Error {
	cause := err
	var pe *fs.PathError
	if errors.As(err, &pe) {
		cause = pe.Err
	}
	return &Error{Path: path, Reason: doing + ": " + cause.Error(), Err: err}
}
