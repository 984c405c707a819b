package transcript

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/devagent/dev/history"
	"github.com/devagent/dev/llm"
	"github.com/devagent/dev/parser"
	"github.com/devagent/dev/sessions"
	"github.com/devagent/dev/tools"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata/ from its sessions")

// The sessions of testdata/ were written by dev itself, as a user makes
// them (e2e's TestTranscriptOfStoredSessions stores them): each reads as
// its golden outline says.
func TestStoredSessions(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob(filepath.Join("testdata", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no sessions in testdata: %v", err)
	}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".json")
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			var sess sessions.Session
			if err := json.Unmarshal(data, &sess); err != nil {
				t.Fatal(err)
			}
			got := Read(&sess).String()
			golden := filepath.Join("testdata", name+".golden")
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if got != string(want) {
				t.Errorf("%s reads as\n%s\nwant (%s)\n%s", file, got, golden, want)
			}
		})
	}
}

func template(thoughts string, calls ...parser.ToolCall) llm.Message {
	return history.Reply(parser.Response{Thoughts: thoughts, Tools: calls})
}

var (
	write = parser.ToolCall{Name: tools.WriteFile, Input: "a.go\n```go\npackage a\n```"}
	done  = parser.ToolCall{Name: tools.Done, Input: "Wrote a.go."}
	ask   = parser.ToolCall{Name: tools.AskUser, Input: "Which name?"}
	wrote = history.ToolResult{Tool: tools.WriteFile, OK: true, Output: "Created a.go"}
)

func rejection(feedback string) history.ToolResult {
	return history.ToolResult{Tool: tools.Done, Output: history.AuditRejection(feedback)}
}

// Each audit goes with the DONE whose reply it names; DONEs accepted
// without an audit get none, whatever their order. Audits of sessions
// written before audits named their reply are dealt from the end, a failed
// one to the DONE whose result holds its report.
func TestAuditsGoWithTheirDONE(t *testing.T) {
	t.Parallel()
	h := []llm.Message{
		history.Request("one"),    // 0
		template("", write, done), // 1: audited, failed
		history.Results([]parser.ToolCall{write, done}, []history.ToolResult{wrote, rejection("Overall: FAIL\nno")}, ""),
		template("", done),        // 3: audited, passed
		history.Request("two"),    // 4
		template("", done),        // 5: accepted without an audit
		history.Request("three"),  // 6
		template("", done),        // 7: accepted without an audit
		history.Request("four"),   // 8
		template("", write, done), // 9: audited, passed
	}
	fail := sessions.Audit{Verdict: "FAIL", Feedback: "Overall: FAIL\nno", Steps: 1}
	pass := func(steps int) sessions.Audit { return sessions.Audit{Verdict: "PASS", Steps: steps} }
	linked := func(a sessions.Audit, reply int) sessions.Audit { a.Reply = reply; return a }
	audited := func(tr Transcript) map[int]int { // reply index → the audit's steps
		out := map[int]int{}
		for _, turn := range tr.Turns {
			for _, s := range turn.Steps {
				if s.Audit != nil {
					out[s.At] = s.Audit.Steps
				}
			}
		}
		return out
	}
	tr := Read(&sessions.Session{History: h, Audits: []sessions.Audit{linked(fail, 1), linked(pass(2), 3), linked(pass(3), 9)}})
	if got := audited(tr); len(got) != 3 || got[1] != 1 || got[3] != 2 || got[9] != 3 {
		t.Errorf("linked audits went to %v (reply → steps), want 1→1, 3→2, 9→3", got)
	}
	// Unlinked: the latest passes go with the latest accepted DONEs.
	tr = Read(&sessions.Session{History: h, Audits: []sessions.Audit{fail, pass(2), pass(3)}})
	if got := audited(tr); len(got) != 3 || got[1] != 1 || got[7] != 2 || got[9] != 3 {
		t.Errorf("unlinked audits went to %v, want the failed one to 1, the passes to 7 and 9", got)
	}
	// An audit of a reply the history no longer holds shows nowhere; one
	// made before the last compression goes with the summary.
	compressed := append([]llm.Message{history.Compressed{Summary: "s", Original: "one"}.Message()}, h[4:]...)
	tr = Read(&sessions.Session{History: compressed, CompressionCount: 1,
		Audits: []sessions.Audit{linked(pass(2), 3), {Verdict: "PASS", Steps: 3, Reply: 2, CompressionCount: 1}, {Verdict: "PASS", Steps: 4, Reply: 40, CompressionCount: 1}}})
	if got := audited(tr); len(got) != 1 || got[2] != 3 {
		t.Errorf("audits after a compression went to %v, want 2→3", got)
	}
	if a := tr.Turns[0].Audits; tr.Turns[0].Kind != TurnSummary || len(a) != 1 || a[0].Steps != 2 {
		t.Errorf("the summary has audits %+v, want the one before the compression", a)
	}
}

// A turn's answer is the DONE that ended it, or the question its last
// reply asked; never its thoughts. Last reads the last turn only.
func TestLast(t *testing.T) {
	t.Parallel()
	read := parser.ToolCall{Name: tools.ReadFile, Input: "main.go"}
	h := []llm.Message{
		history.Request("first"),
		template("Finished.", done),
		history.Request("add a flag"),
		template("Finished.", done),
	}
	check := func(what string, msgs []llm.Message, request, answer string, asked bool, from int) {
		t.Helper()
		turn, ok := Last(msgs)
		got, gotAsked := turn.Answer()
		if !ok || turn.Request != request || got != answer || gotAsked != asked || turn.From != from {
			t.Errorf("%s: request %q, answer %q (asked %v), from %d; want %q, %q (%v), %d", what, turn.Request, got, gotAsked, turn.From, request, answer, asked, from)
		}
	}
	check("done", h, "add a flag", "Wrote a.go.", false, 2)
	h = append(h, history.Request("now tests"), template("Read main.go next.", read),
		history.Results([]parser.ToolCall{read}, []history.ToolResult{{Tool: tools.ReadFile, OK: true, Output: "package main"}}, ""))
	check("interrupted mid-work", h, "now tests", "", false, 4)
	h = append(h, template("I need to know.", ask), history.InterruptedStep(nil, nil))
	check("a question", h, "now tests", "Which name?", true, 4)
	compressed := []llm.Message{history.Compressed{Summary: "Read it.", Original: "first", Current: "now tests"}.Message(), template("", done)}
	check("compressed", compressed, "now tests", "Wrote a.go.", false, 0)
	if _, ok := Last(nil); ok {
		t.Error("an empty history has a last turn")
	}
	if n := Requests(h); n != 3 {
		t.Errorf("Requests = %d, want 3", n)
	}
}

// Messages read by kind and place: results close the reply before them,
// an interruption right after a reply closes it (its DONE is not
// accepted), a command the user ran does not; results no reply called
// and messages of unknown kinds are steps of their own; steps before any
// request make a turn without one.
func TestKindsAndPlaces(t *testing.T) {
	t.Parallel()
	shell := history.Shell("ls", history.ToolResult{Tool: tools.Command, OK: true, Output: "a.go"})
	tr := Read(&sessions.Session{Status: sessions.Interrupted, History: []llm.Message{
		template("", done), // before any request
		history.Request("go"),
		template("", write, done),
		shell,
		history.Request("again"),
		template("", done),
		history.InterruptedAudit(),
		history.Results(nil, []history.ToolResult{wrote}, ""),
		{Role: llm.RoleUser, Content: "a note of a later version"},
		history.Request("last"),
		history.InterruptedReply(),
	}})
	want := []struct {
		kind  TurnKind
		steps []StepKind
		end   End
	}{
		{TurnNone, []StepKind{StepReply}, EndDone},
		{TurnRequest, []StepKind{StepReply, StepShell}, EndDone},
		{TurnRequest, []StepKind{StepReply, StepResults, StepNote}, EndNoDone},
		{TurnRequest, []StepKind{StepInterrupted}, EndInterrupted},
	}
	if len(tr.Turns) != len(want) {
		t.Fatalf("%d turns, want %d:\n%s", len(tr.Turns), len(want), tr)
	}
	for i, w := range want {
		turn := tr.Turns[i]
		var kinds []StepKind
		for _, s := range turn.Steps {
			kinds = append(kinds, s.Kind)
		}
		if turn.Kind != w.kind || turn.End != w.end || !slices.Equal(kinds, w.steps) {
			t.Errorf("turn %d: kind %v, steps %v, end %v; want %v, %v, %v\n%s", i, turn.Kind, kinds, turn.End, w.kind, w.steps, w.end, tr)
		}
	}
	if s := tr.Turns[1].Steps[0]; !s.Accepted || s.HasResults() {
		t.Errorf("a DONE before a command the user ran is not accepted:\n%s", tr)
	}
	if s := tr.Turns[2].Steps[0]; s.Accepted || !s.Interrupted {
		t.Errorf("a DONE whose audit was interrupted is accepted:\n%s", tr)
	}
	if tr.Turns[1].Number != 1 || tr.Turns[3].Number != 3 {
		t.Errorf("requests numbered %d and %d, want 1 and 3", tr.Turns[1].Number, tr.Turns[3].Number)
	}
}

// A DONE is accepted, and ends its request, when what follows it does
// not close its step: the end of the history, a request, a command the
// user ran, a summary, a format error; results and interruptions do.
func TestAcceptedDONE(t *testing.T) {
	t.Parallel()
	for name, tt := range map[string]struct {
		next     llm.Message
		accepted bool
	}{
		"results":                        {history.Results([]parser.ToolCall{done}, []history.ToolResult{rejection("no")}, ""), false},
		"results of an interrupted step": {history.InterruptedStep([]parser.ToolCall{done}, []history.ToolResult{wrote}), false},
		"interrupted audit":              {history.InterruptedAudit(), false},
		"interrupted reply":              {history.InterruptedReply(), false},
		"shell":                          {history.Shell("ls", wrote), true},
		"request":                        {history.Request("next"), true},
		"summary":                        {history.Compressed{Summary: "s", Original: "o"}.Message(), true},
		"format error":                   {history.FormatError("no", false), true},
	} {
		tr := ReadHistory([]llm.Message{history.Request("go"), template("", done), tt.next})
		if s := tr.Turns[0].Steps[0]; s.Accepted != tt.accepted {
			t.Errorf("a DONE before %s: accepted %v, want %v\n%s", name, s.Accepted, tt.accepted, tr)
		}
	}
	if s := ReadHistory([]llm.Message{history.Request("go"), template("", done)}).Turns[0].Steps[0]; !s.Accepted {
		t.Error("a DONE at the end of the history is not accepted")
	}
}

// A rewind comes before the request that followed it: the first whose
// number is past the requests it kept; those after every request last.
func TestRewindsPlaced(t *testing.T) {
	t.Parallel()
	tr := Read(&sessions.Session{History: []llm.Message{history.Request("a"), history.Request("b")},
		Rewinds: []sessions.Rewind{{To: 1, Kept: 1, Undone: 2}, {To: 2, Kept: 1, Undone: 1}, {To: 5, Kept: 2, Undone: 1}}})
	if len(tr.Turns[0].Rewinds) != 0 || len(tr.Turns[1].Rewinds) != 2 || len(tr.Rewinds) != 1 || tr.Rewinds[0].To != 5 {
		t.Errorf("rewinds placed:\n%s", tr)
	}
}
