package ui

import (
	"io"
	"strings"
	"testing"

	"github.com/devagent/dev/event"
	"github.com/devagent/dev/parser"
	"github.com/rivo/uniseg"
)

// longLine is size bytes of words on one line, with a wide character now
// and then, as a model that never ends its line writes.
func longLine(size int) string {
	var b strings.Builder
	b.Grow(size + 16)
	for i := 0; b.Len() < size; i++ {
		if i%97 == 0 {
			b.WriteString("日本 ")
		}
		b.WriteString("word ")
	}
	return b.String()
}

// TestWrapLongLine wraps a 2 MB line: every piece fits the width and
// nothing is lost. Wrapping once measured the whole rest of the line at
// every cut, which made this take about 15 minutes; it now takes
// milliseconds (BenchmarkRenderLongLine measures it).
func TestWrapLongLine(t *testing.T) {
	t.Parallel()
	in := longLine(2 << 20)
	const width = 76
	lines := wrap(in, width)
	if len(lines) < len(in)/width {
		t.Fatalf("%d lines for %d bytes", len(lines), len(in))
	}
	for i, l := range lines {
		if w := uniseg.StringWidth(l); w > width {
			t.Fatalf("line %d is %d wide", i, w)
		}
	}
	// Cuts happen at spaces, which wrapping drops.
	if got, want := strings.TrimRight(strings.Join(lines, " "), " "), strings.TrimRight(in, " "); got != want {
		t.Errorf("wrapped text differs from the input (%d bytes, want %d)", len(got), len(want))
	}
}

// BenchmarkRenderLongLine renders a reply whose thoughts are one line of
// 50 MB, as boxes on a terminal 80 columns wide, in verbose mode (the
// reasoning box too):
//
//	go test ./ui -run '^$' -bench RenderLongLine -benchtime 1x
func BenchmarkRenderLongLine(b *testing.B) {
	line := longLine(50 << 20)
	resp := parser.Response{Thoughts: line, Reasoning: line[:1<<20], HasTaskList: true,
		Tasks: []parser.Task{{Status: parser.InProgress, Text: line[:1<<20]}}}
	b.SetBytes(int64(len(line)))
	b.ReportAllocs()
	for b.Loop() {
		t := NewTerminal(&Streams{Err: io.Discard, Width: 80, Unicode: true}, Verbose)
		t.Emit(event.ReplyParsed{Step: 1, Response: resp})
	}
}

// BenchmarkRenderLongLineCalm is BenchmarkRenderLongLine on the calm
// screen: one line of thoughts, the task list side by side.
//
//	go test ./ui -run '^$' -bench RenderLongLineCalm -benchtime 1x
func BenchmarkRenderLongLineCalm(b *testing.B) {
	line := longLine(50 << 20)
	resp := parser.Response{Thoughts: line, HasTaskList: true, Tasks: []parser.Task{{Status: parser.InProgress, Text: line[:1<<20]}}}
	b.SetBytes(int64(len(line)))
	b.ReportAllocs()
	for b.Loop() {
		t := NewTerminal(&Streams{Err: io.Discard, Width: 80, Unicode: true}, Normal)
		t.Emit(event.ReplyParsed{Step: 1, Response: resp})
	}
}
