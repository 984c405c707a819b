package step

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/devagent/dev/event"
	"github.com/devagent/dev/llm"
	"github.com/devagent/dev/parser"
	"github.com/devagent/dev/sessions"
	"github.com/devagent/dev/tools"
)

type echo struct{}

func (echo) Name() string   { return "ECHO" }
func (echo) Doc() tools.Doc { return tools.Doc{Name: "ECHO"} }
func (e echo) Check(input string) (tools.Checked, error) {
	return tools.Bind(input, tools.AsWritten, e.Run)
}
func (e echo) Run(_ context.Context, _ *tools.Env, input string) tools.Result {
	return tools.Result{Tool: "ECHO", OK: !strings.Contains(input, "fail"), Output: input}
}

type recorder struct{ events []event.Event }

func (r *recorder) Emit(e event.Event) { r.events = append(r.events, e) }

func template(calls ...string) string {
	var b strings.Builder
	b.WriteString("# Agent Response\n\n## Thoughts\nok\n\n")
	for _, c := range calls {
		b.WriteString("## Tool Choice\nECHO\n\n## Tool Input\n" + c + "\n\n")
	}
	return b.String()
}

func conversation() (*Conversation, *recorder) {
	rec := &recorder{}
	return &Conversation{Agent: event.Auditor, Tools: tools.NewRegistry(echo{}, tools.DoneTool{}), Env: &tools.Env{},
		Sink: rec, MaxRetries: 2, State: &sessions.Session{}}, rec
}

func TestWindow(t *testing.T) {
	t.Parallel()
	var unknown *Window
	if unknown.Size() != 0 || unknown.Lower(10) {
		t.Errorf("a nil window is unknown and stays so")
	}
	w := NewWindow(0)
	if !w.Lower(4096) || w.Size() != 4096 {
		t.Errorf("an unknown window takes the first size it learns: %d", w.Size())
	}
	if w.Lower(8192) || w.Lower(0) || w.Size() != 4096 {
		t.Errorf("a window never grows: %d", w.Size())
	}
	if !w.Lower(2048) || w.Size() != 2048 {
		t.Errorf("a smaller window is taken: %d", w.Size())
	}
}

func TestRejectThenAcceptDropsTheFailedAttempts(t *testing.T) {
	t.Parallel()
	c, rec := conversation()
	c.Append(llm.Message{Role: llm.RoleUser, Content: "do it"})
	garbage := llm.Reply{Content: "<think>hmm</think>not a template", FinishReason: "stop"}
	_, formatErr := c.Parse(garbage)
	var fe *parser.FormatError
	if !errors.As(formatErr, &fe) {
		t.Fatalf("parse error %v", formatErr)
	}
	for range 2 {
		if c.Reject(garbage, formatErr) {
			t.Fatal("retries exhausted too early")
		}
	}
	if n := len(c.State.History); n != 5 || c.State.History[1].Content != "not a template" {
		t.Fatalf("history after two rejections: %+v", c.State.History)
	}
	resp, err := c.Parse(llm.Reply{Content: template("a"), FinishReason: "stop"})
	if err != nil {
		t.Fatal(err)
	}
	c.Accept(resp, 3)
	if n := len(c.State.History); n != 2 || !strings.HasPrefix(c.State.History[1].Content, "# Agent Response") {
		t.Errorf("history after acceptance: %+v", c.State.History)
	}
	if c.FormatErrors != 2 {
		t.Errorf("format errors %d, want 2", c.FormatErrors)
	}
	for _, e := range rec.events {
		if fp, ok := e.(event.FormatProblem); ok && fp.Agent != event.Auditor {
			t.Errorf("format problem marked %q", fp.Agent)
		}
	}
	// The count of consecutive failures starts again after a success.
	for range 2 {
		if c.Reject(garbage, formatErr) {
			t.Error("the failure count was not reset by the success")
		}
	}
	if !c.Reject(garbage, formatErr) {
		t.Error("a third failure in a row does not exhaust MaxRetries 2")
	}
}

func TestCutOffReplyIsAFormatError(t *testing.T) {
	t.Parallel()
	c, _ := conversation()
	_, err := c.Parse(llm.Reply{Content: template("a"), FinishReason: "length"})
	var fe *parser.FormatError
	if !errors.As(err, &fe) || !strings.Contains(fe.Message, "cut off") {
		t.Errorf("err %v", err)
	}
}

func TestActStopsAtTheFirstFailureAndAfterDone(t *testing.T) {
	t.Parallel()
	c, rec := conversation()
	resp, err := c.Parse(llm.Reply{Content: template("a", "fail here", "never"), FinishReason: "stop"})
	if err != nil {
		t.Fatal(err)
	}
	results, done := c.Act(context.Background(), resp)
	if done || len(results) != 2 || results[1].OK {
		t.Errorf("results %+v done %v", results, done)
	}
	var inputs []string
	for _, e := range rec.events {
		if f, ok := e.(event.ToolFinished); ok {
			if f.Agent != event.Auditor {
				t.Errorf("tool event marked %q", f.Agent)
			}
			inputs = append(inputs, f.Input)
		}
	}
	if strings.Join(inputs, "|") != "a|fail here" {
		t.Errorf("tool_result inputs %q", inputs)
	}
	resp, _ = c.Parse(llm.Reply{Content: "# Agent Response\n\n## Thoughts\nx\n\n## Tool Choice\nDONE\n\n## Tool Input\nfinished\n\n## Tool Choice\nECHO\n\n## Tool Input\nafter\n", FinishReason: "stop"})
	if results, done := c.Act(context.Background(), resp); !done || len(results) != 1 {
		t.Errorf("DONE: results %+v done %v", results, done)
	}
}

// reading counts its Checks, and its runs see what its Check read.
type reading struct {
	checks *int
	ran    *[]string
}

func (reading) Name() string   { return "ECHO" }
func (reading) Doc() tools.Doc { return tools.Doc{Name: "ECHO"} }
func (r reading) Check(input string) (tools.Checked, error) {
	*r.checks++
	return tools.Bind(input, func(input string) (string, error) { return "read " + strings.TrimSpace(input), nil }, r.run)
}
func (r reading) run(_ context.Context, _ *tools.Env, in string) tools.Result {
	*r.ran = append(*r.ran, in)
	return tools.Result{Tool: "ECHO", OK: true}
}

// Each call's input is read once, by Parse; Act runs the tools with what
// their Check read, in order (issue 32).
func TestActRunsTheInputsParseRead(t *testing.T) {
	t.Parallel()
	checks, ran := 0, []string(nil)
	c, _ := conversation()
	c.Tools = tools.NewRegistry(reading{&checks, &ran})
	resp, err := c.Parse(llm.Reply{Content: template("a", "b"), FinishReason: "stop"})
	if err != nil {
		t.Fatal(err)
	}
	c.Accept(resp, 1)
	if results, _ := c.Act(context.Background(), resp); len(results) != 2 {
		t.Fatalf("results %+v", results)
	}
	if checks != 2 || strings.Join(ran, "|") != "read a|read b" {
		t.Errorf("%d checks, runs with %q; want 2, each run with its input as read", checks, ran)
	}
}

// A model that fails the format twice in a row is shown the example
// exchange, instead of its failed attempts, from the next request on; the
// example never enters the history, and a model that never fails never
// sees it.
func TestExampleAfterTwoFormatErrors(t *testing.T) {
	t.Parallel()
	c, _ := conversation()
	c.MaxRetries = 3
	c.Example = []llm.Message{{Role: llm.RoleUser, Content: "example request"}, {Role: llm.RoleAssistant, Content: "example reply"}}
	c.Append(llm.Message{Role: llm.RoleUser, Content: "do it"})
	contents := func() []string {
		var out []string
		for _, m := range c.request(c.plan()).Messages[1:] {
			out = append(out, m.Content)
		}
		return out
	}
	if got := contents(); len(got) != 1 {
		t.Fatalf("the first request carries %q", got)
	}
	garbage := llm.Reply{Content: "not a template", FinishReason: "stop"}
	_, formatErr := c.Parse(garbage)

	c.Reject(garbage, formatErr)
	got := contents()
	if len(got) != 3 || got[1] != "not a template" || !strings.Contains(got[2], "could not be used") {
		t.Fatalf("after one format error the request is %q, want the attempt and why it failed", got)
	}
	c.Reject(garbage, formatErr)
	if got := contents(); len(got) != 4 || got[0] != "example request" || got[1] != "example reply" || got[2] != "do it" ||
		!strings.Contains(got[3], "could not be used") {
		t.Fatalf("after two format errors the request is %q, want the example, then the history without the attempts, and why", got)
	}
	c.Reject(garbage, formatErr)
	if got := contents(); len(got) != 6 || got[0] != "example request" || got[4] != "not a template" || !strings.Contains(got[5], "could not be used") {
		t.Fatalf("after three format errors the request is %q, want the example, the history, the last attempt and why", got)
	}

	resp, err := c.Parse(llm.Reply{Content: template("a"), FinishReason: "stop"})
	if err != nil {
		t.Fatal(err)
	}
	c.Accept(resp, 4)
	if n := len(c.State.History); n != 2 || c.State.History[0].Content != "do it" {
		t.Errorf("the history after acceptance: %+v", c.State.History)
	}
	if got := contents(); got[0] != "example request" {
		t.Errorf("the example left the requests after a success: %q (it stays, for the prompt cache)", got)
	}

	fresh, _ := conversation()
	fresh.Example = c.Example
	fresh.Append(llm.Message{Role: llm.RoleUser, Content: "do it"})
	if len(fresh.request(fresh.plan()).Messages) != 2 {
		t.Errorf("a conversation without format errors sends the example")
	}
}
