package bgproc

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
)

// Every read from every offset after every write matches the reference: the
// bytes after the offset, of which only the last size are kept.
func TestOutputRingAgainstReference(t *testing.T) {
	t.Parallel()
	const size = 8
	rng := rand.New(rand.NewPCG(1, 2))
	o := newOutputSize(nil, size)
	var all []byte
	for i := range 300 {
		p := make([]byte, rng.IntN(21))
		for j := range p {
			p[j] = byte('a' + (len(all)+j)%26)
		}
		if n, err := o.Write(p); n != len(p) || err != nil {
			t.Fatalf("Write = %d, %v", n, err)
		}
		all = append(all, p...)
		total := int64(len(all))
		for off := int64(0); off <= total; off++ {
			c := o.ReadFrom(off)
			first := max(0, total-size)
			want := all[max(off, first):]
			if !bytes.Equal(c.Data, want) || c.Dropped != max(0, first-off) || c.Next != total {
				t.Fatalf("write %d, ReadFrom(%d) = %q dropped %d next %d; want %q dropped %d next %d",
					i, off, c.Data, c.Dropped, c.Next, want, max(0, first-off), total)
			}
		}
	}
	if len(o.ring) != size {
		t.Errorf("ring holds %d bytes, want %d", len(o.ring), size)
	}
}

func TestOutputEmptyAndOutOfRange(t *testing.T) {
	t.Parallel()
	o := NewOutput(nil)
	if c := o.ReadFrom(0); c.Data != nil || c.Dropped != 0 || c.Next != 0 {
		t.Errorf("empty: %+v", c)
	}
	o.Write([]byte("abc"))
	if c := o.ReadFrom(99); len(c.Data) != 0 || c.Next != 3 {
		t.Errorf("past the end: %+v", c)
	}
	if c := o.ReadFrom(-5); string(c.Data) != "abc" {
		t.Errorf("negative offset: %+v", c)
	}
}

func TestOutputMemoryIsBounded(t *testing.T) {
	t.Parallel()
	o := NewOutput(nil)
	chunk := bytes.Repeat([]byte("0123456789abcdef"), 4096) // 64 KB
	// 10 MB in all.
	for range 160 {
		o.Write(chunk)
	}
	if cap(o.ring) != BufferSize {
		t.Errorf("ring capacity %d, want %d", cap(o.ring), BufferSize)
	}
	c := o.ReadFrom(0)
	if len(c.Data) != BufferSize || c.Dropped != 160*int64(len(chunk))-BufferSize {
		t.Errorf("read %d bytes, dropped %d", len(c.Data), c.Dropped)
	}
}

// lockedBuffer is a mirror that may be read while a writer runs.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// Detach while a writer runs: the mirror and the ring after the detach
// offset together hold every byte once, in order.
func TestOutputDetachLosesNothing(t *testing.T) {
	t.Parallel()
	for round := range 50 {
		mirror := &lockedBuffer{}
		o := NewOutput(mirror)
		var want strings.Builder
		for i := range 1500 {
			fmt.Fprintf(&want, "%d\n", i)
		}
		started := make(chan struct{})
		done := make(chan struct{})
		go func() {
			defer close(done)
			for i := range 1500 {
				if i == 10 {
					close(started)
				}
				fmt.Fprintf(o, "%d\n", i)
			}
		}()
		<-started
		seen := o.Detach()
		before := mirror.String()
		<-done
		if int64(len(before)) != seen {
			t.Fatalf("round %d: the mirror holds %d bytes, Detach said %d", round, len(before), seen)
		}
		if mirror.String() != before {
			t.Fatalf("round %d: the mirror grew after Detach", round)
		}
		c := o.ReadFrom(seen)
		if c.Dropped != 0 || want.Len() > BufferSize {
			t.Fatalf("round %d: the test writes more than the ring keeps", round)
		}
		if got := before + string(c.Data); got != want.String() {
			t.Fatalf("round %d: mirror + ring after %d differ from what was written", round, seen)
		}
	}
}
