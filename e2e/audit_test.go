package e2e

import (
	"strings"
	"testing"

	"github.com/devagent/dev/llm/llmtest"
)

func TestAuditFailThenPass(t *testing.T) {
	w := newWorld(t, map[string]any{"auditModel": "other-model"})
	w.srv.Script(
		reply("Write it.", "WRITE_FILE", "greet.txt\n```\nhello\n```"),
		done("Wrote greet.txt."),
		verdict("| check | result |\n|---|---|\n| greeting | FAIL |\n\nOverall: FAIL\nX: the greeting must say hello world."),
		reply("Fix it.", "WRITE_FILE", "greet.txt\n```\nhello world\n```"),
		done("Fixed greet.txt."),
		verdict("Overall: PASS"),
	)
	r := w.run("-p", "write greet.txt saying hello world")
	r.expect(t, 0)
	if r.stdout != "Fixed greet.txt.\n" {
		t.Errorf("stdout = %q", r.stdout)
	}
	reqs := w.srv.Requests()
	if len(reqs) != 6 {
		t.Fatalf("%d requests, want 6", len(reqs))
	}
	for i, req := range reqs {
		wantModel := "mock-model"
		if isAudit(req) {
			wantModel = "other-model"
		}
		if req.Model != wantModel {
			t.Errorf("request %d (audit %v) used model %q", i, isAudit(req), req.Model)
		}
	}
	if !isAudit(reqs[2]) || !isAudit(reqs[5]) || isAudit(reqs[3]) {
		t.Fatalf("requests in the wrong order")
	}
	feedback := lastUser(reqs[3])
	if !strings.Contains(feedback, "X: the greeting must say hello world.") || !strings.Contains(feedback, `tool="DONE" ok="false"`) {
		t.Errorf("the worker did not get the audit's feedback as DONE's result:\n%s", feedback)
	}
	if got := w.read("greet.txt"); got != "hello world\n" {
		t.Errorf("greet.txt = %q", got)
	}
	s := w.onlySession()
	if len(s.Audits) != 2 || s.Audits[0].Verdict != "FAIL" || s.Audits[1].Verdict != "PASS" || !strings.Contains(s.Audits[0].Feedback, "X: the greeting") {
		t.Errorf("audits = %+v", s.Audits)
	}
	if !strings.Contains(r.stderr, "audit failed") || !strings.Contains(r.stderr, "X: the greeting must say hello world.") {
		t.Errorf("stderr does not show the failed audit's feedback:\n%s", r.stderr)
	}
}

func TestAuditAlwaysFailing(t *testing.T) {
	// A pure answer is audited only with audit "always" (SPEC §17; the
	// default, "changes", skips it).
	w := newWorld(t, map[string]any{"maxAuditFailures": 2, "audit": "always"})
	for range 3 {
		w.srv.Script(done("Done, honestly."), verdict("Overall: FAIL\nNothing was done."))
	}
	r := w.run("-p", "do the impossible")
	r.expect(t, 3)
	if r.stdout != "" {
		t.Errorf("stdout = %q", r.stdout)
	}
	if n := len(w.srv.Requests()); n != 4 {
		t.Errorf("%d requests, want 4 (two DONEs, two audits)", n)
	}
	s := w.onlySession()
	if s.Status != "failed" || len(s.Audits) != 2 {
		t.Errorf("status %q audits %+v", s.Status, s.Audits)
	}
	if !strings.Contains(r.stderr, "maxAuditFailures") {
		t.Errorf("stderr does not name maxAuditFailures:\n%s", r.stderr)
	}
}

func TestAuditMissingVerdictFails(t *testing.T) {
	w := newWorld(t, map[string]any{"maxAuditFailures": 1, "audit": "always"})
	w.srv.Script(done("Done."), verdict("Looks fine to me."), verdict("Really, it looks fine."))
	r := w.run("-p", "x")
	r.expect(t, 3)
	reqs := w.srv.Requests()
	if len(reqs) != 3 || !strings.Contains(lastUser(reqs[2]), "Overall: PASS") {
		t.Fatalf("the auditor was not asked once for a verdict: %d requests", len(reqs))
	}
	if a := w.onlySession().Audits; len(a) != 1 || a[0].Verdict != "FAIL" || a[0].Steps != 2 {
		t.Errorf("audits = %+v", a)
	}
}

func TestNoAudit(t *testing.T) {
	w := newWorld(t, nil)
	w.srv.Script(done("Trust me."), verdict("Overall: FAIL"))
	r := w.run("-p", "x", "--no-audit")
	r.expect(t, 0)
	if r.stdout != "Trust me.\n" {
		t.Errorf("stdout = %q", r.stdout)
	}
	for _, req := range w.srv.Requests() {
		if isAudit(req) {
			t.Fatalf("an audit request was sent with --no-audit")
		}
	}
	if n := len(w.srv.Requests()); n != 1 {
		t.Errorf("%d requests, want 1", n)
	}
	if a := w.onlySession().Audits; len(a) != 0 {
		t.Errorf("audits = %+v", a)
	}
}

// auditorReply is a reply of the auditor using one tool.
func auditorReply(tool, input string) llmtest.Response {
	return reply("Checking.", tool, input)
}
