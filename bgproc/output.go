package bgproc

import (
	"io"
	"sync"
)

// BufferSize is how much of a process's latest output is kept in memory.
const BufferSize = 16 << 10

// Output receives what a process prints (stdout and stderr, in order). It
// keeps the latest bytes in a ring of BufferSize, so memory stays bounded
// however much the process prints, and counts every byte, so that a reader
// can ask for what came after an offset. Until Detach it also copies every
// write to a mirror (the foreground command's own record of its output).
type Output struct {
	size int

	mu     sync.Mutex
	ring   []byte // allocated on first write; byte number x is at x % size
	total  int64  // bytes written so far
	mirror io.Writer
}

// NewOutput returns an Output that copies writes to mirror (nil: none)
// until Detach.
func NewOutput(mirror io.Writer) *Output {
	return newOutputSize(mirror, BufferSize)
}

func newOutputSize(mirror io.Writer, size int) *Output {
	return &Output{size: size, mirror: mirror}
}

// Write never fails: a process must not break because of its output.
func (o *Output) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.mirror != nil {
		_, _ = o.mirror.Write(p)
	}
	o.keep(p)
	o.total += int64(len(p))
	return len(p), nil
}

// keep stores p after the bytes already held, over the oldest.
func (o *Output) keep(p []byte) {
	if len(p) == 0 {
		return
	}
	if o.ring == nil {
		o.ring = make([]byte, o.size)
	}
	start := o.total
	if len(p) > o.size {
		start += int64(len(p) - o.size)
		p = p[len(p)-o.size:]
	}
	pos := int(start % int64(o.size))
	n := copy(o.ring[pos:], p)
	copy(o.ring, p[n:])
}

// Detach stops copying to the mirror and returns how many bytes were
// written until then: the mirror holds bytes [0, n), and ReadFrom(n)
// returns what follows, so not a byte falls between the two.
func (o *Output) Detach() int64 {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.mirror = nil
	return o.total
}

// Total is the number of bytes written so far.
func (o *Output) Total() int64 {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.total
}

// Chunk is output read from an offset.
type Chunk struct {
	Data    []byte // the bytes still kept after the offset, oldest first
	Dropped int64  // bytes after the offset that are no longer kept
	Next    int64  // the offset to read from next time
}

// ReadFrom returns the output written after offset off.
func (o *Output) ReadFrom(off int64) Chunk {
	o.mu.Lock()
	defer o.mu.Unlock()
	first := max(0, o.total-int64(o.size)) // offset of the oldest byte kept
	off = max(0, min(off, o.total))
	c := Chunk{Next: o.total}
	if off < first {
		c.Dropped = first - off
		off = first
	}
	n := int(o.total - off)
	if n == 0 {
		return c
	}
	c.Data = make([]byte, n)
	pos := int(off % int64(o.size))
	k := copy(c.Data, o.ring[pos:])
	copy(c.Data[k:], o.ring)
	return c
}
