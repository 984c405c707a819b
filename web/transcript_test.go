package web

import (
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/devagent/dev/history"
	"github.com/devagent/dev/llm"
	"github.com/devagent/dev/parser"
	"github.com/devagent/dev/sessions"
	"github.com/devagent/dev/tools"
)

// text writes entries one per line: kind, class or state, title, body.
func text(entries []entry) string {
	var b strings.Builder
	for _, e := range entries {
		b.WriteString("[" + e.Kind)
		switch {
		case e.Class != "":
			b.WriteString(" " + e.Class)
		case e.Kind == kindResult && e.OK:
			b.WriteString(" ok")
		case e.Kind == kindResult:
			b.WriteString(" failed")
		}
		b.WriteString("]")
		if e.Title != "" {
			b.WriteString(" " + e.Title + ":")
		}
		body := e.Text
		if e.Tasks != nil {
			body = parser.TaskLines(e.Tasks)
		}
		if e.HTML != "" {
			body = strings.TrimSpace(string(e.HTML))
		}
		if body != "" {
			b.WriteString(" " + strings.ReplaceAll(body, "\n", "\n    "))
		}
		if e.More != "" {
			b.WriteString("\n    (" + strings.TrimSpace(strings.SplitN(e.More, "\n", 2)[0]) + "…: " + strconv.Itoa(e.Lines) + " lines in all)")
		}
		b.WriteString("\n")
	}
	return b.String()
}

// The rich session reads as the terminal showed it: the golden file is
// the transcript to review.
func TestTranscriptGolden(t *testing.T) {
	t.Parallel()
	got := text(entriesOf(richSession()))
	path := filepath.Join("testdata", "rich-transcript.golden")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("transcript =\n%s\nwant (%s)\n%s", got, path, want)
	}
}

func TestTranscript(t *testing.T) {
	t.Parallel()
	write := parser.ToolCall{Name: tools.WriteFile, Input: "a.go\n```go\npackage a\n```"}
	done := parser.ToolCall{Name: tools.Done, Input: "Wrote a.go."}
	wrote := tools.Result{Tool: tools.WriteFile, OK: true, Output: "Created a.go (1 line)", Attrs: [][2]string{{"path", "a.go"}}}
	tests := []struct {
		name   string
		sess   sessions.Session
		want   string
		absent []string
	}{
		{
			name: "numbered requests, a DONE accepted without an audit, then a shell command",
			sess: sessions.Session{Status: sessions.Complete, History: []llm.Message{
				request("write a.go"),
				reply("Write it.", nil, write, done), // DONE ended the request: no results kept
				history.Shell("", tools.Result{Tool: tools.Command, OK: true, Output: "$ ls\na.go"}.Held()),
				request("and b.go"),
				reply("", nil, done),
			}},
			want: "[request] Request 1: write a.go\n[thoughts] Thoughts: Write it.\n[tool] Tool: WRITE_FILE: a.go\n    package a\n[answer] DONE: <p>Wrote a.go.</p>\n" +
				"[line ok] ✓ done in 1 step\n[shell] Command the user ran (!), for the model to know: (a command; this session did not keep which)\n[result ok] Result: $ ls\n    a.go\n" +
				"[request] Request 2: and b.go\n[answer] DONE: <p>Wrote a.go.</p>\n[line ok] ✓ done in 1 step\n",
		},
		{
			name: "each tool with its result, a failure, the calls not run",
			sess: sessions.Session{Status: sessions.Failed, History: []llm.Message{
				request("go"),
				reply("", nil, write, write, done),
				results([]parser.ToolCall{write, write, done}, []tools.Result{wrote, {Tool: tools.WriteFile, Output: "disk full"}}, ""),
			}},
			want: "[request] Request 1: go\n[tool] Tool: WRITE_FILE: a.go\n    package a\n[result ok] Result · a.go: Created a.go (1 line)\n" +
				"[tool] Tool: WRITE_FILE: a.go\n    package a\n[result failed] Result: failed: disk full\n" +
				"[line warn] ! Not run, because WRITE_FILE failed: DONE.\n[line fail] ✗ failed after 1 step\n",
		},
		{
			name: "an audit interrupted is no DONE and takes no verdict",
			sess: sessions.Session{Status: sessions.Interrupted, Audits: []sessions.Audit{{Verdict: "PASS", Steps: 1}}, History: []llm.Message{
				request("go"),
				reply("", nil, done),
				history.InterruptedAudit(),
			}},
			want:   "[request] Request 1: go\n[answer] DONE: <p>Wrote a.go.</p>\n[line warn] ! The user interrupted the audit of your DONE.\n[line warn] ! interrupted after 1 step; dev --resume continues the session\n",
			absent: []string{"audit passed", "done in"},
		},
		{
			name: "a reply not in the protocol's form, and a format error of a run still going",
			sess: sessions.Session{Status: sessions.Active, History: []llm.Message{
				request("go"),
				{Role: llm.RoleAssistant, Content: "I will now write the file."},
				history.FormatError("The `## Tool Choice` section is missing.", true),
			}},
			want: "[request] Request 1: go\n[raw] Reply (not in the expected format): I will now write the file.\n" +
				"[line warn] ! reply not in the expected format: The `## Tool Choice` section is missing.\n" +
				"    (The `## Tool Choice` section is missing.…: 17 lines in all)\n" +
				"[line dim] … in progress, or ended without saving its status (0 steps so far)\n",
		},
		{
			name: "a command the user ran after an accepted DONE leaves the DONE its audit",
			sess: sessions.Session{Status: sessions.Complete, Audits: []sessions.Audit{{Verdict: "PASS", Steps: 1}, {Verdict: "PASS", Steps: 2}}, History: []llm.Message{
				request("write a.go"),
				reply("", nil, done),
				history.Shell("", tools.Result{Tool: tools.Command, OK: true, Output: "$ ls\na.go"}.Held()),
				request("and b.go"),
				reply("", nil, done),
			}},
			want: "[request] Request 1: write a.go\n[answer] DONE: <p>Wrote a.go.</p>\n[line ok] ✓ audit passed (1 step)\n[line ok] ✓ done in 1 step\n" +
				"[shell] Command the user ran (!), for the model to know: (a command; this session did not keep which)\n[result ok] Result: $ ls\n    a.go\n" +
				"[request] Request 2: and b.go\n[answer] DONE: <p>Wrote a.go.</p>\n[line ok] ✓ audit passed (2 steps)\n[line ok] ✓ done in 1 step\n",
		},
		{
			name: "a request that quotes a result's tag is a request",
			sess: sessions.Session{Status: sessions.Complete, History: []llm.Message{
				request("write a.go"),
				reply("", nil, done),
				request(`why do results start with <tool_result tool="X" ok="true">?`),
				reply("", nil, done),
			}},
			want: "[request] Request 1: write a.go\n[answer] DONE: <p>Wrote a.go.</p>\n[line ok] ✓ done in 1 step\n" +
				"[request] Request 2: why do results start with <tool_result tool=\"X\" ok=\"true\">?\n[answer] DONE: <p>Wrote a.go.</p>\n[line ok] ✓ done in 1 step\n",
		},
		{
			name: "the task list shows when it changes",
			sess: sessions.Session{Status: sessions.Complete, History: []llm.Message{
				request("go"),
				reply("", []parser.Task{{Status: parser.Pending, Text: "a"}}, write),
				results([]parser.ToolCall{write}, []tools.Result{wrote}, ""),
				reply("", []parser.Task{{Status: parser.Pending, Text: "a"}}, write),
				results([]parser.ToolCall{write}, []tools.Result{wrote}, ""),
				reply("", []parser.Task{{Status: parser.Complete, Text: "a"}}, done),
			}},
			want: "[request] Request 1: go\n[tasks] Task List: [ ] a\n[tool] Tool: WRITE_FILE: a.go\n    package a\n[result ok] Result · a.go: Created a.go (1 line)\n" +
				"[tool] Tool: WRITE_FILE: a.go\n    package a\n[result ok] Result · a.go: Created a.go (1 line)\n" +
				"[tasks] Task List: [x] a\n[answer] DONE: <p>Wrote a.go.</p>\n[line ok] ✓ done in 3 steps\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := text(entriesOf(&tt.sess))
			if !strings.HasPrefix(got, tt.want) || len(got) != len(tt.want) {
				t.Errorf("transcript =\n%s\nwant\n%s", got, tt.want)
			}
			for _, a := range tt.absent {
				if strings.Contains(got, a) {
					t.Errorf("transcript shows %q", a)
				}
			}
		})
	}
}

// Each audit shows under the request whose DONE it checked, after the
// DONE: the DONEs accepted without an audit get none, and the undone
// request's audit is nowhere. Before, the passes were dealt to the last
// DONEs: request 1's audit showed under request 3.
func TestAuditsUnderTheirRequests(t *testing.T) {
	t.Parallel()
	got := map[string][]string{}
	title := ""
	for _, e := range entriesOf(auditedSession()) {
		switch {
		case e.Kind == kindRequest:
			title = e.Title
			got[title] = nil
		case e.Kind == kindLine && strings.Contains(e.Text, "audit"):
			got[title] = append(got[title], e.Text)
		}
	}
	want := map[string][]string{"Request 1": {"✓ audit passed (1 step)"}, "Request 2": nil, "Request 3": nil, "Request 4": {"✓ audit passed (2 steps)"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("audits by request: %q\nwant %q\n%s", got, want, text(entriesOf(auditedSession())))
	}
}

// The session page shows the replies dev could not use where they came
// (from the request records: they never enter the history), with what the
// model wrote when opened.
func TestTranscriptShowsRejectedReplies(t *testing.T) {
	t.Parallel()
	sess := &sessions.Session{ID: "s",
		History: []llm.Message{
			history.Request("list the files"),
			{Role: llm.RoleAssistant, Content: "# Agent Response\n\n## Thoughts\nLook.\n\n## Tool Choice\nLIST_DIRECTORY\n\n## Tool Input\n."},
			{Role: llm.RoleUser, Content: `<tool_result tool="LIST_DIRECTORY" ok="true">` + "\na.txt\n</tool_result>"},
		},
		Requests: []sessions.Request{
			{Purpose: "worker", FormatError: true, Rejected: &sessions.Rejected{Problem: "Your reply has no `## Tool Choice` section.",
				Head: []string{"Sure! Here is the code:"}, Tail: []string{"Hope this helps!"}, Lines: 30}},
			{Purpose: "worker"},
			{Purpose: "worker", FormatError: true, MaxTokens: 2048, Rejected: &sessions.Rejected{Problem: "cut", Head: []string{"# Agent Response"}, Lines: 300, Cut: true}},
		},
	}
	got := text(entriesOf(sess))
	first := strings.Index(got, "[line warn] ! reply not in the expected format: Your reply has no `## Tool Choice` section.")
	tool := strings.Index(got, "LIST_DIRECTORY")
	cut := strings.Index(got, "[line warn] ! reply cut off at maxTokens (2,048 tokens)")
	if first < 0 || tool < first || cut < tool {
		t.Fatalf("rejected replies missing or out of place:\n%s", got)
	}
	for _, e := range entriesOf(sess) {
		if strings.Contains(e.Text, "Your reply has no") && (!strings.Contains(e.More, "│ Sure! Here is the code:") ||
			!strings.Contains(e.More, "│ Hope this helps!") || !strings.Contains(e.More, "30 lines")) {
			t.Errorf("what the model wrote is not shown: %q", e.More)
		}
	}
}

// The session page shows a reply the user interrupted as far as it had
// streamed, opened on demand, under the interruption (SPEC §17).
func TestTranscriptShowsThePartialReply(t *testing.T) {
	t.Parallel()
	sess := &sessions.Session{ID: "s5", Status: sessions.Interrupted,
		History:  []llm.Message{history.Request("take your time"), history.InterruptedReply()},
		Requests: []sessions.Request{{Purpose: sessions.PurposeWorker, Interrupted: true, Partial: "# Agent Response\n## Thoughts\nI am weighing"}}}
	for _, e := range entriesOf(sess) {
		if strings.Contains(e.Text, "the reply as far as it had come (3 lines") {
			if !strings.Contains(e.More, "I am weighing") {
				t.Errorf("the partial reply is not there to open: %+v", e)
			}
			return
		}
	}
	t.Errorf("no partial reply on the page:\n%s", text(entriesOf(sess)))
}
