package history

import (
	"strings"
	"testing"
)

func TestCompressed(t *testing.T) {
	t.Parallel()
	c := Compressed{Summary: "Wrote a.go.\n", Original: "write a.go"}
	if got, want := c.Message().Content, "[CONTEXT SUMMARY]\n\nWrote a.go.\n\n[ORIGINAL REQUEST]\n\nwrite a.go"; got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
	c.Tasks = "[x] write a.go\n[~] test it"
	c.Current = "now add a test"
	want := "[CONTEXT SUMMARY]\n\nWrote a.go.\n\nTask list when the conversation was compressed:\n[x] write a.go\n[~] test it" +
		"\n\n[ORIGINAL REQUEST]\n\nwrite a.go\n\n[CURRENT REQUEST]\n\nnow add a test"
	if got := c.Message().Content; got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
	c.Current = "write a.go"
	if got := c.Message().Content; strings.Contains(got, "[CURRENT REQUEST]") {
		t.Errorf("the original request is repeated as the current one:\n%s", got)
	}
}

// The parts of a summary read back as they were written, trimmed, the
// marks' words inside them included.
func TestCompressedReadBack(t *testing.T) {
	t.Parallel()
	for _, c := range []Compressed{
		{Summary: "s", Original: "o"},
		{Summary: "s\n\nmore", Tasks: "[x] a\n[ ] b", Original: "o", Current: "c"},
		{Summary: "quoting [CONTEXT SUMMARY] and Task list when the conversation was compressed:", Original: "o [CURRENT REQUEST] x", Current: "c"},
		{Summary: NoSummary("last"), Original: "[ORIGINAL REQUEST]"},
	} {
		got := ReadMessage(c.Message())
		if got.Kind != KindSummary || got.Compressed != c {
			t.Errorf("read back %#v\nwant %#v", got.Compressed, c)
		}
	}
}
