package tools

import (
	"bytes"
	"errors"
	"fmt"
	"github.com/devagent/dev/textfmt"
	"os"
	"strings"
	"sync"
)

const (
	// OutputHead and OutputTail are how much of a long command output the
	// model sees: its start and its end.
	OutputHead = 4 << 10
	OutputTail = 8 << 10
)

// output collects what a command prints. Memory stays bounded whatever it
// prints: it keeps the head and the tail, and once the output outgrows them
// it writes all of it, from the first byte, to a file in dir.
type output struct {
	dir string

	mu        sync.Mutex
	head      []byte
	tail      []byte // the latest bytes; trimmed to OutputTail when twice that
	total     int64
	lines     int64
	file      *os.File
	fileErr   error // saving the full output failed
	savedPath string
}

func newOutput(dir string) *output { return &output{dir: dir} }

// Write never fails: a command must not break because its output could not
// be saved; the result says so instead.
func (o *output) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	n := len(p)
	if o.file == nil && o.fileErr == nil && o.total+int64(n) > OutputHead+OutputTail {
		o.startSaving()
	}
	if o.file != nil {
		if _, err := o.file.Write(p); err != nil {
			o.fileErr = err
			_ = o.file.Close()
			o.file = nil
		}
	}
	o.total += int64(n)
	o.lines += int64(bytes.Count(p, []byte{'\n'}))
	if room := OutputHead - len(o.head); room > 0 {
		k := min(room, len(p))
		o.head = append(o.head, p[:k]...)
		p = p[k:]
	}
	o.tail = append(o.tail, p...)
	if len(o.tail) > 2*OutputTail {
		k := copy(o.tail, o.tail[len(o.tail)-OutputTail:])
		o.tail = o.tail[:k]
	}
	return n, nil
}

// startSaving opens the full-output file and writes what came so far, which
// is all still in head and tail: nothing is dropped before the file exists.
func (o *output) startSaving() {
	if o.dir == "" {
		o.fileErr = errors.New("no output directory was given")
		return
	}
	if err := os.MkdirAll(o.dir, 0o755); err != nil {
		o.fileErr = err
		return
	}
	f, err := os.CreateTemp(o.dir, "command-*.log")
	if err != nil {
		o.fileErr = err
		return
	}
	o.file, o.savedPath = f, f.Name()
	if _, err := f.Write(o.head); err == nil {
		_, err = f.Write(o.tail)
		o.fileErr = err
	}
	if o.fileErr != nil {
		_ = f.Close()
		o.file = nil
	}
}

// close finishes the full-output file, if any.
func (o *output) close() {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.file != nil {
		if err := o.file.Close(); err != nil && o.fileErr == nil {
			o.fileErr = err
		}
		o.file = nil
	}
}

// String renders the output for the model: all of it when short; else the
// head and the tail on line boundaries, and between them a line saying what
// was cut and where the whole output is.
func (o *output) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.total == 0 {
		return "(no output)"
	}
	if o.total <= OutputHead+OutputTail {
		return clean(string(o.head) + string(o.tail))
	}
	head := o.head
	if i := bytes.LastIndexByte(head, '\n'); i >= 0 {
		head = head[:i+1]
	}
	tail := o.tail[max(0, len(o.tail)-OutputTail):]
	if i := bytes.IndexByte(tail, '\n'); i >= 0 && i < len(tail)-1 {
		tail = tail[i+1:]
	}
	cutBytes := o.total - int64(len(head)) - int64(len(tail))
	cutLines := o.lines - int64(bytes.Count(head, []byte{'\n'})) - int64(bytes.Count(tail, []byte{'\n'}))
	var b strings.Builder
	b.WriteString(clean(string(head)))
	b.WriteByte('\n')
	fmt.Fprintf(&b, "[… %s cut (%s of %s in all, %s) …", formatSize(cutBytes), textfmt.Plural(int(cutLines), "line"), formatSize(o.total), textfmt.Plural(int(o.lines), "line"))
	switch {
	case o.fileErr != nil:
		fmt.Fprintf(&b, " the full output could not be saved: %s]\n", fsErr(o.fileErr))
	default:
		fmt.Fprintf(&b, " full output saved in %s]\n", o.savedPath)
	}
	b.WriteString(clean(string(tail)))
	return b.String()
}

// clean makes command output safe to send: valid UTF-8, no final newline.
func clean(s string) string {
	return strings.TrimRight(strings.ToValidUTF8(s, "\uFFFD"), "\n")
}
