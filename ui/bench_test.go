package ui

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/rivo/uniseg"

	"github.com/devagent/dev/benchreport"
)

func benchSample() benchreport.Report {
	var tasks []benchreport.Task
	for i, name := range []string{"answer-go-port", "exact-greeting", "fix-python-median-with-a-rather-long-name"} {
		tasks = append(tasks, benchreport.Task{Model: "Qwen/Qwen3-Coder-30B-A3B-Instruct-GGUF:Q4_K_M", Constrain: "auto", Task: name, Run: 1,
			Done: i != 1, ExitCode: 0, Steps: 3 + i, Replies: 4, FormatErrors: i % 2, WellFormed: 75, Seconds: 12.25,
			Session: "0d6f2a4e-5b1c-4c8e-9a0f-3b2d1e4c5f6a", TokensIn: 12000, TokensOut: 900, ServerSeconds: 9.5})
	}
	return benchreport.Report{Tasks: tasks, Models: benchreport.Summarize(tasks, func(benchreport.Key) float64 { return 95 })}
}

// The report's tables fit the width given, every line; without a width
// every cell is whole.
func TestBenchReportFits(t *testing.T) {
	t.Parallel()
	r := benchSample()
	for _, width := range []int{60, 80, 120, 200} {
		var b bytes.Buffer
		if err := BenchReport(&b, r, Fit{Width: width}); err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(strings.TrimRight(b.String(), "\n"), "\n") {
			if w := uniseg.StringWidth(line); w > width {
				t.Errorf("width %d: a line of %d columns: %q", width, w, line)
			}
		}
		// The models' table stays a table down to 80 columns, what it
		// leaves out (in report.md) last first.
		if header := strings.SplitN(b.String(), "\n", 2)[0]; width >= 80 &&
			(!strings.HasPrefix(header, "MODEL") || !strings.Contains(header, "WELL-FORMED") || !strings.HasSuffix(header, "WALL")) {
			t.Errorf("width %d: the models' table is no table:\n%s", width, b.String())
		}
		if width >= 80 && !strings.Contains(b.String(), "\nMODEL") {
			t.Errorf("width %d: the tasks' table is no table:\n%s", width, b.String())
		}
	}
	var b bytes.Buffer
	if err := BenchReport(&b, r, Fit{}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Qwen/Qwen3-Coder-30B-A3B-Instruct-GGUF:Q4_K_M", "2/3", "fix-python-median-with-a-rather-long-name",
		"0d6f2a4e-5b1c-4c8e-9a0f-3b2d1e4c5f6a", "1m35s", "~9.5", "DONE: tasks whose check passed"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the whole report lacks %q:\n%s", want, b.String())
		}
	}
}

// --list: a task a line, its kind, language and request.
func TestBenchList(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	err := BenchList(&b, []SuiteTask{{Name: "fix-go-sum", Kind: "fix a bug", Language: "Go", Request: "`go test ./...` fails.\nFix it."},
		{Name: "mine", Request: "Do my thing."}}, Fit{Width: 80})
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "TASK") || !strings.Contains(lines[1], "fix a bug") ||
		!strings.Contains(lines[1], "`go test ./...` fails. Fix it.") || !strings.Contains(lines[2], "mine        -") {
		t.Errorf("--list:\n%s", b.String())
	}
}

// Without a terminal: one plain line per finished task, no bar, no escape.
func TestBenchProgressLines(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	p := NewBenchProgress(&Streams{Err: &b, Width: 80}, 3)
	r := benchSample()
	r.Tasks[1].ExitCode = 5
	r.Tasks[2].Run, r.Tasks[2].Profile = 2, "fast"
	for i, task := range r.Tasks {
		p.Finished(task, i+1, 3)
	}
	timedOut := r.Tasks[0]
	timedOut.Done, timedOut.TimedOut = false, true
	p.Finished(timedOut, 3, 3)
	p.Stop()
	want := "[1/3] Qwen/Qwen3-Coder-30B-A3B-Instruct-GGUF:Q4_K_M | auto | answer-go-port: done, 3 steps, 12.2s\n" +
		"[2/3] Qwen/Qwen3-Coder-30B-A3B-Instruct-GGUF:Q4_K_M | auto | exact-greeting: not done (exit 5), 4 steps, 12.2s\n" +
		"[3/3] Qwen/Qwen3-Coder-30B-A3B-Instruct-GGUF:Q4_K_M (fast) | auto | fix-python-median-with-a-rather-long-name #2: done, 5 steps, 12.2s\n" +
		"[3/3] Qwen/Qwen3-Coder-30B-A3B-Instruct-GGUF:Q4_K_M | auto | answer-go-port: timed out, 3 steps, 12.2s\n"
	if b.String() != want {
		t.Errorf("progress:\n%s\nwant:\n%s", b.String(), want)
	}
}

// On a terminal, a bar under the lines: the count, the time so far and
// the time left at the pace so far; erased before each line and at the end.
func TestBenchProgressBar(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	s := &Streams{Err: &b, ErrTTY: true, Color: true, Unicode: true, Width: 100}
	p := NewBenchProgress(s, 4)
	clock := p.started
	p.mu.Lock()
	p.now = func() time.Time { return clock }
	p.mu.Unlock()
	clock = clock.Add(30 * time.Second)
	p.Finished(benchSample().Tasks[0], 1, 4)
	p.mu.Lock()
	bar := p.bar(99)
	p.mu.Unlock()
	if !strings.Contains(bar, "1/4 tasks, 30s, about 1m30s left") || !strings.Contains(bar, "█") {
		t.Errorf("bar %q", bar)
	}
	if w := uniseg.StringWidth(bar); w > 99 {
		t.Errorf("the bar takes %d columns of 99", w)
	}
	p.Stop()
	out := b.String()
	if !strings.Contains(out, "\r\x1b[K") || !strings.HasSuffix(out, "\r\x1b[K") {
		t.Errorf("the bar is not erased before the line and at the end: %q", out)
	}
	if !strings.Contains(out, "0/4 tasks") {
		t.Errorf("no bar drawn at the start: %q", out)
	}
	p.Stop() // twice is fine
}

// --json: a line per task with its type, then the summary.
func TestBenchEvents(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	e := NewBenchEvents(&b)
	r := benchSample()
	for _, task := range r.Tasks {
		if err := e.Task(task); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.Summary(r); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 4 {
		t.Fatalf("%d lines:\n%s", len(lines), b.String())
	}
	var task map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &task); err != nil || task["type"] != "task" || task["task"] != "answer-go-port" || task["done"] != true {
		t.Errorf("a task line: %s %v", lines[0], err)
	}
	var summary struct {
		Type   string              `json:"type"`
		Models []benchreport.Model `json:"models"`
		Tasks  []benchreport.Task  `json:"tasks"`
	}
	if err := json.Unmarshal([]byte(lines[3]), &summary); err != nil || summary.Type != "summary" || len(summary.Models) != 1 || len(summary.Tasks) != 3 {
		t.Errorf("the summary: %s %v", lines[3], err)
	}
}
