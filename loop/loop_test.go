package loop

import (
	"context"
	"errors"
	"fmt"
	"github.com/devagent/dev/event"
	"strings"
	"testing"
	"time"

	"github.com/devagent/dev/audit"
	"github.com/devagent/dev/llm"
	"github.com/devagent/dev/parser"
	"github.com/devagent/dev/sessions"
	"github.com/devagent/dev/shape"
	"github.com/devagent/dev/tools"
)

// fakeModel replays scripted replies or errors and records requests.
type fakeModel struct {
	script   []any // llm.Reply or error
	requests []llm.Request
	onStream func(ctx context.Context) // runs during the call, e.g. to cancel
}

func (m *fakeModel) Stream(ctx context.Context, req llm.Request, onDelta func(llm.Delta)) (llm.Reply, error) {
	m.requests = append(m.requests, req)
	if m.onStream != nil {
		m.onStream(ctx)
	}
	if ctx.Err() != nil {
		return llm.Reply{}, ctx.Err()
	}
	if len(m.script) == 0 {
		return llm.Reply{}, &llm.Error{Kind: llm.KindBadRequest, Message: "script exhausted"}
	}
	next := m.script[0]
	m.script = m.script[1:]
	if err, ok := next.(error); ok {
		return llm.Reply{}, err
	}
	reply := next.(llm.Reply)
	if onDelta != nil {
		onDelta(llm.Delta{Content: reply.Content})
	}
	return reply, nil
}

func text(s string) llm.Reply { return llm.Reply{Content: s, FinishReason: "stop"} }

func template(tool, input string) llm.Reply {
	return text("# Agent Response\n\n## Thoughts\nt\n\n## Tool Choice\n" + tool + "\n\n## Tool Input\n" + input + "\n")
}

// fakeTool echoes its input; fails when the input starts with "fail".
type fakeTool struct {
	name string
	runs *[]string
	run  func(ctx context.Context, input string) tools.Result
}

func (f fakeTool) Name() string   { return f.name }
func (f fakeTool) Doc() tools.Doc { return tools.Doc{Name: f.name} }
func (f fakeTool) Check(input string) (tools.Checked, error) {
	return tools.Bind(input, func(input string) (string, error) {
		if input == "bad" {
			return "", errors.New("input is bad")
		}
		return input, nil
	}, f.Run)
}
func (f fakeTool) Run(ctx context.Context, _ *tools.Env, input string) tools.Result {
	*f.runs = append(*f.runs, f.name+":"+input)
	if f.run != nil {
		return f.run(ctx, input)
	}
	res := tools.Result{Tool: f.name, OK: !strings.HasPrefix(input, "fail"), Output: "ran " + input}
	if f.name == "DONE" {
		res.Done, res.Output = true, input
	}
	return res
}

type fakeTools map[string]tools.Tool

func (f fakeTools) Names() []string {
	return []string{"ECHO", "DONE", "SLOW"}
}
func (f fakeTools) Lookup(name string) (tools.Tool, bool) { t, ok := f[name]; return t, ok }

type memStore struct{ saves int }

func (m *memStore) Save(*sessions.Session) error { m.saves++; return nil }

type recorder struct{ events []event.Event }

func (r *recorder) Emit(e event.Event) { r.events = append(r.events, e) }

func (r *recorder) names() string {
	var n []string
	for _, e := range r.events {
		if e.Name() != "streaming" && e.Name() != "reply" { // progress of a request
			n = append(n, e.Name())
		}
	}
	return strings.Join(n, ",")
}

type fixture struct {
	model *fakeModel
	runs  []string
	store *memStore
	rec   *recorder
	loop  *Loop
	sess  *sessions.Session
}

func newFixture(script ...any) *fixture {
	f := &fixture{model: &fakeModel{script: script}, store: &memStore{}, rec: &recorder{}}
	ts := fakeTools{}
	for _, n := range []string{"ECHO", "DONE", "SLOW"} {
		ts[n] = fakeTool{name: n, runs: &f.runs}
	}
	f.loop = &Loop{
		Model: f.model, Tools: ts, Env: &tools.Env{}, Store: f.store, Sink: f.rec,
		Config: Config{Params: llm.Params{Model: "m"}, SystemPrompt: "SYSTEM", MaxLoops: 20, MaxRetries: 2},
	}
	f.sess = &sessions.Session{ID: "s"}
	return f
}

func (f *fixture) run(t *testing.T) Outcome {
	t.Helper()
	return f.loop.Run(context.Background(), f.sess, "do it")
}

func TestRunToDone(t *testing.T) {
	t.Parallel()
	f := newFixture(template("ECHO", "hello"), template("DONE", "all done"))
	o := f.run(t)
	if o.Stop != Done || o.Summary != "all done" || o.Loops != 2 {
		t.Fatalf("outcome %+v", o)
	}
	if f.sess.Status != sessions.Complete {
		t.Errorf("status %q", f.sess.Status)
	}
	if got := strings.Join(f.runs, "|"); got != "ECHO:hello|DONE:all done" {
		t.Errorf("runs %q", got)
	}
	// request, reply, results, reply
	h := f.sess.History
	if len(h) != 4 || h[0].Content != "<user_request>\ndo it\n</user_request>" || !strings.Contains(h[2].Content, "ran hello") {
		t.Errorf("history %+v", h)
	}
	if req := f.model.requests[1]; req.Messages[0].Role != llm.RoleSystem || req.Messages[0].Content != "SYSTEM" || len(req.Messages) != 4 {
		t.Errorf("second request %+v", req.Messages)
	}
	if f.store.saves < 3 {
		t.Errorf("saved %d times; the session must be saved after every step", f.store.saves)
	}
	if got, want := f.rec.names(), "request,response,tool_start,tool_result,request,response,tool_start,tool_result"; got != want {
		t.Errorf("events %s, want %s", got, want)
	}
}

func TestFormatErrorRemovedAfterRecovery(t *testing.T) {
	t.Parallel()
	f := newFixture(text("garbage reply"), template("DONE", "ok"))
	o := f.run(t)
	if o.Stop != Done || o.FormatErrors != 1 {
		t.Fatalf("outcome %+v", o)
	}
	second := f.model.requests[1].Messages
	if len(second) != 4 || second[2].Content != "garbage reply" || !strings.Contains(second[3].Content, "could not be used") {
		t.Fatalf("the failed attempt and its error were not sent: %+v", second)
	}
	for _, m := range f.sess.History {
		if strings.Contains(m.Content, "garbage") || strings.Contains(m.Content, "could not be used") {
			t.Errorf("history keeps the failed attempt: %q", m.Content)
		}
	}
	if len(f.sess.History) != 2 {
		t.Errorf("history %+v", f.sess.History)
	}
}

func TestFormatRetriesExhausted(t *testing.T) {
	t.Parallel()
	f := newFixture(text("a"), text("b"), text("c"), text("d"))
	o := f.run(t)
	if o.Stop != FormatFailed || len(f.model.requests) != 3 || o.FormatErrors != 3 {
		t.Fatalf("outcome %+v after %d requests", o, len(f.model.requests))
	}
	if f.sess.Status != sessions.Failed {
		t.Errorf("status %q", f.sess.Status)
	}
	if len(f.sess.History) != 1 {
		t.Errorf("failed attempts left in history: %+v", f.sess.History)
	}
}

func TestToolCheckIsAFormatError(t *testing.T) {
	t.Parallel()
	f := newFixture(template("ECHO", "bad"), template("DONE", "ok"))
	o := f.run(t)
	if o.Stop != Done || o.FormatErrors != 1 || len(f.runs) != 1 {
		t.Fatalf("outcome %+v runs %v", o, f.runs)
	}
	if got := f.model.requests[1].Messages[3].Content; !strings.Contains(got, "ECHO: input is bad") {
		t.Errorf("format error %q", got)
	}
}

func TestCutOffReply(t *testing.T) {
	t.Parallel()
	cut := template("ECHO", "x")
	cut.FinishReason = "length"
	f := newFixture(cut, llm.Reply{Content: "", Reasoning: "hmm", FinishReason: "length"}, template("DONE", "ok"))
	o := f.run(t)
	if o.Stop != Done || len(f.runs) != 1 {
		t.Fatalf("outcome %+v runs %v", o, f.runs)
	}
	if got := f.model.requests[1].Messages[3].Content; !strings.Contains(got, "cut off") {
		t.Errorf("first error %q", got)
	}
	if got := f.model.requests[2].Messages; !strings.Contains(got[len(got)-1].Content, "reasoning used the whole output budget") {
		t.Errorf("second error %q", got[len(got)-1].Content)
	}
}

func TestSeveralToolsStopAtFailureAndDone(t *testing.T) {
	t.Parallel()
	multi := func(calls ...string) llm.Reply {
		s := "# Agent Response\n\n## Thoughts\nt\n"
		for i := 0; i < len(calls); i += 2 {
			s += "\n## Tool Choice\n" + calls[i] + "\n\n## Tool Input\n" + calls[i+1] + "\n"
		}
		return text(s)
	}
	f := newFixture(
		multi("ECHO", "one", "ECHO", "fail two", "ECHO", "three"),
		multi("ECHO", "four", "DONE", "finished", "ECHO", "never"),
	)
	o := f.run(t)
	if o.Stop != Done || o.Summary != "finished" {
		t.Fatalf("outcome %+v", o)
	}
	if got := strings.Join(f.runs, "|"); got != "ECHO:one|ECHO:fail two|ECHO:four|DONE:finished" {
		t.Errorf("runs %q", got)
	}
	results := f.model.requests[1].Messages[3].Content
	if !strings.Contains(results, "ran one") || !strings.Contains(results, "ran fail two") || !strings.Contains(results, "Not run") {
		t.Errorf("results message %q", results)
	}
}

func TestAPIErrorEndsTheRun(t *testing.T) {
	t.Parallel()
	// Retrying is the Model's business (llm.Retrier): an error that reaches
	// the loop ends the run, with the error kept for the caller to explain.
	f := newFixture(template("ECHO", "a"), &llm.Error{Kind: llm.KindAuth, Status: 401}, template("DONE", "ok"))
	o := f.run(t)
	var apiErr *llm.Error
	if o.Stop != Failed || !errors.As(o.Err, &apiErr) || apiErr.Status != 401 || len(f.model.requests) != 2 {
		t.Fatalf("outcome %+v after %d requests", o, len(f.model.requests))
	}
	if f.sess.Status != sessions.Failed {
		t.Errorf("status %q", f.sess.Status)
	}
}

func TestMaxLoops(t *testing.T) {
	t.Parallel()
	var script []any
	for i := range 10 {
		script = append(script, template("ECHO", fmt.Sprint(i)))
	}
	f := newFixture(script...)
	f.loop.MaxLoops = 4
	if o := f.run(t); o.Stop != MaxLoops || o.Loops != 4 || len(f.model.requests) != 4 {
		t.Fatalf("outcome %+v", o)
	}
}

func TestRepeatDetection(t *testing.T) {
	t.Parallel()
	var script []any
	for range 6 {
		script = append(script, template("ECHO", "same"))
	}
	f := newFixture(script...)
	o := f.run(t)
	if o.Stop != Looping || len(f.model.requests) != 4 {
		t.Fatalf("outcome %+v after %d requests", o, len(f.model.requests))
	}
	if got := f.model.requests[3].Messages; !strings.Contains(got[len(got)-1].Content, "change your approach") {
		t.Errorf("no warning to the model: %q", got[len(got)-1].Content)
	}
}

func TestInterruptDuringTool(t *testing.T) {
	t.Parallel()
	f := newFixture(template("SLOW", "x"), template("DONE", "never"))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f.loop.Tools.(fakeTools)["SLOW"] = fakeTool{name: "SLOW", runs: &f.runs, run: func(ctx context.Context, _ string) tools.Result {
		cancel()
		return tools.Result{Tool: "SLOW", Output: "interrupted"}
	}}
	o := f.loop.Run(ctx, f.sess, "do it")
	if o.Stop != Interrupted || f.sess.Status != sessions.Interrupted {
		t.Fatalf("outcome %+v status %q", o, f.sess.Status)
	}
	last := f.sess.History[len(f.sess.History)-1]
	if last.Role != llm.RoleUser || !strings.Contains(last.Content, "interrupted this step") {
		t.Errorf("last message %+v", last)
	}
}

func TestInterruptDuringRequestAfterFormatError(t *testing.T) {
	t.Parallel()
	f := newFixture(text("garbage"))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f.model.onStream = func(context.Context) {
		if len(f.model.requests) == 2 {
			cancel()
		}
	}
	o := f.loop.Run(ctx, f.sess, "do it")
	if o.Stop != Interrupted {
		t.Fatalf("outcome %+v", o)
	}
	h := f.sess.History
	if len(h) != 2 || strings.Contains(h[1].Content, "could not be used") || !strings.Contains(h[1].Content, "interrupted") {
		t.Errorf("history %+v", h)
	}
}

func TestTaskListKeptWhenOmitted(t *testing.T) {
	t.Parallel()
	withTasks := text("# Agent Response\n\n## Thoughts\nt\n\n## Task List\n[x] one\n[~] two\n\n## Tool Choice\nECHO\n\n## Tool Input\na\n")
	f := newFixture(withTasks, template("DONE", "ok"))
	f.run(t)
	if len(f.sess.TaskList) != 2 || f.sess.TaskList[1].Status != "in-progress" {
		t.Errorf("task list %+v", f.sess.TaskList)
	}
}

func TestUsageCounted(t *testing.T) {
	t.Parallel()
	r := template("DONE", "ok")
	r.Usage = &llm.Usage{PromptTokens: 100, CompletionTokens: 20, TotalTokens: 120}
	f := newFixture(r)
	f.run(t)
	if f.sess.TotalTokens != 120 {
		t.Errorf("totalTokens %d", f.sess.TotalTokens)
	}
}

// fakeAuditor returns scripted verdicts and records what it was given.
type fakeAuditor struct {
	verdicts []any // audit.Result or error
	inputs   []audit.Input
}

func (a *fakeAuditor) Audit(_ context.Context, in audit.Input) (audit.Result, error) {
	a.inputs = append(a.inputs, in)
	next := a.verdicts[0]
	a.verdicts = a.verdicts[1:]
	if err, ok := next.(error); ok {
		return audit.Result{}, err
	}
	return next.(audit.Result), nil
}

func withAuditor(f *fixture, verdicts ...any) *fakeAuditor {
	a := &fakeAuditor{verdicts: verdicts}
	f.loop.Auditor = a
	f.loop.MaxAuditFailures = 2
	f.loop.Now = func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }
	return a
}

func TestAuditPassCompletes(t *testing.T) {
	t.Parallel()
	f := newFixture(template("ECHO", "x"), template("DONE", "did it"))
	a := withAuditor(f, audit.Result{Verdict: audit.Pass, Feedback: "Overall: PASS", Steps: 3})
	o := f.run(t)
	if o.Stop != Done || o.Summary != "did it" || o.Audits != 1 {
		t.Fatalf("outcome %+v", o)
	}
	in := a.inputs[0]
	if in.Request != "do it" || in.Summary != "did it" {
		t.Errorf("audit input %+v", in)
	}
	// The request, ECHO's reply and results, then the DONE checked: 3.
	want := sessions.Audit{Timestamp: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Steps: 3, Verdict: "PASS", Feedback: "Overall: PASS", Reply: 3}
	if len(f.sess.Audits) != 1 || f.sess.Audits[0] != want {
		t.Errorf("session audits %+v", f.sess.Audits)
	}
	if !strings.Contains(f.rec.names(), "audit_start,audit") {
		t.Errorf("events %s", f.rec.names())
	}
}

func TestAuditTokensCountInTheSession(t *testing.T) {
	t.Parallel()
	f := newFixture(template("DONE", "did it"))
	withAuditor(f, audit.Result{Verdict: audit.Pass, Feedback: "Overall: PASS", Steps: 1, Tokens: 500})
	before := f.sess.TotalTokens
	if o := f.run(t); o.Stop != Done {
		t.Fatalf("outcome %+v", o)
	}
	worker := f.sess.TotalTokens - before - 500
	if worker <= 0 {
		t.Errorf("total %d: the audit's 500 tokens and the worker's are not both counted", f.sess.TotalTokens)
	}
}

func TestAuditFailFeedbackGoesToTheWorker(t *testing.T) {
	t.Parallel()
	f := newFixture(template("DONE", "first"), template("ECHO", "fix"), template("DONE", "second"))
	withAuditor(f, audit.Result{Verdict: audit.Fail, Feedback: "Overall: FAIL\nX is missing"}, audit.Result{Verdict: audit.Pass})
	o := f.run(t)
	if o.Stop != Done || o.Summary != "second" || o.Audits != 2 {
		t.Fatalf("outcome %+v", o)
	}
	msgs := f.model.requests[1].Messages
	got := msgs[len(msgs)-1].Content
	if !strings.Contains(got, `tool="DONE" ok="false"`) || !strings.Contains(got, "X is missing") {
		t.Errorf("the worker was not given the feedback as DONE's result: %q", got)
	}
	if len(f.sess.Audits) != 2 || f.sess.Audits[0].Verdict != "FAIL" {
		t.Fatalf("audits %+v", f.sess.Audits)
	}
	// Each audit names the reply whose DONE it checked.
	for i, summary := range []string{"first", "second"} {
		a := f.sess.Audits[i]
		if m := f.sess.History[a.Reply]; m.Role != llm.RoleAssistant || !strings.Contains(m.Content, "DONE\n\n## Tool Input\n"+summary) {
			t.Errorf("audit %d names message %d, %q: want the DONE %q", i+1, a.Reply, m.Content, summary)
		}
	}
}

func TestAuditFailuresEndTheRun(t *testing.T) {
	t.Parallel()
	f := newFixture(template("DONE", "a"), template("DONE", "b"), template("DONE", "c"))
	fail := audit.Result{Verdict: audit.Fail, Feedback: "no"}
	withAuditor(f, fail, fail, fail)
	o := f.run(t)
	if o.Stop != AuditFailed || o.Audits != 2 || len(f.model.requests) != 2 {
		t.Fatalf("outcome %+v after %d requests", o, len(f.model.requests))
	}
	if f.sess.Status != sessions.Failed {
		t.Errorf("status %q", f.sess.Status)
	}
}

func TestAuditErrors(t *testing.T) {
	t.Parallel()
	f := newFixture(template("DONE", "a"))
	withAuditor(f, fmt.Errorf("wrapped: %w", audit.ErrFormat))
	if o := f.run(t); o.Stop != FormatFailed || !errors.Is(o.Err, audit.ErrFormat) {
		t.Errorf("format: outcome %+v", o)
	}
	f = newFixture(template("DONE", "a"))
	withAuditor(f, &llm.Error{Kind: llm.KindAuth})
	var apiErr *llm.Error
	if o := f.run(t); o.Stop != Failed || !errors.As(o.Err, &apiErr) {
		t.Errorf("api: outcome %+v", o)
	}
}

func TestAuditGetsTheEvidence(t *testing.T) {
	t.Parallel()
	f := newFixture(template("ECHO", "w"), template("ECHO", "w"), template("ECHO", "c"), template("DONE", "ok"))
	ts := f.loop.Tools.(fakeTools)
	ts["ECHO"] = fakeTool{name: "ECHO", runs: &f.runs, run: func(_ context.Context, input string) tools.Result {
		if input == "w" {
			return tools.Result{Tool: "ECHO", OK: true, Output: "wrote " + fmt.Sprint(len(f.runs)), Files: []string{"a.go"}}
		}
		return tools.Result{Tool: "ECHO", OK: true, Output: "ran", Command: "go test", ExitCode: 1}
	}}
	f.sess.OriginalPrompt = "first request"
	f.sess.TaskList = []parser.Task{{Status: "complete", Text: "t"}}
	a := withAuditor(f, audit.Result{Verdict: audit.Pass})
	f.run(t)
	in := a.inputs[0]
	if strings.Join(in.Files, ",") != "a.go" || len(in.Commands) != 1 || in.Commands[0] != (audit.Command{Command: "go test", ExitCode: 1}) {
		t.Errorf("evidence %+v", in)
	}
	if in.Original != "first request" || in.Request != "do it" || len(in.Tasks) != 1 || in.Tasks[0].Status != parser.Complete {
		t.Errorf("input %+v", in)
	}
}

// The example conversation shown after format errors is one the worker
// would accept: user and assistant in turn, ending with the assistant, and
// every reply parses with the worker's own tools.
func TestFormatExampleParses(t *testing.T) {
	t.Parallel()
	msgs := formatExample()
	if len(msgs) < 2 || len(msgs)%2 != 0 {
		t.Fatalf("%d example messages, want user and assistant in pairs", len(msgs))
	}
	for i, m := range msgs {
		want := llm.RoleUser
		if i%2 == 1 {
			want = llm.RoleAssistant
		}
		if m.Role != want || strings.TrimSpace(m.Content) == "" {
			t.Fatalf("example message %d: %+v, want a %s message", i, m, want)
		}
		if m.Role == llm.RoleAssistant {
			if _, err := tools.ParseReply(m.Content, tools.Worker()); err != nil {
				t.Errorf("example reply %d does not parse: %v\n%s", i, err, m.Content)
			}
		}
	}
	if !strings.HasPrefix(msgs[0].Content, "<user_request>") {
		t.Errorf("the example's request is not wrapped as a user's request is: %q", msgs[0].Content)
	}
}

// The worker's grammar, of the tools the shape offers, goes with every
// worker request (SPEC §18), the same bytes each time.
func TestGrammarInEveryRequest(t *testing.T) {
	t.Parallel()
	f := newFixture(text("not a template"), template("ECHO", "a"), template("DONE", "ok"))
	f.loop.Constrain, f.loop.Known = shape.Auto, &shape.Known{Server: llm.ServerInfo{Kind: llm.ServerLlamaCpp}}
	f.loop.Offered = []parser.GrammarTool{{Name: "ECHO"}, {Name: "DONE"}}
	if o := f.run(t); o.Stop != Done {
		t.Fatalf("outcome %+v", o)
	}
	g := f.model.requests[0].Grammar
	if !strings.Contains(g, `"ECHO\n\n## Tool Input\n"`) || f.model.requests[0].GrammarField != "grammar" {
		t.Fatalf("request 0 carried grammar %q in %q", g, f.model.requests[0].GrammarField)
	}
	for i, r := range f.model.requests {
		if r.Grammar != g {
			t.Errorf("request %d carried another grammar", i)
		}
	}
}

// Each request counts in the session's Prompts, and the last one, as
// typed (without the files its @ mentions attached), is its LastPrompt:
// what lists of sessions show.
func TestRequestsCounted(t *testing.T) {
	t.Parallel()
	f := newFixture(template("DONE", "one"), template("DONE", "two"))
	f.run(t)
	if f.sess.Prompts != 1 || f.sess.LastPrompt != "do it" {
		t.Errorf("after a request: %d prompts, the last %q", f.sess.Prompts, f.sess.LastPrompt)
	}
	f.loop.Run(context.Background(), f.sess, "look at @a.go\n\n<file path=\"a.go\">\npackage a\n</file>")
	if f.sess.Prompts != 2 || f.sess.LastPrompt != "look at @a.go" || f.sess.OriginalPrompt != "do it" {
		t.Errorf("after a second: %d prompts, the last %q, the first %q", f.sess.Prompts, f.sess.LastPrompt, f.sess.OriginalPrompt)
	}
}
