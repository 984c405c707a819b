package ui

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/devagent/dev/event"
	"github.com/devagent/dev/parser"
	"github.com/devagent/dev/tools"
	"github.com/rivo/uniseg"
)

// syncBuffer is a buffer the live part's ticker may write to meanwhile.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func numbered(n int) string {
	var lines []string
	for i := 1; i <= n; i++ {
		lines = append(lines, fmt.Sprintf("line %d", i))
	}
	return strings.Join(lines, "\n")
}

// A failed result shows, on the calm screen, its first line in the
// tool's line and its last lines, counted on the screen after wrapping,
// with how many came between; verbose mode's box shows it whole. /last
// keeps the whole.
func TestLongResultsKeepHeadAndTail(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name   string
		output string
		want   []string
		not    []string
		rows   int // lines drawn
	}{
		{"short", numbered(6), []string{"✗ COMMAND go test · line 1\n", "│ line 2\n", "│ line 6\n"}, []string{"above"}, 6},
		{"long", numbered(30), []string{"✗ COMMAND go test · line 1\n", "│ … 24 lines above\n", "│ line 26\n", "│ line 30\n"}, []string{"line 5\n", "line 25\n"}, 7},
		{"one very long line", "error at the end: " + strings.Repeat("x", 2000) + " FAIL", []string{"· error at the end", "FAIL\n", "lines above"}, nil, 7},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var buf bytes.Buffer
			term := NewTerminal(&Streams{Err: &buf, Width: 60, Unicode: true}, Normal)
			term.Emit(event.ToolFinished{Input: "go test", Result: tools.Result{Tool: "COMMAND", OK: false, Output: tt.output}})
			got := buf.String()
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("lacks %q:\n%s", w, got)
				}
			}
			for _, n := range tt.not {
				if strings.Contains(got, n) {
					t.Errorf("shows %q:\n%s", n, got)
				}
			}
			if rows := strings.Count(got, "\n"); rows != tt.rows {
				t.Errorf("%d lines, want %d:\n%s", rows, tt.rows, got)
			}
			for _, l := range strings.Split(strings.TrimRight(got, "\n"), "\n") {
				if w := uniseg.StringWidth(l); w >= 60 {
					t.Errorf("a line of %d columns: %q", w, l)
				}
			}
			last, ok := term.Last()
			if !ok || last.Output != tt.output || last.Title != "COMMAND go test" {
				t.Errorf("/last would show %+v", last)
			}
			buf.Reset()
			NewTerminal(&Streams{Err: &buf, Width: 60, Unicode: true}, Verbose).Emit(event.ToolFinished{Input: "go test",
				Result: tools.Result{Tool: "COMMAND", OK: false, Output: tt.output}})
			if got := buf.String(); !strings.Contains(got, "Result: failed") || tt.name == "long" && !strings.Contains(got, "│ line 15 ") {
				t.Errorf("verbose does not show the whole result:\n%s", got)
			}
		})
	}
}

// A result cut for the model says what the model did not see, and where
// the whole output is: on the calm screen under the tool's line, in
// verbose mode under the box (a line of its own: the path copies whole). Before, a box's own cap ("… 737
// lines …") hid the cut, and the saved file's path was not shown.
func TestCutResultSaysWhatTheModelDidNotSee(t *testing.T) {
	t.Parallel()
	output := "Command failed (exit code 1).\nline 1\nline 2\n[… 52.3 KB cut (2257 lines of 62.0 KB in all, 3000 lines) … full output saved in /home/ada/.dev/sessions/x/output/command-1.log]\nline 2999\nFAIL"
	want := "… 2,257 lines (52.3 KB) not sent to the model; whole output: /home/ada/.dev/sessions/x/output/command-1.log"
	for _, ok := range []bool{false, true} {
		var buf bytes.Buffer
		NewTerminal(&Streams{Err: &buf, Width: 140, Unicode: true}, Normal).Emit(event.ToolFinished{Input: "seq 3000",
			Result: tools.Result{Tool: "COMMAND", OK: ok, Output: output}})
		got := buf.String()
		if !strings.Contains(got, "\n  "+want+"\n") {
			t.Errorf("ok %v: the calm screen lacks %q:\n%s", ok, want, got)
		}
		if !ok && (!strings.Contains(got, "│ FAIL\n") || strings.Contains(got, "[… 52.3 KB cut")) {
			t.Errorf("the last lines, without the note the cut's line says:\n%s", got)
		}
		buf.Reset()
		NewTerminal(&Streams{Err: &buf, Width: 140, Unicode: true}, Verbose).Emit(event.ToolFinished{Input: "seq 3000",
			Result: tools.Result{Tool: "COMMAND", OK: ok, Output: output}})
		if got := buf.String(); !strings.Contains(got, "┘\n  "+want+"\n") {
			t.Errorf("ok %v: the verbose box is not followed by %q:\n%s", ok, want, got)
		}
	}
}

// The task list is drawn whole when tasks come or go, and only the tasks
// whose status moved otherwise: on the calm screen side by side, in
// verbose mode in a box, a moved task a line.
func TestTaskListShownWhenItChanged(t *testing.T) {
	t.Parallel()
	tasks := func(marks ...parser.Status) parser.Response {
		texts := []string{"look", "write", "test"}
		r := parser.Response{HasTaskList: true}
		for i, m := range marks {
			r.Tasks = append(r.Tasks, parser.Task{Status: m, Text: texts[i]})
		}
		return r
	}
	var buf bytes.Buffer
	term := NewTerminal(&Streams{Err: &buf, Width: 60}, Verbose)
	term.Emit(event.ReplyParsed{Response: tasks(parser.InProgress, parser.Pending)})
	if got := buf.String(); strings.Count(got, "Task List") != 1 {
		t.Fatalf("first list:\n%s", got)
	}
	buf.Reset()
	term.Emit(event.ReplyParsed{Response: tasks(parser.InProgress, parser.Pending)})
	if buf.Len() != 0 {
		t.Errorf("the same list again:\n%s", buf.String())
	}
	term.Emit(event.ReplyParsed{Response: tasks(parser.Complete, parser.InProgress)})
	if got := buf.String(); got != "  [x] look\n  [~] write\n" {
		t.Errorf("statuses moved: %q", got)
	}
	buf.Reset()
	term.Emit(event.ReplyParsed{Response: tasks(parser.Complete, parser.InProgress, parser.Pending)})
	if got := buf.String(); strings.Count(got, "Task List") != 1 || !strings.Contains(got, "[ ] test") {
		t.Errorf("a task came:\n%s", got)
	}

	buf.Reset()
	term = NewTerminal(&Streams{Err: &buf, Width: 60}, Normal)
	for _, step := range []struct {
		reply parser.Response
		want  string
	}{
		{tasks(parser.InProgress, parser.Pending), "  [~] look  [ ] write\n"},
		{tasks(parser.InProgress, parser.Pending), ""},
		{tasks(parser.Complete, parser.InProgress), "  [x] look  [~] write\n"},
		{tasks(parser.Complete, parser.Complete), "  [x] write\n"},
		{tasks(parser.Complete, parser.Complete, parser.Pending), "  [x] look  [x] write  [ ] test\n"},
	} {
		buf.Reset()
		term.Emit(event.ReplyParsed{Response: step.reply})
		if got := buf.String(); got != step.want {
			t.Errorf("calm: %q, want %q", got, step.want)
		}
	}
	buf.Reset()
	term = NewTerminal(&Streams{Err: &buf, Width: 24}, Normal)
	term.Emit(event.ReplyParsed{Response: tasks(parser.InProgress, parser.Pending, parser.Pending)})
	if got := buf.String(); got != "  [~] look  [ ] write\n  [ ] test\n" {
		t.Errorf("calm at 24 columns: %q", got)
	}
}

// The answer is shown once, rendered, after the work; DONE's own box is
// not drawn.
func TestAnswerShownOnce(t *testing.T) {
	t.Parallel()
	summary := "## Done\n\nAdded **Greet** in `greet.go`.\n\n| check | result |\n|---|---|\n| tests | PASS |"
	var errBuf, outBuf bytes.Buffer
	term := NewTerminal(&Streams{Err: &errBuf, Width: 60, Unicode: true}, Normal)
	term.ShowAnswer(&outBuf, &Markdown{Unicode: true})
	term.Emit(event.ToolStarted{Tool: "DONE", Input: summary})
	term.Emit(event.ToolFinished{Input: summary, Result: tools.Result{Tool: "DONE", OK: true, Done: true, Output: summary}})
	term.Emit(event.Finished{Status: "complete", Summary: summary, Loops: 1, Audit: event.AuditSkipped,
		Usage: event.Usage{Model: "qwen3", Steps: 1, TokensIn: 12345, TokensOut: 678, ContextTokens: 12345, ContextWindow: 131072, Elapsed: 14 * time.Second}})
	if strings.Contains(errBuf.String(), "Greet") {
		t.Errorf("the summary is on stderr too:\n%s", errBuf.String())
	}
	out := outBuf.String()
	for _, raw := range []string{"##", "**", "`", "|---|"} {
		if strings.Contains(out, raw) {
			t.Errorf("markdown %q left in the answer:\n%s", raw, out)
		}
	}
	if !strings.Contains(out, "Added Greet in greet.go.") || !strings.Contains(out, "check │ result") {
		t.Errorf("answer:\n%s", out)
	}
	want := "✓ done (audit skipped: nothing changed) · qwen3 · 1 step\n  12.3k in, 678 out · context 9% of 131.1k · 14s\n"
	if got := errBuf.String(); got != want {
		t.Errorf("status line:\n%q\nwant\n%q", got, want)
	}
}

func TestStatusLineFitsTheWidth(t *testing.T) {
	t.Parallel()
	fin := event.Finished{Status: "complete", Loops: 12, Audit: event.AuditPassed,
		Usage: event.Usage{Model: "devstral-small-2507", Steps: 12, TokensIn: 1234567, TokensOut: 23456, Estimated: true,
			ContextTokens: 40000, ContextWindow: 65536, Elapsed: 125 * time.Second}}
	for _, width := range []int{60, 120} {
		var buf bytes.Buffer
		NewTerminal(&Streams{Err: &buf, Width: width, Unicode: true}, Normal).Emit(fin)
		got := buf.String()
		for _, l := range strings.Split(strings.TrimRight(got, "\n"), "\n") {
			if w := uniseg.StringWidth(l); w >= width {
				t.Errorf("width %d: a line of %d columns: %q", width, w, l)
			}
		}
		for _, part := range []string{"devstral-small-2507", "12 steps", "~1.2M in, 23.5k out", "context ~61% of 65.5k", "2m05s"} {
			if !strings.Contains(got, part) {
				t.Errorf("width %d: lacks %q: %q", width, part, got)
			}
		}
		if width == 120 && strings.Count(got, "\n") != 1 {
			t.Errorf("two lines at 120 columns: %q", got)
		}
	}
}

// Frames follow the terminal's width from one event to the next.
func TestFramesFollowAResize(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	width := 80
	term := NewTerminal(&Streams{Err: &buf, Width: 80, Unicode: true, WidthNow: func() int { return width }}, Verbose)
	term.Emit(event.ToolStarted{Tool: "READ_FILE", Input: "a.go"})
	width = 50
	term.Emit(event.ToolStarted{Tool: "READ_FILE", Input: "b.go"})
	lines := strings.Split(strings.TrimRight(buf.String(), "\n"), "\n")
	if len(lines) != 6 || uniseg.StringWidth(lines[0]) != 80 || uniseg.StringWidth(lines[3]) != 50 || uniseg.StringWidth(lines[5]) != 50 {
		t.Errorf("frames:\n%s", buf.String())
	}
}

func TestResumeSaysHowTheLastRunEnded(t *testing.T) {
	t.Parallel()
	for status, want := range map[string]string{
		"complete":    "✓ last run: done\n",
		"interrupted": "! last run: interrupted\n",
		"failed":      "✗ last run: failed: cannot reach the model server\n",
	} {
		var buf bytes.Buffer
		NewTerminal(&Streams{Err: &buf, Width: 80, Unicode: true}, Normal).Emit(event.SessionStarted{ID: "x", Resumed: true,
			LastStatus: status, LastReason: "cannot reach the model server"})
		if !strings.HasSuffix(buf.String(), want) {
			t.Errorf("%s: %q", status, buf.String())
		}
	}
}

// liveTerminal is a renderer on a terminal, writing to buf.
func liveTerminal(buf *syncBuffer, escapes bool) *Terminal {
	return NewTerminal(&Streams{Err: buf, Width: 60, Unicode: true, ErrTTY: true, Color: escapes}, Normal)
}

// While the model answers, the live part shows the elapsed time, the
// tokens (an estimate, marked ~) and the Thoughts as they stream; it is
// erased before the reply's boxes.
func TestLiveThoughtsAndTokens(t *testing.T) {
	t.Parallel()
	var buf syncBuffer
	term := liveTerminal(&buf, true)
	term.Emit(event.RequestStarted{Agent: event.Worker, Step: 1})
	term.Emit(event.Streaming{Agent: event.Worker, Content: "# Agent Response\n\n## Thoughts\nFirst I read ", Tokens: 9, Estimated: true})
	term.Emit(event.Streaming{Agent: event.Worker, Content: "the file.\n\n## Tool Choice\nREAD_FILE", Tokens: 1247, Estimated: true})
	term.redraw() // what the ticker does ten times a second
	shown := buf.String()
	if !strings.Contains(shown, "First I read the file.") || !strings.Contains(shown, "Thinking... 0s · ~1,247 tokens") {
		t.Errorf("live part:\n%q", shown)
	}
	if strings.Contains(shown, "Tool Choice") {
		t.Errorf("more than the thoughts streamed: %q", shown)
	}
	term.Emit(event.ReplyParsed{Agent: event.Worker, Response: parser.Response{Thoughts: "First I read the file."}})
	after := strings.TrimPrefix(buf.String(), shown)
	if !strings.HasPrefix(after, "\r\x1b[1A\x1b[J\x1b[2m  First I read the file.\x1b[22m\n") {
		t.Errorf("the live part (2 lines) is not erased before the thoughts' line: %q", after)
	}

	buf = syncBuffer{}
	term = NewTerminal(&Streams{Err: &buf, Width: 60, Unicode: true, ErrTTY: true, Color: true}, Verbose)
	term.Emit(event.RequestStarted{Agent: event.Worker, Step: 1})
	term.Emit(event.Streaming{Agent: event.Worker, Content: "# Agent Response\n\n## Thoughts\nFirst I read the file.", Tokens: 9, Estimated: true})
	term.redraw()
	shown = buf.String()
	term.Emit(event.ReplyParsed{Agent: event.Worker, Response: parser.Response{Thoughts: "First I read the file."}})
	if after := strings.TrimPrefix(buf.String(), shown); !strings.HasPrefix(after, "\r\x1b[1A\x1b[J┌─ ") {
		t.Errorf("verbose: the live part (2 lines) is not erased before the box: %q", after)
	}
}

// While a reply streams outside the template (no "# Agent Response" yet),
// the live part shows its last line, dim; once the template starts, its
// Thoughts as usual. An open <think> block is not shown unless verbose.
func TestLiveLineOutsideTheTemplate(t *testing.T) {
	t.Parallel()
	for _, escapes := range []bool{true, false} {
		var buf syncBuffer
		term := liveTerminal(&buf, escapes)
		term.Emit(event.RequestStarted{Agent: event.Worker, Step: 1})
		term.Emit(event.Streaming{Agent: event.Worker, Content: "<think>secret plans", Tokens: 3, Estimated: true})
		term.redraw()
		if shown := buf.String(); strings.Contains(shown, "secret plans") {
			t.Errorf("escapes %v: an open think block shown: %q", escapes, shown)
		}
		mark := len(buf.String())
		term.Emit(event.Streaming{Agent: event.Worker, Content: "</think>\nSure! Here is a Python script:\n\n```python\ndef main():\n    print(\"hel", Tokens: 30, Estimated: true})
		term.redraw()
		shown := buf.String()[mark:]
		if !strings.Contains(shown, `print("hel`) || strings.Contains(shown, "Sure! Here") {
			t.Errorf("escapes %v: the reply's last line is not shown alone: %q", escapes, shown)
		}
		for i := range 200 {
			term.Emit(event.Streaming{Agent: event.Worker, Content: fmt.Sprintf("    filler %d\n", i), Tokens: 40 + i, Estimated: true})
		}
		mark = len(buf.String())
		term.redraw()
		if shown := buf.String()[mark:]; !strings.Contains(shown, "filler 199") {
			t.Errorf("escapes %v: a long reply's last line is not shown: %q", escapes, shown)
		}
		term.Emit(event.Streaming{Agent: event.Worker, Content: "# Agent Response\n\n## Thoughts\nNow properly.", Tokens: 300, Estimated: true})
		mark = len(buf.String())
		term.redraw()
		if shown := buf.String()[mark:]; !strings.Contains(shown, "Now properly.") || strings.Contains(shown, "filler") {
			t.Errorf("escapes %v: once the template starts, its thoughts: %q", escapes, shown)
		}
	}
}

// While a command runs, its last lines of output are shown live, before
// it ends; without escape codes, in one line.
func TestLiveCommandOutput(t *testing.T) {
	t.Parallel()
	for _, escapes := range []bool{true, false} {
		var buf syncBuffer
		term := liveTerminal(&buf, escapes)
		term.Emit(event.ToolStarted{Agent: event.Worker, Tool: "COMMAND", Input: "go test ./..."})
		for i := 1; i <= 8; i++ {
			term.Emit(event.CommandOutput{Agent: event.Worker, Output: fmt.Sprintf("output %d\n", i)})
		}
		term.Emit(event.CommandOutput{Agent: event.Worker, Output: "half a li"})
		term.Emit(event.CommandOutput{Agent: event.Worker, Output: "ne"})
		term.redraw()
		shown := buf.String()
		if !strings.Contains(shown, "go test ./... 0s") || !strings.Contains(shown, "half a line") {
			t.Errorf("escapes %v: live part:\n%q", escapes, shown)
		}
		if escapes && (!strings.Contains(shown, "│ output 5") || !strings.Contains(shown, "│ output 8") || strings.Contains(shown, "output 3")) {
			t.Errorf("the last lines are not shown: %q", shown)
		}
		if !escapes && strings.Contains(shown, "\x1b") {
			t.Errorf("escape codes without colour: %q", shown)
		}
		term.Emit(event.ToolFinished{Agent: event.Worker, Input: "go test ./...", Result: tools.Result{Tool: "COMMAND", OK: true, Output: "ok"}})
		if after := sanitize(strings.TrimPrefix(buf.String(), shown)); !strings.Contains(after, "✓ COMMAND go test ./...\n") {
			t.Errorf("no result line after the command: %q", after)
		}
	}
	var buf syncBuffer
	term := NewTerminal(&Streams{Err: &buf, Width: 60, Unicode: true, ErrTTY: true, Color: true}, Verbose)
	term.Emit(event.ToolStarted{Agent: event.Worker, Tool: "COMMAND", Input: "go test ./..."})
	term.Emit(event.CommandOutput{Agent: event.Worker, Output: "output 1\n"})
	term.redraw()
	shown := buf.String()
	term.Emit(event.ToolFinished{Agent: event.Worker, Input: "go test ./...", Result: tools.Result{Tool: "COMMAND", OK: true, Output: "ok"}})
	if after := strings.TrimPrefix(buf.String(), shown); !strings.Contains(after, "Result") {
		t.Errorf("verbose: no result box after the command: %q", after)
	}
}

func TestAuditStepsArePlural(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	NewTerminal(&Streams{Err: &buf, Width: 80}, Normal).Emit(event.AuditFinished{Verdict: "PASS", Steps: 1})
	if buf.String() != "ok audit passed (1 step)\n" {
		t.Errorf("%q", buf.String())
	}
}

// redraw draws the live part now, as its ticker does.
func (t *Terminal) redraw() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.drawLive()
}

func TestTailKeepsTheLastLines(t *testing.T) {
	t.Parallel()
	var tl tail
	tl.write(numbered(1000) + "\nprogress 10%\rprogress 50%")
	if got := strings.Join(tl.last(3), "|"); got != "line 999|line 1000|progress 50%" {
		t.Errorf("tail %q", got)
	}
	tl.write("\r\nnext\n")
	if got := strings.Join(tl.last(2), "|"); got != "progress 50%|next" {
		t.Errorf("tail %q", got)
	}
}

// A retry or a compression during the audit does not make the live part
// forget that the audit runs.
func TestLiveAuditSurvivesRetriesAndCompression(t *testing.T) {
	t.Parallel()
	var buf syncBuffer
	term := liveTerminal(&buf, true)
	term.Emit(event.AuditStarted{})
	term.Emit(event.Retrying{Message: "HTTP 500", Attempt: 1, Max: 3, Wait: time.Second})
	term.Emit(event.Compressing{Agent: event.Auditor, Tokens: 900, Window: 1000})
	term.Emit(event.Compressed{Agent: event.Auditor, TokensBefore: 900, TokensAfter: 100, Window: 1000})
	got := buf.String()
	if i := strings.LastIndex(got, "compressed the conversation"); i < 0 || !strings.Contains(got[i:], "Auditing the work...") {
		t.Errorf("after a compression: %q", got)
	}
	if i := strings.Index(got, "retrying"); i < 0 || !strings.Contains(got[i:strings.Index(got, "Compressing")], "Auditing the work...") {
		t.Errorf("after a retry: %q", got)
	}
}

// An edit's diff shows under its tool's line on the calm screen: no file
// or first hunk header (the line names the file), a later hunk after an
// ellipsis, capped; a file the edit created is named by its line alone; a
// command's changes are one line.
func TestCalmDiff(t *testing.T) {
	t.Parallel()
	diff := "diff --git a/a.go b/a.go\n--- a/a.go\n+++ b/a.go\n@@ -1,3 +1,3 @@\n package a\n-var x = 1\n+var x = 2\n@@ -20,2 +20,2 @@\n-var y = 1\n+var y = 2\n"
	var buf bytes.Buffer
	term := NewTerminal(&Streams{Err: &buf, Width: 60, Unicode: true}, Normal)
	term.Emit(event.ToolFinished{Input: "a.go\n```find\n1\n```", Result: tools.Result{Tool: "FIND_AND_REPLACE_IN_FILE", OK: true, Output: "Replaced."},
		Files: []event.FileChange{{Path: "a.go", Change: "modified", Diff: diff}}})
	want := "✓ FIND_AND_REPLACE_IN_FILE a.go\n     package a\n    -var x = 1\n    +var x = 2\n    …\n    -var y = 1\n    +var y = 2\n"
	if got := buf.String(); got != want {
		t.Errorf("calm diff:\n%q\nwant\n%q", got, want)
	}
	buf.Reset()
	term.Emit(event.ToolFinished{Input: "\"b.go\"\n```\npackage b\n```", Result: tools.Result{Tool: "WRITE_FILE", OK: true, Output: "Created."},
		Files: []event.FileChange{{Path: "b.go", Change: "added"}}})
	term.Emit(event.ToolFinished{Input: "make", Result: tools.Result{Tool: "COMMAND", OK: true, Output: "Command succeeded (exit code 0)."},
		Files: []event.FileChange{{Path: "out.bin", Change: "added"}, {Path: "a.go", Change: "modified"}}})
	if got, want := buf.String(), "✓ WRITE_FILE b.go\n✓ COMMAND make\n  changed: added out.bin, modified a.go\n"; got != want {
		t.Errorf("files changed:\n%q\nwant\n%q", got, want)
	}
	long := "@@ -1,1 +1,20 @@\n" + strings.Repeat("+line\n", 20)
	buf.Reset()
	term.Emit(event.ToolFinished{Input: "c.go", Result: tools.Result{Tool: "WRITE_FILE", OK: true}, Files: []event.FileChange{{Path: "c.go", Change: "modified", Diff: long}}})
	if got := buf.String(); strings.Count(got, "+line") != diffLines || !strings.Contains(got, "… 8 more lines (--verbose shows all)") {
		t.Errorf("a long diff is not capped:\n%s", got)
	}
}
