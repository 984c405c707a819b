package e2e

import (
	"strings"
	"testing"
)

// /new starts a second session in the same directory: the second request
// does not see the first, each session keeps its own request, and --resume
// picks up the new one.
func TestInteractiveNewSession(t *testing.T) {
	w := newWorld(t, nil)
	w.srv.Script(done("First answer."), done("Second answer."))
	r := w.runInput("first request\n/new\nsecond request\n/exit\n", "--no-audit")
	r.expect(t, 0)
	if r.stdout != "First answer.\nSecond answer.\n" {
		t.Errorf("stdout = %q", r.stdout)
	}
	if n := strings.Count(r.stderr, "dev: new session "); n != 2 {
		t.Errorf("%d new-session lines in stderr:\n%s", n, r.stderr)
	}
	reqs := w.srv.Requests()
	if len(reqs) != 2 || strings.Contains(allContent(reqs[1]), "first request") {
		t.Fatalf("the second session's request holds the first one's: %d requests\n%s", len(reqs), allContent(reqs[len(reqs)-1]))
	}
	all := w.sessions()
	if len(all) != 2 {
		t.Fatalf("%d sessions, want 2", len(all))
	}
	var second string
	for id, s := range all {
		switch s.OriginalPrompt {
		case "first request":
		case "second request":
			second = id
		default:
			t.Errorf("session %s: original prompt %q", id, s.OriginalPrompt)
		}
		if s.Status != "complete" || len(s.History) != 2 {
			t.Errorf("session %s: status %s, %d messages", id, s.Status, len(s.History))
		}
	}
	w.srv.Script(done("Third answer."))
	again := w.run("--resume", "--json", "--no-audit", "-p", "third request")
	again.expect(t, 0)
	if !strings.Contains(again.stdout, `"id":"`+second+`","resumed":true`) {
		t.Errorf("--resume did not pick the session /new started:\n%s", again.stdout)
	}
}
