package loop

import (
	"context"
	"testing"

	"github.com/devagent/dev/audit"
	"github.com/devagent/dev/event"
	"github.com/devagent/dev/tools"
)

// With the audit policy "changes", a DONE is audited only when its request
// wrote a file or ran a command; a pure answer is accepted as it is.
func TestAuditOnlyChanges(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name    string
		did     tools.Result // what ECHO did before DONE; zero: DONE alone
		audited bool
	}{
		{"a pure answer", tools.Result{}, false},
		{"a tool that changed nothing", tools.Result{Tool: "ECHO", OK: true, Output: "read"}, false},
		{"a file written", tools.Result{Tool: "ECHO", OK: true, Files: []string{"a.go"}}, true},
		{"a command run", tools.Result{Tool: "ECHO", OK: true, Command: "ls", ExitCode: 0}, true},
		{"a failed command", tools.Result{Tool: "ECHO", OK: false, Command: "false", ExitCode: 1}, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			script := []any{template("DONE", "the answer")}
			if tt.did.Tool != "" {
				script = append([]any{template("ECHO", "x")}, script...)
			}
			f := newFixture(script...)
			f.loop.Tools.(fakeTools)["ECHO"] = fakeTool{name: "ECHO", runs: &f.runs,
				run: func(context.Context, string) tools.Result { return tt.did }}
			a := withAuditor(f, audit.Result{Verdict: audit.Pass, Feedback: "Overall: PASS", Steps: 1})
			f.loop.AuditOnlyChanges = true
			o := f.run(t)
			if o.Stop != Done || o.Summary != "the answer" {
				t.Fatalf("outcome %+v", o)
			}
			want := event.AuditSkipped
			if tt.audited {
				want = event.AuditPassed
			}
			if got := len(a.inputs) == 1; got != tt.audited || o.Audit != want {
				t.Errorf("audited %v (outcome audit %q), want %v (%q)", got, o.Audit, tt.audited, want)
			}
		})
	}
}

func TestAuditOffAndAlways(t *testing.T) {
	t.Parallel()
	f := newFixture(template("DONE", "the answer"))
	if o := f.run(t); o.Stop != Done || o.Audit != event.AuditOff {
		t.Errorf("without an auditor: %+v", o)
	}
	f = newFixture(template("DONE", "the answer"))
	a := withAuditor(f, audit.Result{Verdict: audit.Pass, Feedback: "Overall: PASS", Steps: 1})
	if o := f.run(t); o.Stop != Done || o.Audit != event.AuditPassed || len(a.inputs) != 1 {
		t.Errorf("always: %+v, %d audits", o, len(a.inputs))
	}
}
