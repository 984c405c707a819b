package ui

import (
	"strings"
	"testing"
	"time"

	"github.com/rivo/uniseg"

	"github.com/devagent/dev/sessions"
)

// At 60 columns, dev sessions list and interactive mode's /sessions stay
// tables, not records: the id keeps its prefix, and /sessions, which lists
// one directory, has no directory column.
func TestSessionTableAt60(t *testing.T) {
	at := time.Date(2026, 11, 26, 16, 52, 0, 0, time.UTC)
	list := []*sessions.Session{
		{ID: "22f295bb-a4ac-4f01-b57b-e1e62eb12c6c", UpdatedAt: at, Status: sessions.Interrupted, TotalTokens: 1229,
			WorkingDirectory: "/home/ann/src/github.com/example/service", OriginalPrompt: "Answer with the tool DONE and the input: hello"},
		{ID: "dabcafff-a524-45e7-b13a-45299401c76f", UpdatedAt: at, Status: sessions.Complete,
			WorkingDirectory: "/home/ann/src/github.com/example/service", OriginalPrompt: "リファクタリングしてください"},
	}
	for _, current := range []string{"", list[1].ID} {
		var b strings.Builder
		if err := SessionTable(&b, list, current, Fit{Width: 60}); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		if len(lines) != 3 || !strings.Contains(lines[0], "ID") || !strings.Contains(lines[0], "PROMPT") {
			t.Errorf("current %q: not a table of 2 rows:\n%s", current, out)
			continue
		}
		for _, l := range lines {
			if w := uniseg.StringWidth(l); w > 60 {
				t.Errorf("current %q: a line of %d columns: %q", current, w, l)
			}
		}
		if strings.Contains(lines[0], "DIRECTORY") != (current == "") {
			t.Errorf("current %q: the directory column:\n%s", current, out)
		}
		if current != "" && !strings.HasPrefix(lines[2], "*  dabcaff") {
			t.Errorf("the current session is not marked:\n%s", out)
		}
		if current == "" && !strings.HasPrefix(lines[1], "22f295b…") {
			t.Errorf("the id is not cut to its prefix:\n%s", out)
		}
	}
}
