package mcp

import (
	"bytes"
	"io"
	"strings"
	"sync"
)

// StderrKept is how much of a stdio server's stderr is kept: its end.
const StderrKept = 16 << 10

// stderrLog keeps the end of what a server writes on stderr and, in verbose
// mode, copies it line by line to a writer, each line prefixed with the
// server's name.
type stderrLog struct {
	prefix string
	mirror io.Writer // nil: kept only

	mu      sync.Mutex
	kept    []byte
	partial []byte // the start of a line not yet mirrored
}

func newStderrLog(name string, mirror io.Writer) *stderrLog {
	return &stderrLog{prefix: "[" + name + "] ", mirror: mirror}
}

// Write never fails: a server must not stop because dev could not show
// what it said.
func (l *stderrLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.kept = append(l.kept, p...)
	if len(l.kept) > 2*StderrKept {
		l.kept = append(l.kept[:0], l.kept[len(l.kept)-StderrKept:]...)
	}
	if l.mirror != nil {
		l.partial = append(l.partial, p...)
		for {
			i := bytes.IndexByte(l.partial, '\n')
			if i < 0 {
				break
			}
			_, _ = io.WriteString(l.mirror, l.prefix+string(l.partial[:i+1]))
			l.partial = l.partial[i+1:]
		}
	}
	return len(p), nil
}

// String is the end of the stderr kept, at most StderrKept bytes.
func (l *stderrLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	k := l.kept[max(0, len(l.kept)-StderrKept):]
	return strings.ToValidUTF8(string(k), "\uFFFD")
}

// lastLines is the last non-empty lines of stderr, at most n lines and
// about maxBytes bytes, for an error message.
func (l *stderrLog) lastLines(n, maxBytes int) string {
	lines := strings.Split(strings.TrimRight(l.String(), "\n"), "\n")
	var out []string
	size := 0
	for i := len(lines) - 1; i >= 0 && len(out) < n; i-- {
		line := strings.TrimRight(lines[i], " \r\t")
		if line == "" {
			continue
		}
		if size+len(line) > maxBytes && len(out) > 0 {
			break
		}
		size += len(line)
		out = append(out, line)
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return strings.Join(out, "\n")
}

// lockedWriter serialises the servers' lines on one writer.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (w *lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.w.Write(p)
}
