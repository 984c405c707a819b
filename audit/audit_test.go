package audit

import (
	"context"
	"errors"
	"github.com/devagent/dev/compress"
	"github.com/devagent/dev/event"
	"github.com/devagent/dev/step"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/devagent/dev/llm"
	"github.com/devagent/dev/parser"
	"github.com/devagent/dev/shape"
	"github.com/devagent/dev/tools"
)

// defaults is SPEC §4's default allowlist.
var defaults = []string{"cat", "head", "tail", "ls", "dir", "tree", "wc", "grep", "git status", "git diff", "git log",
	"git show", "npm test", "npm run build", "go test", "go build", "go vet", "cargo test", "cargo build", "pytest",
	"python -m pytest", "make test"}

func TestCommandPolicy(t *testing.T) {
	t.Parallel()
	p := newPolicy(defaults)
	tests := []struct {
		command string
		allowed bool
	}{
		// benign
		{"cat a", true},
		{"cat src/main.go README.md", true},
		{"head -n 20 main.go", true},
		{"tail -n 50 build.log", true},
		{"ls -la", true},
		{"ls", true},
		{"tree src", true},
		{"wc -l *.go", true},
		{"grep -rn TODO src", true},
		{"git status", true},
		{"git diff", true},
		{"git diff --stat HEAD~1", true},
		{"git log --oneline -5", true},
		{"git show HEAD:main.go", true},
		{"go test ./...", true},
		{"go vet ./...", true},
		{"go build ./...", true},
		{"npm test", true},
		{"npm run build", true},
		{"python -m pytest -q", true},
		{"  cat   a  ", true},
		{"make test", true},
		// hostile
		{"rm -rf a", false},
		{"cat a; rm a", false},
		{"cat a && rm a", false},
		{"cat a || rm a", false},
		{"cat a | sh", false},
		{"$(rm a)", false},
		{"cat $(rm a)", false},
		{"cat `rm a`", false},
		{"cat a > b", false},
		{"cat a >> b", false},
		{"cat < a", false},
		{"cat a\nrm a", false},
		{"cat a & rm a", false},
		{"catastrophe", false},
		{"cat-file a", false},
		{"git push", false},
		{"git commit -am x", false},
		{"git checkout -- a", false},
		{"git diff --output=b", false},
		{"git log --output b", false},
		{"go test -exec 'rm -rf' ./...", false},
		{"go build -o bin/app .", false},
		{"go vet -vettool=/bin/rm ./...", false},
		{"tree -o out.txt", false},
		{"npm install", false},
		{"npm run deploy", false},
		{"python script.py", false},
		{"sh -c 'cat a'", false},
		{"env cat a", false},
		{"sudo cat a", false},
		{"", false},
		{"make", false},
		{"git", false},
		{"git diff --ext-diff", false},
	}
	for _, tt := range tests {
		why := p.refusal(tt.command)
		if (why == "") != tt.allowed {
			t.Errorf("%q: refusal %q, want allowed=%v", tt.command, why, tt.allowed)
		}
	}
	if why := p.refusal("rm -rf a"); !strings.Contains(why, "git diff") {
		t.Errorf("a refusal should list what is allowed: %q", why)
	}
}

func TestFeedbackLine(t *testing.T) {
	t.Parallel()
	for report, want := range map[string]string{
		"Checked the files.\n\nOverall: FAIL\n\n  Run the tests first.\nThen DONE.": "Run the tests first.",
		"| Overall | FAIL |\n":              "| Overall | FAIL |",
		"\n  The tests fail.\nMore detail.": "The tests fail.",
		"":                                  "",
	} {
		if got := FeedbackLine(report); got != want {
			t.Errorf("FeedbackLine(%q) = %q, want %q", report, got, want)
		}
	}
}

func TestParseVerdict(t *testing.T) {
	t.Parallel()
	tests := []struct {
		report string
		want   Verdict
		ok     bool
	}{
		{"All good.\n\nOverall: PASS", Pass, true},
		{"overall: fail\nFix the test.", Fail, true},
		{"| Check | Status |\n|---|---|\n| tests | FAIL |\n\n**Overall:** PASS", Pass, true},
		{"Overall: **FAIL**", Fail, true},
		{"| Overall | PASS |", Pass, true},
		{"Overall verdict: pass", Pass, true},
		{"Format: `Overall: PASS` or `Overall: FAIL`.\n\nOverall: FAIL", Fail, true},
		{"Overall - Passed", Pass, true},
		{"The tests pass.", "", false},
		{"Overall the work looks fine. PASS", "", false},
		{"", "", false},
	}
	for _, tt := range tests {
		got, ok := ParseVerdict(tt.report)
		if got != tt.want || ok != tt.ok {
			t.Errorf("ParseVerdict(%q) = %q, %v; want %q, %v", tt.report, got, ok, tt.want, tt.ok)
		}
	}
}

// fakeModel replays auditor replies and records the requests.
type fakeModel struct {
	replies  []string
	requests []llm.Request
}

func (m *fakeModel) Stream(_ context.Context, req llm.Request, _ func(llm.Delta)) (llm.Reply, error) {
	m.requests = append(m.requests, req)
	if len(m.replies) == 0 {
		return llm.Reply{}, &llm.Error{Kind: llm.KindBadRequest, Message: "script exhausted"}
	}
	r := m.replies[0]
	m.replies = m.replies[1:]
	return llm.Reply{Content: r, FinishReason: "stop"}, nil
}

func reply(tool, input string) string {
	return "# Agent Response\n\n## Thoughts\nChecking.\n\n## Tool Choice\n" + tool + "\n\n## Tool Input\n" + input + "\n"
}

func newAuditor(t *testing.T, replies ...string) (*Auditor, *fakeModel, string) {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a"), []byte("alpha\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	m := &fakeModel{replies: replies}
	return &Auditor{Model: m, Params: llm.Params{Model: "auditor"}, Env: &tools.Env{Dir: dir}, Commands: defaults, MaxRetries: 2}, m, dir
}

var input = Input{
	Request:  "write a",
	Original: "write a",
	Tasks:    []parser.Task{{Status: parser.Complete, Text: "write a"}},
	Summary:  "Wrote a.",
	Files:    []string{"a", "src/b.go"},
	Commands: []Command{{Command: "go test ./...", ExitCode: 0}},
}

func TestAuditPass(t *testing.T) {
	t.Parallel()
	a, m, _ := newAuditor(t, reply("READ_FILE", "a"), reply("DONE", "a holds alpha.\n\nOverall: PASS"))
	rec := &recorder{}
	a.Sink = rec
	res, err := a.Audit(context.Background(), input)
	if err != nil || res.Verdict != Pass || res.Steps != 2 || len(eventsOf[event.ReplyParsed](rec)) != 2 {
		t.Fatalf("result %+v err %v", res, err)
	}
	first := m.requests[0]
	if first.Model != "auditor" || first.Messages[0].Role != llm.RoleSystem || !strings.Contains(first.Messages[0].Content, "auditor") {
		t.Errorf("first request %+v", first.Messages[0])
	}
	brief := first.Messages[1].Content
	for _, want := range []string{"write a", "[x] write a", "Wrote a.", "- a\n", "- src/b.go\n", "`go test ./...`: exit code 0"} {
		if !strings.Contains(brief, want) {
			t.Errorf("the auditor's first message lacks %q:\n%s", want, brief)
		}
	}
	if strings.Contains(brief, "The session began") {
		t.Errorf("the original request is repeated though it is the same:\n%s", brief)
	}
	if got := m.requests[1].Messages[3].Content; !strings.Contains(got, "alpha") {
		t.Errorf("READ_FILE output did not reach the auditor: %q", got)
	}
}

// recorder keeps the events an audit emits.
type recorder struct{ events []event.Event }

func (r *recorder) Emit(e event.Event) { r.events = append(r.events, e) }

func eventsOf[T event.Event](r *recorder) []T {
	var out []T
	for _, e := range r.events {
		if x, ok := e.(T); ok {
			out = append(out, x)
		}
	}
	return out
}

func TestAuditStepsAreEventsMarkedAsTheAudits(t *testing.T) {
	t.Parallel()
	a, _, _ := newAuditor(t, "no template", reply("READ_FILE", "a"), reply("DONE", "Overall: PASS"))
	rec := &recorder{}
	a.Sink = rec
	if _, err := a.Audit(context.Background(), input); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range rec.events {
		agent := event.Agent("")
		switch e := e.(type) {
		case event.RequestStarted:
			agent = e.Agent
		case event.ReplyParsed:
			agent = e.Agent
		case event.ToolStarted:
			agent = e.Agent
		case event.ToolFinished:
			agent = e.Agent
			if e.Input != "a" && e.Result.Tool == "READ_FILE" {
				t.Errorf("tool_result input %q, want the raw input", e.Input)
			}
		case event.FormatProblem:
			agent = e.Agent
		default:
			continue
		}
		if agent != event.Auditor {
			t.Errorf("%s event marked %q", e.Name(), agent)
		}
		names = append(names, e.Name())
	}
	want := "request,format_error,request,response,tool_start,tool_result,request,response,tool_start,tool_result"
	if got := strings.Join(names, ","); got != want {
		t.Errorf("events %s, want %s", got, want)
	}
}

func TestAuditDropsFailedAttemptsOnceARepliesParses(t *testing.T) {
	t.Parallel()
	a, m, _ := newAuditor(t, "no template at all", reply("READ_FILE", "a"), reply("DONE", "Overall: PASS"))
	if res, err := a.Audit(context.Background(), input); err != nil || res.Verdict != Pass {
		t.Fatalf("result %+v err %v", res, err)
	}
	for i, m := range m.requests[2].Messages {
		if strings.Contains(m.Content, "no template at all") || strings.Contains(m.Content, "could not be used") {
			t.Errorf("message %d of the third request still holds the failed attempt: %q", i, m.Content)
		}
	}
}

// overflowOnce fails the request at the given index with a context
// overflow, then replays the rest.
type overflowOnce struct {
	*fakeModel
	at    int
	calls int
}

func (o *overflowOnce) Stream(ctx context.Context, req llm.Request, d func(llm.Delta)) (llm.Reply, error) {
	o.calls++
	if o.calls == o.at {
		return llm.Reply{}, &llm.Error{Kind: llm.KindOverflow, Status: 400, PromptTokens: 900, ContextLimit: 800, Message: "too long"}
	}
	return o.fakeModel.Stream(ctx, req, d)
}

type summarizer struct{ calls int }

func (s *summarizer) Compact(_ context.Context, c compress.Conversation) (compress.Result, error) {
	s.calls++
	return compress.Result{History: []llm.Message{{Role: llm.RoleUser, Content: "[CONTEXT SUMMARY]\n\nread a\n\n[ORIGINAL REQUEST]\n\n" + c.OriginalRequest}}}, nil
}

func TestAuditOverflowCompressesAndRetriesLikeTheWorker(t *testing.T) {
	t.Parallel()
	a, m, _ := newAuditor(t, reply("READ_FILE", "a"), reply("DONE", "Overall: PASS"))
	model := &overflowOnce{fakeModel: m, at: 2}
	s := &summarizer{}
	a.Model, a.Compactor, a.Window = model, s, step.NewWindow(4000)
	rec := &recorder{}
	a.Sink = rec
	res, err := a.Audit(context.Background(), input)
	if err != nil || res.Verdict != Pass || s.calls != 1 {
		t.Fatalf("result %+v err %v, %d compressions", res, err, s.calls)
	}
	if got := a.Window.Size(); got != 800 {
		t.Errorf("window %d after the overflow, want the server's 800", got)
	}
	if c := eventsOf[event.Compressed](rec); len(c) != 1 || c[0].Agent != event.Auditor || c[0].Reason != event.ReasonOverflow {
		t.Errorf("compression events %+v", c)
	}
	if first := m.requests[1].Messages[1].Content; !strings.HasPrefix(first, "[CONTEXT SUMMARY]") {
		t.Errorf("the retried request does not start from the summary: %q", first)
	}

	// Without a compactor, an overflow ends the audit with the typed error.
	a, m, _ = newAuditor(t, reply("DONE", "Overall: PASS"))
	a.Model = &overflowOnce{fakeModel: m, at: 1}
	if _, err := a.Audit(context.Background(), input); !errors.Is(err, step.ErrContextTooSmall) {
		t.Errorf("err %v, want ErrContextTooSmall", err)
	}
}

func TestAuditFail(t *testing.T) {
	t.Parallel()
	a, _, _ := newAuditor(t, reply("DONE", "| check | status |\n|--|--|\n| b.go | FAIL |\n\nOverall: FAIL\nsrc/b.go does not exist."))
	res, err := a.Audit(context.Background(), input)
	if err != nil || res.Verdict != Fail || !strings.Contains(res.Feedback, "src/b.go does not exist") {
		t.Fatalf("result %+v err %v", res, err)
	}
}

func TestAuditAsksOnceForAMissingVerdict(t *testing.T) {
	t.Parallel()
	a, m, _ := newAuditor(t, reply("DONE", "Looks fine."), reply("DONE", "Looks fine."))
	res, err := a.Audit(context.Background(), input)
	if err != nil || res.Verdict != Fail || len(m.requests) != 2 || !strings.Contains(res.Feedback, "no verdict") {
		t.Fatalf("result %+v err %v after %d requests", res, err, len(m.requests))
	}
	if got := m.requests[1].Messages[3].Content; !strings.Contains(got, "Overall: PASS") {
		t.Errorf("the auditor was not asked for a verdict: %q", got)
	}

	a, _, _ = newAuditor(t, reply("DONE", "Looks fine."), reply("DONE", "Looks fine.\nOverall: PASS"))
	if res, err := a.Audit(context.Background(), input); err != nil || res.Verdict != Pass {
		t.Errorf("a verdict given when asked is not taken: %+v %v", res, err)
	}
}

func TestAuditStepLimit(t *testing.T) {
	t.Parallel()
	var replies []string
	for range 5 {
		replies = append(replies, reply("LIST_DIRECTORY", "."))
	}
	a, m, _ := newAuditor(t, replies...)
	a.MaxSteps = 3
	res, err := a.Audit(context.Background(), input)
	if err != nil || res.Verdict != Fail || res.Steps != 3 || len(m.requests) != 3 || !strings.Contains(res.Feedback, "within 3 steps") {
		t.Fatalf("result %+v err %v", res, err)
	}
}

func TestAuditFormatRetries(t *testing.T) {
	t.Parallel()
	a, m, _ := newAuditor(t, "no template", "still none", "nope", reply("DONE", "Overall: PASS"))
	_, err := a.Audit(context.Background(), input)
	if !errors.Is(err, ErrFormat) || len(m.requests) != 3 {
		t.Fatalf("err %v after %d requests", err, len(m.requests))
	}
	a, m, _ = newAuditor(t, "no template", reply("DONE", "Overall: PASS"))
	if res, err := a.Audit(context.Background(), input); err != nil || res.Verdict != Pass {
		t.Fatalf("result %+v err %v", res, err)
	}
	if got := lastMessage(m.requests[1]); !strings.Contains(got, "could not be used") {
		t.Errorf("format error not told: %q", got)
	}
}

func TestAuditAPIError(t *testing.T) {
	t.Parallel()
	a, _, _ := newAuditor(t) // no replies: the fake fails
	var apiErr *llm.Error
	if _, err := a.Audit(context.Background(), input); !errors.As(err, &apiErr) {
		t.Fatalf("err %v", err)
	}
}

func TestAuditSystemPromptOffersOnlyReadOnlyTools(t *testing.T) {
	t.Parallel()
	a, m, _ := newAuditor(t, reply("DONE", "Overall: PASS"))
	if _, err := a.Audit(context.Background(), input); err != nil {
		t.Fatal(err)
	}
	system := m.requests[0].Messages[0].Content
	for _, want := range []string{"## READ_FILE", "## LIST_DIRECTORY", "## COMMAND", "## DONE", "git diff", "Overall: PASS"} {
		if !strings.Contains(system, want) {
			t.Errorf("system prompt lacks %q", want)
		}
	}
	for _, unwanted := range []string{"## WRITE_FILE", "## FIND_AND_REPLACE_IN_FILE", "## ASK_USER", "## UPDATE_TASK_LIST"} {
		if strings.Contains(system, unwanted) {
			t.Errorf("system prompt offers %q", unwanted)
		}
	}
}

func lastMessage(req llm.Request) string {
	return req.Messages[len(req.Messages)-1].Content
}

// Constrained, every audit request carries the grammar of the auditor's own
// tools (READ_FILE, LIST_DIRECTORY, its COMMAND, DONE) and of no refused
// worker tool; the same bytes in every request and audit.
func TestAuditGrammarOfItsOwnTools(t *testing.T) {
	t.Parallel()
	a, m, _ := newAuditor(t, reply("READ_FILE", "a"), reply("DONE", "Overall: PASS"), reply("DONE", "Overall: PASS"))
	a.Constrain, a.Known = shape.Auto, &shape.Known{Server: llm.ServerInfo{Kind: llm.ServerLlamaCpp}}
	for range 2 {
		if _, err := a.Audit(context.Background(), input); err != nil {
			t.Fatal(err)
		}
	}
	g := m.requests[0].Grammar
	for _, name := range []string{"READ_FILE", "LIST_DIRECTORY", "COMMAND", "DONE"} {
		if !strings.Contains(g, `"`+name+`\n\n## Tool Input\n"`) {
			t.Errorf("the auditor's grammar lacks %s", name)
		}
	}
	for _, name := range []string{"WRITE_FILE", "FIND_AND_REPLACE_IN_FILE", "ASK_USER", "KILL_BACKGROUND_PROCESS"} {
		if strings.Contains(g, `"`+name+`\n`) {
			t.Errorf("the auditor's grammar offers %s, which it may not use", name)
		}
	}
	for i, r := range m.requests {
		if r.Grammar != g {
			t.Errorf("request %d carries another grammar", i)
		}
	}
	b, _, _ := newAuditor(t, reply("DONE", "Overall: PASS"))
	bm := b.Model.(*fakeModel)
	if _, err := b.Audit(context.Background(), input); err != nil || bm.requests[0].Grammar != "" {
		t.Errorf("unconstrained audit sent grammar %q (%v)", bm.requests[0].Grammar, err)
	}
}
