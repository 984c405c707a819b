package app

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/devagent/dev/config"
	"github.com/devagent/dev/event"
	"github.com/devagent/dev/llm"
	"github.com/devagent/dev/llm/llmtest"
)

// lastUser is the last user message a request sent.
func lastUser(r llmtest.Request) string {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		if r.Messages[i].Role == llm.RoleUser {
			return r.Messages[i].Content
		}
	}
	return ""
}

// In plan mode the model may only read: writing and commands outside the
// auditor's list are refused with a result that says why, read-only
// commands run, the request tells the model, the DONE (the plan) is not
// audited, and nothing changes in the directory.
func TestPlanModeOnlyReads(t *testing.T) {
	w := newWorld(t)
	w.opts.Config.Approval = config.ApprovalPlan
	w.opts.NoAudit = false
	w.opts.Config.Audit = config.AuditAlways
	w.srv.Script(
		reply("WRITE_FILE", "a.txt\n```\nalpha\n```"),
		reply("COMMAND", "touch b.txt"),
		reply("COMMAND", "ls"),
		reply("DONE", "Plan: write a.txt."),
	)
	a := w.open()
	res := a.Run(context.Background(), "plan it")
	if res.Code != ExitOK || res.Summary != "Plan: write a.txt." || res.Audit != event.AuditOff {
		t.Fatalf("result %+v", res)
	}
	for _, f := range []string{"a.txt", "b.txt"} {
		if _, err := os.Stat(filepath.Join(w.opts.Dir, f)); err == nil {
			t.Errorf("%s was created in plan mode", f)
		}
	}
	reqs := w.srv.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests, want 4 (no audit)", len(reqs))
	}
	if first := lastUser(reqs[0]); !strings.Contains(first, "<user_request>\nplan it\n</user_request>") || !strings.Contains(first, "plan mode") {
		t.Errorf("the request does not say plan mode: %q", first)
	}
	for i, want := range []string{`tool="WRITE_FILE" ok="false"`, `tool="COMMAND" ok="false"`, `tool="COMMAND" ok="true"`} {
		got := lastUser(reqs[i+1])
		if !strings.Contains(got, want) {
			t.Errorf("result %d: %q, want %s", i+1, got, want)
		}
		if strings.Contains(want, "false") && !strings.Contains(got, "plan mode") && !strings.Contains(got, "not an allowed audit command") {
			t.Errorf("result %d does not say why: %q", i+1, got)
		}
	}
	if got := lastUser(reqs[1]); !strings.Contains(got, "the session is in plan mode") {
		t.Errorf("the refusal does not name plan mode: %q", got)
	}
}

// The approval mode switches between requests: out of plan mode the
// tools work again and the audit is back.
func TestSetApproval(t *testing.T) {
	w := newWorld(t)
	w.opts.Config.Approval = config.ApprovalPlan
	w.srv.Script(reply("WRITE_FILE", "a.txt\n```\nalpha\n```"), reply("DONE", "Plan."),
		reply("WRITE_FILE", "a.txt\n```\nalpha\n```"), reply("DONE", "Wrote it."))
	a := w.open()
	if got := a.Approval(); got != config.ApprovalPlan {
		t.Fatalf("Approval = %q", got)
	}
	a.Run(context.Background(), "plan it")
	if _, err := os.Stat(filepath.Join(w.opts.Dir, "a.txt")); err == nil {
		t.Fatal("a.txt written in plan mode")
	}
	if err := a.SetApproval("sometimes"); err == nil || !strings.Contains(err.Error(), "auto, edits, ask, plan") {
		t.Errorf("a bad mode: %v", err)
	}
	if err := a.SetApproval(config.ApprovalAuto); err != nil {
		t.Fatal(err)
	}
	if res := a.Run(context.Background(), "do it"); res.Code != ExitOK {
		t.Fatalf("result %+v", res)
	}
	if data, err := os.ReadFile(filepath.Join(w.opts.Dir, "a.txt")); err != nil || string(data) != "alpha\n" {
		t.Errorf("a.txt after switching to auto: %q %v", data, err)
	}
	reqs := w.srv.Requests()
	if got := lastUser(reqs[2]); strings.Contains(got, "plan_mode") {
		t.Errorf("the request after switching still says plan mode: %q", got)
	}
	// The system prompt stays the same across the switch: the server's
	// prompt cache keeps the conversation's prefix.
	if reqs[0].Messages[0].Content != reqs[3].Messages[0].Content {
		t.Error("switching the mode changed the system prompt")
	}
}

// /init may read and write AGENTS.md, each change asked about with its
// diff, and nothing else.
func TestInitWritesOnlyAgentsFile(t *testing.T) {
	w := newWorld(t)
	w.opts.Automated = false
	var asked []string
	w.opts.Ask = func(_ context.Context, q string) (string, error) {
		asked = append(asked, q)
		return "y", nil
	}
	w.srv.Script(
		reply("WRITE_FILE", "notes.md\n```\nx\n```"),
		reply("COMMAND", "rm -f go.mod"),
		reply("WRITE_FILE", "AGENTS.md\n```\n# Agents\n\nRun go test ./...\n```"),
		reply("DONE", "Wrote AGENTS.md."),
	)
	if err := os.WriteFile(filepath.Join(w.opts.Dir, "go.mod"), []byte("module x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	a := w.open()
	res := a.Init(context.Background())
	if res.Code != ExitOK {
		t.Fatalf("result %+v", res)
	}
	if data, err := os.ReadFile(filepath.Join(w.opts.Dir, "AGENTS.md")); err != nil || !strings.Contains(string(data), "Run go test") {
		t.Errorf("AGENTS.md: %q %v", data, err)
	}
	for _, f := range []string{"notes.md"} {
		if _, err := os.Stat(filepath.Join(w.opts.Dir, f)); err == nil {
			t.Errorf("/init wrote %s", f)
		}
	}
	if _, err := os.Stat(filepath.Join(w.opts.Dir, "go.mod")); err != nil {
		t.Errorf("/init ran rm: %v", err)
	}
	if len(asked) != 1 || !strings.Contains(asked[0], "Create AGENTS.md?") || !strings.Contains(asked[0], "+Run go test ./...") {
		t.Errorf("questions %q: want one, with the diff of AGENTS.md", asked)
	}
	reqs := w.srv.Requests()
	if got := lastUser(reqs[0]); !strings.Contains(got, "AGENTS.md") {
		t.Errorf("the request: %q", got)
	}
	if got := lastUser(reqs[1]); !strings.Contains(got, "Refused: /init writes AGENTS.md only, not notes.md.") {
		t.Errorf("WRITE_FILE notes.md: %q", got)
	}
	if got := lastUser(reqs[2]); !strings.Contains(got, `tool="COMMAND" ok="false"`) {
		t.Errorf("rm: %q", got)
	}
	// After /init the tools are the mode's again.
	w.srv.Script(reply("WRITE_FILE", "notes.md\n```\nx\n```"), reply("DONE", "ok"))
	a.Run(context.Background(), "write notes")
	if _, err := os.Stat(filepath.Join(w.opts.Dir, "notes.md")); err != nil {
		t.Errorf("after /init, notes.md: %v", err)
	}
}
