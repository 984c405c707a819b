package tools

import (
	"strings"
	"testing"
)

func TestResultMasked(t *testing.T) {
	t.Parallel()
	mask := func(s string) string { return strings.ReplaceAll(s, "s3cret", "[REDACTED:x]") }
	r := Result{Tool: Command, Summary: "echo s3cret", Output: "s3cret\n", Command: "echo s3cret",
		Attrs: [][2]string{{"path", "s3cret.txt"}}, Files: []string{"s3cret.txt"}, ExitCode: 0, OK: true}
	m := r.Masked(mask)
	for _, s := range []string{m.Summary, m.Output, m.Command, m.Attrs[0][1], m.Files[0]} {
		if strings.Contains(s, "s3cret") {
			t.Errorf("not masked: %q", s)
		}
	}
	if r.Attrs[0][1] != "s3cret.txt" || r.Files[0] != "s3cret.txt" {
		t.Error("Masked changed the original result's slices")
	}
	if m.Attrs[0][0] != "path" || !m.OK || m.Tool != Command {
		t.Errorf("Masked changed more than text: %+v", m)
	}
	if got := r.Masked(nil); got.Output != r.Output {
		t.Error("a nil mask changed the result")
	}
}
