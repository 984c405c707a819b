//go:build unix

package e2e

import (
	"regexp"
	"strings"
	"testing"
)

// Each audit shows under the request whose DONE it checked, in dev
// sessions show and in the session browser, and an undone request's audit
// under nothing (SPEC §17). The session: an audited request, two whose
// audit was skipped (nothing changed), an audited /review, and an audited
// request then undone. Before, both renderers paired the audits with the
// DONEs by guessing: the terminal showed the second audit under request 2
// and none under the /review, the browser moved request 1's audit under
// request 3.
func TestAuditsShowUnderTheirRequests(t *testing.T) {
	w := newWorld(t, nil)
	w.write(".dev/commands/review.md", "---\ndescription: review a file\n---\nReview $ARGUMENTS carefully.\n")
	// The auditors take 1, 2 and 3 steps: the step count names the audit.
	w.srv.Script(reply("Write.", "WRITE_FILE", "a.txt\n```\na\n```"), done("Wrote a."), verdict("Overall: PASS\nwrote a.txt"))
	w.srv.Script(done("Four."))
	w.srv.Script(reply("Read.", "READ_FILE", "a.txt"), done("It says a."))
	w.srv.Script(reply("Look.", "COMMAND", "cat a.txt"), done("Reviewed."),
		reply("Check.", "READ_FILE", "a.txt"), verdict("Overall: PASS\nreviewed a.txt"))
	w.srv.Script(reply("Write.", "WRITE_FILE", "b.txt\n```\nb\n```"), done("Wrote b."),
		reply("Check.", "READ_FILE", "b.txt"), reply("Check again.", "READ_FILE", "b.txt"), verdict("Overall: PASS\nwrote b.txt"))
	w.runInput("write a.txt\nwhat is 2+2?\nread a.txt\n/review a.txt\nwrite b.txt\n/undo\ny\n/exit\n").expect(t, 0)
	sess := w.onlySession()
	if len(sess.Audits) != 2 {
		t.Fatalf("the session keeps %d audits after /undo, want 2: %+v", len(sess.Audits), sess.Audits)
	}
	want := []string{"1 step", "", "", "2 steps"}

	show := w.run("sessions", "show", sess.ID)
	show.expect(t, 0)
	// The calm transcript: each request starts with its prompt line.
	requests := strings.Split(show.stdout, "\n› ")[1:]
	if len(requests) != len(want) {
		t.Fatalf("dev sessions show has %d requests, want %d:\n%s", len(requests), len(want), show.stdout)
	}
	for i, text := range requests {
		if got := audits(text, `audit passed \(([^)]*)\)`); got != want[i] {
			t.Errorf("dev sessions show: request %d has audits %q, want %q:\n%s", i+1, got, want[i], show.stdout)
		}
	}

	browser := w.serve(t)
	_, page := browser.get("/s/" + sess.ID)
	transcript, _, _ := strings.Cut(page[strings.Index(page, `id="transcript"`)+1:], `id="usage"`)
	sections := regexp.MustCompile(`<div class="box-title">Request \d+</div>`).Split(transcript, -1)[1:]
	if len(sections) != len(want) {
		t.Fatalf("the session page has %d requests, want %d:\n%s", len(sections), len(want), transcript)
	}
	for i, text := range sections {
		if got := audits(text, `audit passed \(([^)]*)\)`); got != want[i] {
			t.Errorf("the session page: request %d has audits %q, want %q:\n%s", i+1, got, want[i], transcript)
		}
	}
	if strings.Contains(page, "wrote b.txt") || strings.Contains(show.stdout, "3 steps") {
		t.Errorf("the undone request's audit is shown")
	}
}

// audits lists what the pattern's group matched in text, comma-separated.
func audits(text, pattern string) string {
	var out []string
	for _, m := range regexp.MustCompile(pattern).FindAllStringSubmatch(text, -1) {
		out = append(out, m[1])
	}
	return strings.Join(out, ",")
}
