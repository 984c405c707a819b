package e2e

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
)

// twoSessions makes two sessions in one directory: "write the parser"
// with two more requests (the last attaching notes.md), then "fix the
// build". It returns their ids.
func twoSessions(t *testing.T, w *world) (first, second string) {
	t.Helper()
	w.write("notes.md", "# Notes\n\nline two\nline three\n")
	for i, prompt := range []string{"write the parser", "now the tests", "and the docs from @notes.md"} {
		w.srv.Script(done("Done " + strconv.Itoa(i) + "."))
		args := []string{"--no-audit", "-p", prompt}
		if i > 0 {
			args = append(args, "--resume")
		}
		w.run(args...).expect(t, 0)
	}
	for id := range w.sessions() {
		first = id
	}
	w.srv.Script(done("Fixed."))
	w.run("--no-audit", "-p", "fix the build").expect(t, 0)
	for id := range w.sessions() {
		if id != first {
			second = id
		}
	}
	return first, second
}

// Sessions are told apart (SPEC §17): dev sessions list shows each one's
// last request beside its first (as typed: without the file @ attached),
// its number of requests and when it was last used, in 80 columns with
// long cells cut with …; --json has them too. A rewind that undoes a
// request takes it back. Before, the list showed the first request only.
func TestSessionsListTellsSessionsApart(t *testing.T) {
	w := newWorld(t, nil)
	first, second := twoSessions(t, w)

	w.extra = []string{"COLUMNS=250"}
	r := w.run("sessions", "list")
	r.expect(t, 0)
	lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	if len(lines) != 3 {
		t.Fatalf("want a header and two rows:\n%s", r.stdout)
	}
	for _, h := range []string{"ID", "LAST USED", "STATUS", "REQS", "TOKENS", "DIRECTORY", "FIRST REQUEST", "LAST REQUEST"} {
		if !strings.Contains(lines[0], h) {
			t.Errorf("the header lacks %s:\n%s", h, r.stdout)
		}
	}
	newest, oldest := strings.Fields(lines[1]), lines[2]
	if newest[0] != second || newest[1] != "now" || newest[2] != "complete" || newest[3] != "1" || !strings.HasSuffix(lines[1], "  fix the build") {
		t.Errorf("the newest row: %q", lines[1])
	}
	if !strings.HasPrefix(oldest, first) || !strings.Contains(oldest, "complete     3  ") ||
		!strings.HasSuffix(oldest, "  write the parser  and the docs from @notes.md") {
		t.Errorf("the oldest row: %q", oldest)
	}
	if strings.Contains(r.stdout, "line two") || strings.Contains(r.stdout, "<file") {
		t.Errorf("the list shows the attached file:\n%s", r.stdout)
	}

	w.extra = []string{"COLUMNS=80"}
	r = w.run("sessions", "list")
	r.expect(t, 0)
	fits(t, "sessions list", r.stdout, 80)
	if rows := strings.Split(r.stdout, "\n"); !strings.Contains(rows[2], "  write th") || !strings.Contains(rows[2], "  and the") || !strings.HasSuffix(rows[2], "…") ||
		!strings.Contains(rows[0], "REQS") || !strings.Contains(rows[0], "LAST REQ") {
		t.Errorf("at 80 columns the requests are not both shown, cut with …:\n%s", r.stdout)
	}

	w.extra = nil
	var rows []struct {
		ID         string `json:"id"`
		Prompts    int    `json:"prompts"`
		LastPrompt string `json:"lastPrompt"`
	}
	r = w.run("sessions", "list", "--json")
	r.expect(t, 0)
	if err := json.Unmarshal([]byte(r.stdout), &rows); err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || rows[1].ID != first || rows[1].Prompts != 3 || rows[1].LastPrompt != "and the docs from @notes.md" || rows[0].Prompts != 1 {
		t.Errorf("--json: %+v", rows)
	}

	// Undo the last request of the first session.
	before := -1
	for _, c := range w.sessions()[first].Checkpoints {
		if c.Reason == "request" {
			before = c.Number
		}
	}
	w.run("rewind", strconv.Itoa(before), "--yes", "--session", first).expect(t, 0)
	r = w.run("sessions", "list", "--json")
	r.expect(t, 0)
	if err := json.Unmarshal([]byte(r.stdout), &rows); err != nil {
		t.Fatal(err)
	}
	if rows[0].ID != first || rows[0].Prompts != 2 || rows[0].LastPrompt != "now the tests" {
		t.Errorf("after the rewind (the session used last): %+v", rows)
	}
}
