package web

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/devagent/dev/checkpoints"
	"github.com/devagent/dev/history"
	"github.com/devagent/dev/llm"
	"github.com/devagent/dev/parser"
	"github.com/devagent/dev/sessions"
	"github.com/devagent/dev/tools"
)

// The sessions of these tests are written as dev writes them, with the
// constructors of package history.

var t0 = time.Date(2026, 3, 14, 15, 9, 26, 0, time.UTC)

// hostile is model output that would run or break the page if it were
// written into the HTML as it is.
const hostile = `<script>window.__pwned=1</script><img src=x onerror="window.__pwned=2">"'></pre></div>`

const (
	phoneID   = "99999999-0000-4000-8000-000000000390"
	richID    = "0b0f4d5e-7a1c-4f3e-9b2a-1c2d3e4f5a6b"
	hostileID = "dddddddd-dddd-4ddd-8ddd-dddddddddddd"
	rewoundID = "eeeeeeee-0000-4000-8000-00000000000e"
	auditedID = "aaaaaaaa-0000-4000-8000-00000000000a"
)

func reply(thoughts string, tasks []parser.Task, calls ...parser.ToolCall) llm.Message {
	r := parser.Response{Thoughts: thoughts, Tasks: tasks, HasTaskList: tasks != nil, Tools: calls}
	return history.Reply(r)
}

func results(calls []parser.ToolCall, rs []tools.Result, note string) llm.Message {
	return history.Results(calls, tools.Held(rs), note)
}

func request(text string) llm.Message {
	return history.Request(text)
}

func ptr[T any](v T) *T { return &v }

// richSession has every kind of entry: a compression, thoughts, task
// lists, tools with long inputs and results, a failed command, a failed
// audit then a passed one, a second request that was interrupted.
func richSession() *sessions.Session {
	tasks1 := []parser.Task{{Status: parser.InProgress, Text: "Find the failing test"}, {Status: parser.Pending, Text: "Fix the parser"}}
	tasks2 := []parser.Task{{Status: parser.Complete, Text: "Find the failing test"}, {Status: parser.InProgress, Text: "Fix the parser"}}
	read := parser.ToolCall{Name: tools.ReadFile, Input: "parse.go 1-40"}
	run := parser.ToolCall{Name: tools.Command, Input: "```bash\ngo test ./...\n```"}
	write := parser.ToolCall{Name: tools.WriteFile, Input: "notes.md\n```markdown\n" + strings.Repeat("line of notes\n", 30) + "```"}
	edit := parser.ToolCall{Name: tools.FindAndReplace, Input: "parse.go\n```find\nreturn nil\n```\n```replace\nreturn err\n```"}
	done := parser.ToolCall{Name: tools.Done, Input: "Fixed the parser: errors are **returned** now.\n\n| file | change |\n|---|---|\n| parse.go | `return err` |"}
	feedback := "Overall: FAIL\nThe tests were not run after the edit.\nRun go test ./... and show it passes."
	long := strings.Repeat("ok  \tgithub.com/x/y\t0.01s\n", 40)

	h := []llm.Message{
		history.Compressed{Summary: "We read the code and found the parser.", Tasks: "[~] Find the failing test", Original: "Fix the failing parser test"}.Message(),
		reply("The test fails in parse.go; read it.", tasks1, read),
		results([]parser.ToolCall{read}, []tools.Result{{Tool: tools.ReadFile, OK: true, Output: "parse.go (120 lines)\nfunc Parse() error {\n\treturn nil\n}", Attrs: [][2]string{{"path", "parse.go"}}}}, ""),
		reply("Run the tests, then write notes.", tasks2, run, write),
		results([]parser.ToolCall{run, write}, []tools.Result{{Tool: tools.Command, OK: false, Output: "FAIL github.com/x/y\nexit code 1"}}, ""),
		reply("Fix it.", tasks2, edit, done),
		results([]parser.ToolCall{edit, done}, []tools.Result{
			{Tool: tools.FindAndReplace, OK: true, Output: "Replaced 1 match in parse.go", Attrs: [][2]string{{"path", "parse.go"}}},
			{Tool: tools.Done, OK: false, Output: "The audit did not accept your work. Fix what it found, then use DONE again.\n\n" + feedback},
		}, ""),
		reply("Run the tests this time.", nil, run),
		results([]parser.ToolCall{run}, []tools.Result{{Tool: tools.Command, OK: true, Output: long + "exit code 0"}},
			"You have run COMMAND with the same input 3 times in a row and got the same result."),
		reply("All green.", []parser.Task{{Status: parser.Complete, Text: "Find the failing test"}, {Status: parser.Complete, Text: "Fix the parser"}}, done),
		request("Now add a test for empty input"),
		reply("Write the test.", nil, parser.ToolCall{Name: tools.WriteFile, Input: "parse_test.go\n```go\npackage p\n```"}),
		history.InterruptedReply(),
	}
	var reqs []sessions.Request
	for i := range 9 {
		r := sessions.Request{Timestamp: t0.Add(time.Duration(i) * time.Minute), Model: "qwen3-coder", Purpose: sessions.PurposeWorker,
			PromptTokens: 4000 + 1500*i, CompletionTokens: 200 + 40*i, FirstByteMs: int64(800 + 300*i), DurationMs: int64(3000 + 700*i)}
		switch i {
		case 0:
			r.Purpose = sessions.PurposeCompress
		case 4, 7:
			r.Purpose = sessions.PurposeAudit
		case 2:
			r.FormatError = true
		}
		if i > 1 {
			r.CachedTokens = ptr(3000)
		}
		reqs = append(reqs, r)
	}
	return &sessions.Session{
		ID: richID, CreatedAt: t0, UpdatedAt: t0.Add(10 * time.Minute), WorkingDirectory: "/home/ann/parser",
		OriginalPrompt: "Fix the failing parser test", Prompts: 2, LastPrompt: "Now add a test for empty input", Model: "qwen3-coder", Status: sessions.Interrupted,
		TaskList: []parser.Task{{Status: parser.Complete, Text: "Find the failing test"}, {Status: parser.Complete, Text: "Fix the parser"}},
		History:  h, TotalTokens: 60000,
		Compressions: []sessions.Compression{{Timestamp: t0.Add(time.Minute), TokensBefore: 30000, TokensAfter: 1200}},
		Audits: []sessions.Audit{
			{Timestamp: t0.Add(5 * time.Minute), Steps: 3, Verdict: "FAIL", Feedback: feedback},
			{Timestamp: t0.Add(8 * time.Minute), Steps: 2, Verdict: "PASS", Feedback: "Overall: PASS\nThe tests pass."},
		},
		Requests: reqs, Cost: ptr(0.0123),
	}
}

// calcPy is the file phoneSession's first request attaches (16 lines),
// with a line that no screen is wide enough for.
var calcPy = "def add(a, b):\n    return a + b\n\n\ndef div(a, b):\n    return a * b  # wrong\n\n\n" +
	"def mean(xs):\n    return div(sum(xs), len(xs))\n\n\n" +
	"TABLE = {'add': add, 'div': div, 'mean': mean, 'a_rather_long_name_for_an_entry': add, 'another_long_entry_name': div}\n\n\n" +
	"# end of calc.py"

// attached is a request as dev stores it: its text, then each file its @
// mentions attached.
func attached(text string, files ...[2]string) string {
	var b strings.Builder
	b.WriteString(text)
	for _, f := range files {
		fmt.Fprintf(&b, "\n\n<file path=%q>\n%s\n</file>", f[0], f[1])
	}
	return b.String()
}

// phoneSession is what runs off a phone's screen when nothing keeps it in
// its box: a long directory, a request with an attached file, a long
// path, a command and code lines without spaces, an answer with a wide
// table, a long code line and a long link, and many requests in the chart.
func phoneSession() *sessions.Session {
	long := "src/calculator/implementation/arithmetic_operations_with_a_rather_long_module_name.py"
	read := parser.ToolCall{Name: tools.ReadFile, Input: long}
	run := parser.ToolCall{Name: tools.Command, Input: "```bash\npython -m pytest tests/test_calculator_arithmetic_operations.py::test_division_of_two_numbers_rounds_towards_zero -x -q\n```"}
	done := parser.ToolCall{Name: tools.Done, Input: "Fixed `div` in " + long + ": it multiplied.\n\n" +
		"| function | before | after | test | file | note |\n|---|---|---|---|---|---|\n" +
		"| div | `a * b` | `a / b` | test_division_of_two_numbers_rounds_towards_zero | " + long + " | the only change that was needed |\n" +
		"| mean | wrong | right | test_mean_of_a_list | src/calc.py | follows from div |\n\n" +
		"```python\nTABLE = {'add': add, 'div': div, 'mean': mean, 'a_rather_long_name_for_an_entry': add, 'another_long_entry_name': div}\n```\n\n" +
		"See https://docs.python.org/3/library/operator.html#mapping-operators-to-functions-and-a-rather-long-anchor."}
	first := attached("Fix the division in @src/calc.py", [2]string{"src/calc.py", calcPy})
	h := []llm.Message{
		request(first),
		reply("Read the module first: "+long+".", []parser.Task{{Status: parser.InProgress, Text: "Find why " + long + " divides wrongly"}}, read),
		results([]parser.ToolCall{read}, []tools.Result{{Tool: tools.ReadFile, OK: true, Output: long + " (3 lines)\ndef div(a, b):\n    return a * b\nOPERATIONS = ['add', 'div', 'mean', 'a_rather_long_name_for_an_entry', 'another_long_entry_name', 'and_one_more']", Attrs: [][2]string{{"path", long}}}}, ""),
		reply("Run the one test.", nil, run),
		results([]parser.ToolCall{run}, []tools.Result{{Tool: tools.Command, OK: false, Output: "FAILED tests/test_calculator_arithmetic_operations.py::test_division_of_two_numbers_rounds_towards_zero - AssertionError: assert 6 == 1.5\nexit code 1"}}, ""),
		reply("Done.", nil, done),
		request(attached("And the guide: @docs/guide.md", [2]string{"docs/guide.md", "# Guide\n\nDivide with div."})),
		reply("", nil, parser.ToolCall{Name: tools.Done, Input: "The guide says so already."}),
	}
	var reqs []sessions.Request
	for i := range 40 {
		reqs = append(reqs, sessions.Request{Timestamp: t0.Add(time.Duration(i) * time.Minute), Model: "qwen3-coder", Purpose: sessions.PurposeWorker,
			PromptTokens: 120000 + 2000*i, CompletionTokens: 300 + 10*i, FirstByteMs: int64(900 + 40*i), DurationMs: int64(14000 + 300*i)})
	}
	return &sessions.Session{
		ID: phoneID, CreatedAt: t0, UpdatedAt: t0.Add(9 * time.Hour), WorkingDirectory: "/home/ann/src/github.com/example-organisation/a-rather-long-service-name/backend",
		OriginalPrompt: first, Prompts: 2, LastPrompt: "And the guide: @docs/guide.md",
		Model: "qwen3-coder", Status: sessions.Complete, History: h, TotalTokens: 6_000_000, Requests: reqs,
	}
}

// hostileSession puts hostile text everywhere model output or a user's
// input reaches the page.
func hostileSession() *sessions.Session {
	call := parser.ToolCall{Name: tools.Command, Input: hostile}
	return &sessions.Session{
		ID: hostileID, CreatedAt: t0, UpdatedAt: t0.Add(time.Hour), WorkingDirectory: "/tmp/" + hostile,
		OriginalPrompt: "hostile " + hostile, Model: hostile, Status: sessions.Failed, Profile: hostile,
		TaskList: []parser.Task{{Status: parser.Pending, Text: hostile}},
		History: []llm.Message{
			request(hostile),
			reply(hostile, []parser.Task{{Status: parser.Pending, Text: hostile}}, call),
			results([]parser.ToolCall{call}, []tools.Result{{Tool: tools.Command, Output: hostile, Attrs: [][2]string{{"path", hostile}}}}, hostile),
			{Role: llm.RoleAssistant, Content: "not a template " + hostile},
			reply("Done.", nil, parser.ToolCall{Name: tools.Done, Input: hostile + "\n\n[a link](javascript:window.__pwned=3) <b onclick=\"window.__pwned=4\">b</b>"}),
		},
		Audits:   []sessions.Audit{{Verdict: "FAIL", Feedback: hostile}},
		Requests: []sessions.Request{{Timestamp: t0, Model: hostile, Purpose: hostile, PromptTokens: 10, CompletionTokens: 5}},
	}
}

// rewoundSession was rewound by /undo: its second request ("write
// b.txt") and the change it made are gone from its history; a command
// the user ran (!) came before it; the third request followed.
func rewoundSession() *sessions.Session {
	write := func(path string) parser.ToolCall {
		return parser.ToolCall{Name: tools.WriteFile, Input: path + "\n```\nx\n```"}
	}
	step := func(path string) []llm.Message {
		c := write(path)
		return []llm.Message{
			reply("Write "+path+".", nil, c),
			results([]parser.ToolCall{c}, []tools.Result{{Tool: tools.WriteFile, OK: true, Output: "Created " + path}}, ""),
			reply("Done.", nil, parser.ToolCall{Name: tools.Done, Input: "Wrote `" + path + "`."}),
		}
	}
	h := []llm.Message{request("write a.txt")}
	h = append(h, step("a.txt")...)
	h = append(h, history.Shell("ls -l", tools.Held([]tools.Result{{Tool: tools.Command, OK: true, Output: "Command succeeded (exit code 0).\na.txt"}})[0]))
	h = append(h, request("write c.txt"))
	h = append(h, step("c.txt")...)
	cp := func(n int, r checkpoints.Reason) checkpoints.Checkpoint {
		return checkpoints.Checkpoint{Number: n, Reason: r, Time: t0.Add(time.Duration(n) * time.Minute)}
	}
	return &sessions.Session{
		ID: rewoundID, CreatedAt: t0, UpdatedAt: t0.Add(20 * time.Minute), WorkingDirectory: "/home/ann/notes",
		OriginalPrompt: "write a.txt", Model: "qwen3-coder", Status: sessions.Complete, History: h,
		Checkpoints: []checkpoints.Checkpoint{cp(0, checkpoints.BeforeRequest), cp(1, checkpoints.AfterTool), cp(2, checkpoints.BeforeRequest),
			cp(3, checkpoints.AfterTool), cp(4, checkpoints.BeforeRewind), cp(5, checkpoints.BeforeRequest), cp(6, checkpoints.AfterTool)},
		Rewinds: []sessions.Rewind{{Time: t0.Add(11 * time.Minute), To: 2, From: 4, Kept: 1, Undone: 1}},
	}
}

// auditedSession has an audited request, two whose audit was skipped
// (nothing changed), an audited /review, and a fifth audited request that
// /undo took out of the history with its audit (SPEC §17: each audit under
// the request whose DONE it checked, an undone request's under nothing).
// Each audit names the reply whose DONE it checked; the steps tell them
// apart.
func auditedSession() *sessions.Session {
	done := func(summary string) llm.Message {
		return reply("", nil, parser.ToolCall{Name: tools.Done, Input: summary})
	}
	write := parser.ToolCall{Name: tools.WriteFile, Input: "a.txt\n```\na\n```"}
	review := parser.ToolCall{Name: tools.Command, Input: "cat a.txt"}
	h := []llm.Message{
		request("write a.txt"), // 0
		reply("Write.", nil, write),
		results([]parser.ToolCall{write}, []tools.Result{{Tool: tools.WriteFile, OK: true, Output: "Created a.txt"}}, ""),
		done("Wrote a."), // 3: audited
		request("what is 2+2?"),
		done("Four."), // 5
		request("what is 3+3?"),
		done("Six."), // 7
		request("Review a.txt carefully."),
		reply("Look.", nil, review),
		results([]parser.ToolCall{review}, []tools.Result{{Tool: tools.Command, OK: true, Output: "a"}}, ""),
		done("Reviewed."), // 11: audited
	}
	return &sessions.Session{
		ID: auditedID, CreatedAt: t0, UpdatedAt: t0.Add(30 * time.Minute), WorkingDirectory: "/home/ann/notes",
		OriginalPrompt: "write a.txt", Model: "qwen3-coder", Status: sessions.Complete, History: h,
		Audits: []sessions.Audit{{Verdict: "PASS", Steps: 1, Feedback: "Overall: PASS\nwrote a.txt", Reply: 3},
			{Verdict: "PASS", Steps: 2, Feedback: "Overall: PASS\nreviewed a.txt", Reply: 11}},
		Rewinds: []sessions.Rewind{{Time: t0.Add(25 * time.Minute), To: 9, From: 12, Kept: 4, Undone: 1}},
	}
}

// fakeDiffs serves fixed step diffs, the hostile session's with hostile
// paths and content.
type fakeDiffs struct{ err error }

func (f fakeDiffs) Steps(_ context.Context, sess *sessions.Session) ([]StepDiff, error) {
	if f.err != nil {
		return nil, f.err
	}
	if sess.ID == hostileID {
		return []StepDiff{{Checkpoint: 1, Tool: hostile, Input: hostile, Files: []FileDiff{{Path: hostile, Change: hostile,
			Patch: "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-" + hostile + "\n+" + hostile + "\n"}}}}, nil
	}
	if sess.ID == rewoundID {
		var steps []StepDiff
		for _, c := range []struct {
			n    int
			path string
		}{{1, "a.txt"}, {3, "b.txt"}, {6, "c.txt"}} {
			steps = append(steps, StepDiff{Checkpoint: c.n, Step: 1, Tool: tools.WriteFile, Input: c.path,
				Files: []FileDiff{{Path: c.path, Change: "added", Patch: "diff --git a/" + c.path + " b/" + c.path + "\nnew file mode 100644\n--- /dev/null\n+++ b/" + c.path + "\n@@ -0,0 +1 @@\n+x\n"}}})
		}
		return steps, nil
	}
	if sess.ID == phoneID {
		path := "src/calculator/implementation/arithmetic_operations_with_a_rather_long_module_name.py"
		return []StepDiff{{Checkpoint: 1, Time: t0.Add(time.Minute), Request: 1, Step: 1, Tool: tools.FindAndReplace, Input: path,
			Files: []FileDiff{{Path: path, Change: "modified", Patch: "diff --git a/" + path + " b/" + path + "\n--- a/" + path + "\n+++ b/" + path +
				"\n@@ -5,2 +5,2 @@\n def div(a, b):\n-    return a * b  # wrong, and a comment long enough to run off any phone's screen\n+    return a / b\n"}}}}, nil
	}
	if sess.ID != richID {
		return nil, nil
	}
	return []StepDiff{
		{Checkpoint: 2, Time: t0.Add(3 * time.Minute), Request: 1, Step: 2, Tool: tools.WriteFile, Input: "notes.md",
			Files: []FileDiff{{Path: "notes.md", Change: "added", Patch: "diff --git a/notes.md b/notes.md\nnew file mode 100644\n--- /dev/null\n+++ b/notes.md\n@@ -0,0 +1,2 @@\n+line of notes\n+line of notes\n"}}},
		{Checkpoint: 3, Time: t0.Add(4 * time.Minute), Request: 1, Step: 3, Tool: tools.FindAndReplace, Input: "parse.go",
			Files: []FileDiff{
				{Path: "parse.go", Change: "modified", Patch: "diff --git a/parse.go b/parse.go\n--- a/parse.go\n+++ b/parse.go\n@@ -1,3 +1,3 @@\n func Parse() error {\n-\treturn nil\n+\treturn err\n }\n"},
				{Path: "logo.png", Change: "modified", Binary: true, Patch: "diff --git a/logo.png b/logo.png\nBinary files a/logo.png and b/logo.png differ\n"},
			}},
	}, nil
}

// memStore serves sessions from memory, as Lister and Loader.
type memStore map[string]*sessions.Session

func (m memStore) Load(id string) (*sessions.Session, error) {
	if s, ok := m[id]; ok {
		return s, nil
	}
	return nil, fmt.Errorf("%w: %s", sessions.ErrNotFound, id)
}

func (m memStore) List() ([]sessions.Summary, error) {
	var out []sessions.Summary
	for _, s := range m {
		out = append(out, s.Summary())
	}
	slices.SortFunc(out, func(a, b sessions.Summary) int {
		if c := b.UpdatedAt.Compare(a.UpdatedAt); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return out, nil
}

// plainSession is the n-th of many ordinary sessions.
func plainSession(n int) *sessions.Session {
	statuses := []sessions.Status{sessions.Complete, sessions.Complete, sessions.Failed, sessions.Interrupted, sessions.Active}
	dirs := []string{"/home/ann/api", "/home/ann/web", "/home/ann/parser", "/srv/tools"}
	read := parser.ToolCall{Name: tools.ReadFile, Input: "main.go"}
	sess := &sessions.Session{
		ID:        fmt.Sprintf("%08x-0000-4000-8000-%012x", n, n),
		CreatedAt: t0.Add(time.Duration(n) * time.Hour), UpdatedAt: t0.Add(time.Duration(n)*time.Hour + 5*time.Minute),
		WorkingDirectory: dirs[n%len(dirs)], OriginalPrompt: []string{"Add a --verbose flag to the CLI", "Fix the build on Windows", "Write the docs for the config file", "Refactor the request loop"}[n%4],
		Model: []string{"qwen3-coder", "devstral-small"}[n%2], Status: statuses[n%len(statuses)], TotalTokens: 1000 + 37*n,
	}
	sess.History = append(sess.History, request(sess.OriginalPrompt))
	sess.Prompts, sess.LastPrompt = 1, sess.OriginalPrompt // as the loop counts them
	for i := range 30 {
		sess.History = append(sess.History, reply(fmt.Sprintf("Step %d: read main.go again.", i), nil, read),
			results([]parser.ToolCall{read}, []tools.Result{{Tool: tools.ReadFile, OK: true, Output: strings.Repeat("\tfmt.Println(\"hello\") // a & b\n", 60)}}, ""))
		sess.Requests = append(sess.Requests, sessions.Request{Timestamp: sess.CreatedAt, Model: sess.Model, Purpose: sessions.PurposeWorker, PromptTokens: 900, CompletionTokens: 80})
	}
	return sess
}

// newTestServer serves m with the fake diffs and a known token.
func newTestServer(t testing.TB, m memStore, d Diffs) *Server {
	t.Helper()
	s, err := New(Options{Sessions: m, Store: m, Diffs: d, Token: "test-token"})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// get sends a request from 127.0.0.1 with the token's cookie.
func get(t testing.TB, s *Server, target string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, "http://127.0.0.1:8000"+target, nil)
	req.RemoteAddr = "127.0.0.1:50000"
	req.AddCookie(&http.Cookie{Name: s.cookie, Value: s.Token()})
	w := httptest.NewRecorder()
	s.Handler().ServeHTTP(w, req)
	return w
}
