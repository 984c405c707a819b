package repl

import (
	"bytes"
	"context"
	"errors"
	"github.com/devagent/dev/slashcmd"
	"github.com/devagent/dev/tools"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/devagent/dev/app"
	"github.com/devagent/dev/config"
	"github.com/devagent/dev/loop"
	"github.com/devagent/dev/parser"
	"github.com/devagent/dev/prompts"
	"github.com/devagent/dev/sessions"
	"github.com/devagent/dev/ui"
	"github.com/rivo/uniseg"
)

// fakeApp records what the REPL asks of the app.
type fakeApp struct {
	fileCommands []slashcmd.Command
	profile      string
	sess         *sessions.Session
	requests     []string
	model        string
	audit        string
	resumed      []string
	compacts     int
	approval     string
	inits        int
	// result is what each request ends with.
	result app.Result
	others []sessions.Summary // the directory's other sessions
}

func (f *fakeApp) Run(_ context.Context, request string) app.Result {
	f.requests = append(f.requests, request)
	return f.result
}
func (f *fakeApp) Approval() string { return f.approval }
func (f *fakeApp) SetApproval(m string) error {
	if !slices.Contains(config.ApprovalModes, m) {
		return errors.New("bad mode")
	}
	f.approval = m
	return nil
}
func (f *fakeApp) Init(context.Context) app.Result { f.inits++; return app.Result{} }
func (f *fakeApp) Session() *sessions.Session      { return f.sess }
func (f *fakeApp) NewSession() error               { return nil }
func (f *fakeApp) Resume(id string) error {
	f.resumed = append(f.resumed, id)
	return nil
}
func (f *fakeApp) DirSessions() ([]sessions.Summary, error) {
	return append([]sessions.Summary{f.sess.Summary()}, f.others...), nil
}
func (f *fakeApp) Model() string       { return f.model }
func (f *fakeApp) SetModel(m string)   { f.model = m }
func (f *fakeApp) AuditPolicy() string { return f.audit }
func (f *fakeApp) SetAudit(p string) error {
	if !slices.Contains(config.AuditPolicies, p) {
		return errors.New("bad policy")
	}
	f.audit = p
	return nil
}
func (f *fakeApp) Compact(context.Context) (bool, error) { f.compacts++; return true, nil }
func (f *fakeApp) Shell(_ context.Context, command string) tools.Result {
	return tools.Result{Tool: tools.Command, OK: true, Output: "ran " + command}
}
func (f *fakeApp) Commands([]string) ([]slashcmd.Command, []string) { return f.fileCommands, nil }
func (f *fakeApp) Timeline() *app.Timeline                          { return nil }
func (f *fakeApp) Profile() (string, []string)                      { return f.profile, []string{"cloud", "local"} }
func (f *fakeApp) SetProfile(name string) error {
	f.profile = name
	return nil
}

// script is a lineReader that returns its lines (or errors) in order, then
// io.EOF; each read advances the clock by step.
type script struct {
	items   []any // string or error
	clock   *time.Time
	step    time.Duration
	prompts []string
}

func (s *script) read(prompt func() string) (string, error) { return s.ask(prompt()) }
func (s *script) ask(prompt string) (string, error) {
	s.prompts = append(s.prompts, prompt)
	*s.clock = s.clock.Add(s.step)
	if len(s.items) == 0 {
		return "", io.EOF
	}
	next := s.items[0]
	s.items = s.items[1:]
	if err, ok := next.(error); ok {
		return "", err
	}
	return next.(string), nil
}
func (s *script) useHistory(string) {}
func (s *script) typeAhead(bool)    {}
func (s *script) restore()          {}

type noScreen struct {
	boxes               []string
	questions, answered int
}

func (*noScreen) Last() (ui.LastResult, bool) {
	return ui.LastResult{Title: "COMMAND ls", Output: "a\nb"}, true
}
func (*noScreen) Tasks([]parser.Task)      {}
func (n *noScreen) Box(title, text string) { n.boxes = append(n.boxes, title+":"+text) }
func (n *noScreen) Question() func()       { n.questions++; return func() { n.answered++ } }

type never struct{}

func (never) Work(ctx context.Context) (context.Context, func()) { return ctx, func() {} }
func (never) Ending() bool                                       { return false }

func newTestREPL(t *testing.T, step time.Duration, items ...any) (*REPL, *fakeApp, *bytes.Buffer, *noScreen) {
	t.Helper()
	var errBuf bytes.Buffer
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	screen := &noScreen{}
	r := New(Options{Streams: &ui.Streams{Err: &errBuf, In: strings.NewReader("")}, ConfigDir: t.TempDir(), Intr: never{},
		Screen: screen, Now: func() time.Time { return now }})
	r.input = &script{items: items, clock: &now, step: step}
	a := &fakeApp{sess: &sessions.Session{ID: "11111111-2222-4333-8444-555555555555", WorkingDirectory: t.TempDir()}, model: "m", audit: config.AuditChanges, approval: config.ApprovalAuto}
	return r, a, &errBuf, screen
}

func TestCommands(t *testing.T) {
	t.Parallel()
	r, a, out, screen := newTestREPL(t, time.Millisecond,
		"/model", "/model qwen3", "/audit on", "/audit sometimes", "/audit off", "/hlep", "/resume 111111", "/compact",
		"/last", "/usr/bin/x is broken", "a request\non two lines", "/exit", "never read")
	if err := r.Run(a); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, want := range []string{
		"model: m (/model NAME switches for the next requests)",
		"model: qwen3 for the next requests",
		"audit: always",
		`dev: /audit takes on, off or changes, not "sometimes"`,
		"audit: off",
		"dev: unknown command /hlep; did you mean /help? (/help lists them)",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("lacks %q:\n%s", want, got)
		}
	}
	if a.model != "qwen3" || a.audit != config.AuditOff || a.compacts != 1 || !slices.Equal(a.resumed, []string{"111111"}) {
		t.Errorf("app: %+v", a)
	}
	if !slices.Equal(a.requests, []string{"/usr/bin/x is broken", "a request\non two lines"}) {
		t.Errorf("requests %q", a.requests)
	}
	if len(screen.boxes) != 1 || screen.boxes[0] != "COMMAND ls:a\nb" {
		t.Errorf("/last without a pager: %q", screen.boxes)
	}
}

// /resume without an id lists the directory's other sessions numbered,
// newest first, and resumes the one whose number is typed; an empty
// answer, one that is no number of the list, or Ctrl+C resumes nothing
// and says so.
func TestResumePicks(t *testing.T) {
	t.Parallel()
	r, a, out, _ := newTestREPL(t, time.Millisecond,
		"/resume", "2", "/resume", "", "/resume", "7", "/resume", "two", "/resume", errCtrlC, "/exit")
	at := time.Date(2025, 12, 31, 21, 0, 0, 0, time.UTC)
	a.others = []sessions.Summary{
		{ID: "aaaaaaaa-0000-4000-8000-000000000001", UpdatedAt: at, Status: sessions.Complete, OriginalPrompt: "write the parser", Prompts: 3, LastPrompt: "now the tests"},
		{ID: "bbbbbbbb-0000-4000-8000-000000000002", UpdatedAt: at.Add(-time.Hour), Status: sessions.Failed, OriginalPrompt: "fix the build", Prompts: 1, LastPrompt: "fix the build"},
	}
	if err := r.Run(a); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	if !slices.Equal(a.resumed, []string{a.others[1].ID}) {
		t.Errorf("resumed %q, want the second session only:\n%s", a.resumed, got)
	}
	for _, want := range []string{
		"LAST USED  STATUS    REQS  FIRST REQUEST     LAST REQUEST\n1  aaaaaaaa-",
		"3h ago     complete     3  write the parser  now the tests\n2  bbbbbbbb-",
		"4h ago     failed       1  fix the build\n",
		"Resume which session? Type its number (1 to 2), or press Enter for none.",
		"dev: nothing resumed: no number was typed",
		`dev: nothing resumed: "7" is not a number from 1 to 2`,
		`dev: nothing resumed: "two" is not a number from 1 to 2`,
		"dev: nothing resumed (Ctrl+C)",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, a.sess.ID) {
		t.Errorf("the open session is offered:\n%s", got)
	}
}

func TestHelpListsAddedCommands(t *testing.T) {
	t.Parallel()
	r, a, out, _ := newTestREPL(t, time.Millisecond, "/help", "/review x", "/exit")
	r.Add(Command{Name: "/review", Args: "[FILE]", Help: "review a file (from .dev/commands/review.md)",
		Run: func(arg string) (string, error) { return "Review " + arg + " please.", nil }})
	if err := r.Run(a); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"/review [FILE]", "review a file", "/new", "(also /clear)", "/audit [on|off|changes]"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("/help lacks %q:\n%s", want, out.String())
		}
	}
	if !slices.Equal(a.requests, []string{"Review x please."}) {
		t.Errorf("a command's request was not sent: %q", a.requests)
	}
}

// One Ctrl+C at an empty prompt asks for another; two within 2 s leave;
// two further apart do not.
func TestCtrlCTwice(t *testing.T) {
	t.Parallel()
	r, a, out, _ := newTestREPL(t, 3*time.Second, errCtrlC, errCtrlC, "still here", errCtrlC)
	r.Run(a)
	if n := strings.Count(out.String(), "press Ctrl+C again to exit"); n != 3 || !slices.Equal(a.requests, []string{"still here"}) {
		t.Errorf("slow presses: %d asks, requests %q:\n%s", n, a.requests, out.String())
	}
	r, a, out, _ = newTestREPL(t, time.Second, errCtrlC, errCtrlC, "never sent")
	r.Run(a)
	if n := strings.Count(out.String(), "press Ctrl+C again"); n != 1 || len(a.requests) != 0 {
		t.Errorf("quick presses: %d asks, requests %q", n, a.requests)
	}
}

func TestCompletion(t *testing.T) {
	t.Parallel()
	r, a, _, _ := newTestREPL(t, time.Millisecond)
	r.start(a)
	dir := a.sess.WorkingDirectory
	for _, p := range []string{"main.go", "main_test.go", "docs/guide.md", ".hidden", "my notes.md", ".git/config"} {
		os.MkdirAll(filepath.Join(dir, filepath.Dir(p)), 0o755)
		os.WriteFile(filepath.Join(dir, p), nil, 0o644)
	}
	for _, tt := range []struct {
		before, word string
		want         []string
	}{
		{"/he", "/he", []string{"/help"}},
		{"/", "/", nil}, // checked below: every command
		{"  /mo", "/mo", []string{"/model"}},
		{"fix /he", "", nil},   // not the first word
		{"/model qw", "", nil}, // an argument
		{"look at @ma", "@ma", []string{"@main.go", "@main_test.go"}},
		{"@do", "@do", []string{"@docs/"}},
		{"@docs/g", "@docs/g", []string{"@docs/guide.md"}},
		{"@.h", "@.h", []string{"@.hidden"}},
		{"@.g", "@.g", nil},                              // never .git
		{"@my", "@my", nil},                              // a quoted candidate would not go on from @my
		{`and @"my`, `@"my`, []string{`@"my notes.md"`}}, // so the quote comes first
		{"mail me@ma", "", nil},                          // an address, not a mention
		{"@main.go ", "", nil},                           // after the mention
	} {
		word, got := r.complete(tt.before)
		if tt.before == "/" {
			if len(got) < 10 || !slices.Contains(got, "/clear") {
				t.Errorf("%q: %q", tt.before, got)
			}
			continue
		}
		if word != tt.word || !slices.Equal(got, tt.want) {
			t.Errorf("complete(%q) = %q, %q; want %q, %q", tt.before, word, got, tt.word, tt.want)
		}
		for _, c := range got {
			if !strings.HasPrefix(c, word) {
				t.Errorf("complete(%q): %q does not go on from %q", tt.before, c, word)
			}
		}
	}
}

func TestTypedText(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ in, want string }{
		{"fix the bug\r", "fix the bug"},
		{"line one\rline two", "line one\nline two"},
		{"typo\x7f\x7fo!", "tyo!"},
		{"gone\x15kept", "kept"},
		{"two words\x17three", "two three"},
		{"a\x1b[Db\x1bOAc\x04", "abc"},
		{"héllo\tworld", "héllo world"},
		{"\r\r", ""},
	} {
		if got := typedText([]byte(tt.in)); got != tt.want {
			t.Errorf("typedText(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestHistoryPerDirectory(t *testing.T) {
	t.Parallel()
	a, b := historyPath("/c", "/p/one"), historyPath("/c", "/p/two")
	if a == b || filepath.Dir(a) != filepath.Join("/c", "histories") || historyPath("/c", "/p/one/") != a {
		t.Errorf("%s %s", a, b)
	}
}

func TestPromptIsASCIIWithoutUTF8(t *testing.T) {
	t.Parallel()
	for unicode, want := range map[bool]string{true: "› ", false: "> "} {
		r, a, _, _ := newTestREPL(t, time.Millisecond, "/exit")
		r.streams.Unicode = unicode
		r.Run(a)
		if got := r.input.(*script).prompts; len(got) != 1 || got[0] != want {
			t.Errorf("unicode %v: prompts %q", unicode, got)
		}
	}
}

// Every question stops the live part and is answered at the answer›
// prompt; the live part comes back only with an answer.
func TestAskIsAQuestion(t *testing.T) {
	t.Parallel()
	r, _, out, screen := newTestREPL(t, time.Millisecond, "y", errCtrlC)
	r.streams.Unicode = true
	if answer, err := r.Ask(context.Background(), "Run this command?\n  ls -la"); answer != "y" || err != nil {
		t.Fatalf("Ask = %q, %v", answer, err)
	}
	if _, err := r.Ask(context.Background(), "Which name?"); !errors.Is(err, context.Canceled) {
		t.Fatalf("Ctrl+C at a question: %v", err)
	}
	if got := r.input.(*script).prompts; !slices.Equal(got, []string{"answer› ", "answer› "}) {
		t.Errorf("prompts %q", got)
	}
	if screen.questions != 2 || screen.answered != 1 {
		t.Errorf("%d questions stopped the live part, %d answers started it again; want 2, 1", screen.questions, screen.answered)
	}
	if !strings.Contains(out.String(), "Run this command?\n  ls -la\n") {
		t.Errorf("the question is not shown: %q", out.String())
	}
}

// bareApp runs requests and nothing more.
type bareApp struct{ sess *sessions.Session }

func (bareApp) Run(context.Context, string) app.Result { return app.Result{} }
func (bareApp) Shell(context.Context, string) tools.Result {
	return tools.Result{}
}
func (b bareApp) Session() *sessions.Session { return b.sess }

// A command whose needs the app does not meet is left out: /help does not
// list it, and it is unknown.
func TestCommandsFollowTheApp(t *testing.T) {
	t.Parallel()
	r, a, out, _ := newTestREPL(t, time.Millisecond, "/help", "/model", "/exit")
	if err := r.Run(bareApp{sess: a.sess}); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, want := range []string{"/help", "/tasks", "/last", "unknown command /model"} {
		if !strings.Contains(got, want) {
			t.Errorf("lacks %q:\n%s", want, got)
		}
	}
	for _, missing := range []string{"/resume", "/compact", "/audit", "/rewind", "/profile"} {
		if strings.Contains(got, missing) {
			t.Errorf("lists %s, which the app cannot serve:\n%s", missing, got)
		}
	}
}

// /help and the messages of interactive mode fit the terminal, 80 columns
// and 60, wrapped between words (SPEC §17: every text fits).
func TestHelpFitsTheTerminal(t *testing.T) {
	t.Parallel()
	for _, width := range []int{80, 60} {
		r, a, out, _ := newTestREPL(t, time.Millisecond, "/help", "/approval", "/approval sometimes", "/exit")
		r.streams.ErrTTY, r.streams.Width, r.streams.Unicode = true, width, true
		r.Add(Command{Name: "/review", Args: "[FILE]", Help: "review a file against the project's conventions, as defined in .dev/commands/review.md"})
		if err := r.Run(a); err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(out.String(), "\n")
		for _, l := range lines {
			if n := uniseg.StringWidth(l); n >= width {
				t.Errorf("%d columns: a line of %d:\n%s", width, n, l)
			}
		}
		got := out.String()
		for _, want := range []string{"/approval [MODE]", "/init", "/checkpoints [all]", "Shift+Tab", "/review [FILE]"} {
			if !strings.Contains(got, want) {
				t.Errorf("%d columns: /help lacks %q:\n%s", width, want, got)
			}
		}
		if len(lines) < 25 {
			t.Errorf("%d columns: only %d lines:\n%s", width, len(lines), got)
		}
	}
}

// /approval shows and switches the mode; the prompt shows it when it is
// not auto; Shift+Tab cycles auto, edits, ask, plan.
func TestApprovalModes(t *testing.T) {
	t.Parallel()
	r, a, out, _ := newTestREPL(t, time.Millisecond, "/approval", "/approval edits", "/approval never", "/exit")
	r.streams.Unicode = true
	if err := r.Run(a); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"approval: auto (", "approval: edits for the next requests", `/approval takes auto, edits, ask, plan, not "never"`} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("lacks %q:\n%s", want, out.String())
		}
	}
	if got := r.input.(*script).prompts; !slices.Equal(got, []string{"› ", "› ", "edits› ", "edits› "}) {
		t.Errorf("prompts %q", got)
	}
	var cycle []string
	for range 4 {
		r.nextApproval()
		cycle = append(cycle, r.prompt())
	}
	if want := []string{"ask› ", "plan› ", "› ", "edits› "}; !slices.Equal(cycle, want) {
		t.Errorf("Shift+Tab: %q, want %q", cycle, want)
	}
}

// A plan made in plan mode is offered: yes and edits switch the mode and
// send the plan back as the next request; no leaves plan mode on.
func TestPlanIsOfferedToBeCarriedOut(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		answer, mode string
		carried      bool
	}{
		{"y", config.ApprovalAuto, true},
		{"e", config.ApprovalEdits, true},
		{"n", config.ApprovalPlan, false},
		{"", config.ApprovalPlan, false},
	} {
		r, a, out, _ := newTestREPL(t, time.Millisecond, "add Greet", tt.answer, "/exit")
		a.approval = config.ApprovalPlan
		a.result = app.Result{Outcome: loop.Outcome{Stop: loop.Done, Summary: "1. write greet.go"}}
		if err := r.Run(a); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out.String(), "Carry it out? [y]es, [e]dits") {
			t.Errorf("%q: not asked:\n%s", tt.answer, out.String())
		}
		want := []string{"add Greet"}
		if tt.carried {
			want = append(want, prompts.CarryOut("1. write greet.go"))
		}
		if !slices.Equal(a.requests, want) || a.approval != tt.mode {
			t.Errorf("%q: requests %q, mode %s", tt.answer, a.requests, a.approval)
		}
	}
	// Out of plan mode, or when the request did not end with a plan,
	// nothing is asked.
	r, a, out, _ := newTestREPL(t, time.Millisecond, "add Greet", "/exit")
	a.result = app.Result{Outcome: loop.Outcome{Stop: loop.Done, Summary: "Done."}}
	r.Run(a)
	if strings.Contains(out.String(), "Carry it out") {
		t.Errorf("asked in auto mode:\n%s", out.String())
	}
	r, a, out, _ = newTestREPL(t, time.Millisecond, "add Greet", "/exit")
	a.approval, a.result = config.ApprovalPlan, app.Result{Outcome: loop.Outcome{Stop: loop.Interrupted}}
	r.Run(a)
	if strings.Contains(out.String(), "Carry it out") {
		t.Errorf("asked after an interruption:\n%s", out.String())
	}
}

func TestInitCommand(t *testing.T) {
	t.Parallel()
	r, a, _, _ := newTestREPL(t, time.Millisecond, "/init", "/exit")
	r.Run(a)
	if a.inits != 1 || len(a.requests) != 0 {
		t.Errorf("inits %d, requests %q", a.inits, a.requests)
	}
}
