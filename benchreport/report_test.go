package benchreport

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/devagent/dev/sessions"
)

// What a run cost, from its session's records: compression requests are
// no replies; the server's own time where it gave it, else the wait.
func TestAccount(t *testing.T) {
	t.Parallel()
	cached := 300
	var task Task
	task.Account([]sessions.Request{
		{Purpose: sessions.PurposeWorker, PromptTokens: 1000, CompletionTokens: 50, DurationMs: 2000, ServerMs: 1500, CachedTokens: &cached},
		{Purpose: sessions.PurposeWorker, PromptTokens: 1100, CompletionTokens: 40, DurationMs: 900, FormatError: true},
		{Purpose: sessions.PurposeAudit, PromptTokens: 500, CompletionTokens: 30, DurationMs: 700, ServerMs: 600},
		{Purpose: sessions.PurposeCompress, PromptTokens: 4000, CompletionTokens: 200, DurationMs: 3000, ServerMs: 2900},
	})
	want := Task{Replies: 3, FormatErrors: 1, WellFormed: 66.7, TokensIn: 6600, TokensOut: 320, CachedTokens: &cached,
		ServerSeconds: 5.9, ServerTimed: true}
	if !reflect.DeepEqual(task, want) {
		t.Errorf("Account:\n got %+v\nwant %+v", task, want)
	}
	var none Task
	none.Account([]sessions.Request{{Purpose: sessions.PurposeWorker, PromptTokens: 10, DurationMs: 1234}})
	if none.CachedTokens != nil || none.ServerTimed || none.ServerSeconds != 1.23 || none.WellFormed != 100 {
		t.Errorf("a server that says nothing: %+v", none)
	}
}

// The model rows: one per model, profile and mode, in the order of their
// first task; sums and means per task; cache reuse only where known.
func TestSummarize(t *testing.T) {
	t.Parallel()
	c := func(n int) *int { return &n }
	tasks := []Task{
		{Model: "m1", Constrain: "auto", Task: "a", Done: true, Steps: 2, Replies: 3, FormatErrors: 1, TokensIn: 1000, TokensOut: 100, ServerSeconds: 2, CachedTokens: c(800)},
		{Model: "m2", Constrain: "auto", Task: "a", Done: false, Steps: 5, Replies: 5, TokensIn: 3000, TokensOut: 300, ServerSeconds: 6},
		{Model: "m1", Constrain: "auto", Task: "b", Done: false, Steps: 3, Replies: 1, TokensIn: 1001, TokensOut: 101, ServerSeconds: 3, CachedTokens: c(0)},
		{Model: "m1", Constrain: "off", Task: "a", Done: true, Steps: 1, Replies: 1, TokensIn: 10, TokensOut: 1, ServerSeconds: 1},
	}
	rows := Summarize(tasks, func(k Key) float64 { return map[string]float64{"auto": 12.34, "off": 5}[k.Constrain] })
	reuse := 40.0 // 800 of 2001
	want := []Model{
		{Model: "m1", Constrain: "auto", Tasks: 2, Done: 1, WellFormed: 75, FormatErrors: 1, Steps: 2.5, TokensIn: 1001, TokensOut: 101,
			ServerSeconds: 2.5, CacheReuse: &reuse, WallSeconds: 12.3},
		{Model: "m2", Constrain: "auto", Tasks: 1, Done: 0, WellFormed: 100, Steps: 5, TokensIn: 3000, TokensOut: 300, ServerSeconds: 6, WallSeconds: 12.3},
		{Model: "m1", Constrain: "off", Tasks: 1, Done: 1, WellFormed: 100, Steps: 1, TokensIn: 10, TokensOut: 1, ServerSeconds: 1, WallSeconds: 5},
	}
	if !reflect.DeepEqual(rows, want) {
		got, _ := json.Marshal(rows)
		exp, _ := json.Marshal(want)
		t.Errorf("Summarize:\n got %s\nwant %s", got, exp)
	}
}

// report.json's field names are SPEC §19's.
func TestJSONFieldNames(t *testing.T) {
	t.Parallel()
	r := Report{Models: []Model{{}}, Tasks: []Task{{}}}
	data, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Models []map[string]any `json:"models"`
		Tasks  []map[string]any `json:"tasks"`
	}
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"model", "constrain", "tasks", "done", "wellFormed", "formatErrors", "steps", "tokensIn", "tokensOut",
		"serverSeconds", "cacheReuse", "wallSeconds"} {
		if _, ok := got.Models[0][k]; !ok {
			t.Errorf("a model object lacks %q: %s", k, data)
		}
	}
	for _, k := range []string{"model", "constrain", "task", "run", "done", "exitCode", "steps", "wellFormed", "seconds", "session"} {
		if _, ok := got.Tasks[0][k]; !ok {
			t.Errorf("a task object lacks %q: %s", k, data)
		}
	}
}

// Merging shards: every task once, the rows computed again, the longest
// shard's wall time; the same task and run in two reports (the suite run
// twice) numbered after the others.
func TestMerge(t *testing.T) {
	t.Parallel()
	day := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	shard := func(start time.Time, wall float64, tasks ...Task) Report {
		r := Report{Version: "1.0", Started: start, Suite: "builtin", Shard: "x", Tasks: tasks}
		r.Models = Summarize(tasks, func(Key) float64 { return wall })
		return r
	}
	task := func(name string, run int, done bool) Task {
		return Task{Model: "m", Constrain: "auto", Task: name, Run: run, Done: done, Steps: 2, Replies: 2, TokensIn: 100}
	}
	a := shard(day.Add(time.Minute), 30, task("t0", 1, true), task("t2", 1, false), task("t0", 2, true))
	b := shard(day, 45, task("t1", 1, true), task("t3", 1, true))
	m := Merge([]Report{a, b})
	var got []string
	for _, t := range m.Tasks {
		got = append(got, t.Task+"#"+string(rune('0'+t.Run)))
	}
	if want := []string{"t0#1", "t0#2", "t1#1", "t2#1", "t3#1"}; !slices.Equal(got, want) {
		t.Errorf("merged tasks %v, want %v", got, want)
	}
	if len(m.Models) != 1 || m.Models[0].Tasks != 5 || m.Models[0].Done != 4 || m.Models[0].WallSeconds != 45 {
		t.Errorf("merged rows %+v", m.Models)
	}
	if !m.Started.Equal(day) || m.Version != "1.0" || m.Suite != "builtin" || m.Shard != "" {
		t.Errorf("merged header: started %v, version %q, suite %q, shard %q", m.Started, m.Version, m.Suite, m.Shard)
	}

	twice := Merge([]Report{a, a})
	var runs []int
	for _, t := range twice.Tasks {
		if t.Task == "t0" {
			runs = append(runs, t.Run)
		}
	}
	if !slices.Equal(runs, []int{1, 2, 3, 4}) || len(twice.Tasks) != 6 {
		t.Errorf("a report merged with itself: t0 runs %v of %d tasks, want 1 2 3 4 of 6", runs, len(twice.Tasks))
	}
}

// Write and Read: the JSON comes back as it was; report.md holds both
// tables and why tasks were not done.
func TestWriteRead(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tasks := []Task{
		{Model: "qwen", Constrain: "auto", Task: "fix-go-sum", Run: 1, Done: true, Steps: 3, Replies: 4, FormatErrors: 1, WellFormed: 75, Seconds: 12.5, Session: "s1"},
		{Model: "qwen", Constrain: "auto", Task: "answer | pipes", Run: 1, Steps: 1, Replies: 1, WellFormed: 100, Session: "s2", Check: "the answer should name 45"},
	}
	r := Report{Version: "1.2.3", Started: time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC), Suite: "builtin", Shard: "1/4", Tasks: tasks,
		Models: Summarize(tasks, func(Key) float64 { return 61 })}
	if err := Write(dir, r); err != nil {
		t.Fatal(err)
	}
	back, err := Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, r) {
		t.Errorf("read back:\n got %+v\nwant %+v", back, r)
	}
	md, err := os.ReadFile(filepath.Join(dir, MarkdownFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"# dev bench report", "Started 2026-03-01 10:00 UTC, dev 1.2.3, suite builtin, shard 1/4.",
		"| model | constrain | done |", "| qwen | auto | 1/2 | 80% | 1 |", "1m01s |", "## Tasks", `answer \| pipes`,
		"| fix-go-sum | 1 | yes | 0 | 3 | 75% | 12.5 | s1 |", "qwen, auto, answer | pipes run 1: the check failed: the answer should name 45"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("report.md lacks %q:\n%s", want, md)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("the directory holds %d files, want report.json and report.md alone", len(entries))
	}
	if _, err := Read(filepath.Join(dir, "nothing")); err == nil || !strings.Contains(err.Error(), "no report there") {
		t.Errorf("Read of a directory without a report: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "bad.json"), []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(filepath.Join(dir, "bad.json")); err == nil || !strings.Contains(err.Error(), "not a dev bench report") {
		t.Errorf("Read of a broken file: %v", err)
	}
}

// The tables: a profile column only when a row has a profile; server
// seconds marked ~ when they are the wait, not the server's timings.
func TestTables(t *testing.T) {
	t.Parallel()
	tasks := []Task{{Model: "m", Constrain: "off", Task: "a", Run: 1, Done: true, ServerSeconds: 2, TimedOut: false, Replies: 1, WellFormed: 100}}
	r := Report{Tasks: tasks, Models: Summarize(tasks, nil)}
	cols, rows := r.ModelTable()
	if headers(cols)[1] != "CONSTRAIN" || rows[0][len(rows[0])-3] != "~2.0" || rows[0][len(rows[0])-2] != "-" {
		t.Errorf("model table %v %v", headers(cols), rows)
	}
	r.Tasks[0].Profile, r.Tasks[0].ServerTimed = "fast", true
	r.Models = Summarize(r.Tasks, nil)
	cols, rows = r.ModelTable()
	if headers(cols)[1] != "PROFILE" || rows[0][1] != "fast" || rows[0][len(rows[0])-3] != "2.0" {
		t.Errorf("model table with a profile %v %v", headers(cols), rows)
	}
	r.Tasks[0].Done, r.Tasks[0].TimedOut = false, true
	_, rows = r.TaskTable()
	if !slices.Contains(rows[0], "timed out") {
		t.Errorf("task row of a timed-out task: %v", rows[0])
	}
}

func headers(cols []Column) []string {
	var out []string
	for _, c := range cols {
		out = append(out, c.Header)
	}
	return out
}

// Why a task was not done names its row whole: the same model and mode
// under two profiles (two servers) are two rows.
func TestMarkdownNamesTheProfile(t *testing.T) {
	t.Parallel()
	tasks := []Task{
		{Model: "smollm2", Profile: "llama-server", Constrain: "auto", Task: "fix-go-sum", Run: 1, Error: "the same step repeated"},
		{Model: "smollm2", Profile: "ollama", Constrain: "auto", Task: "fix-go-sum", Run: 1, Error: "maxLoops reached"},
	}
	var md strings.Builder
	Markdown(&md, Report{Tasks: tasks, Models: Summarize(tasks, nil)})
	for _, want := range []string{"- smollm2 (llama-server), auto, fix-go-sum run 1: the same step repeated",
		"- smollm2 (ollama), auto, fix-go-sum run 1: maxLoops reached"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("report.md lacks %q:\n%s", want, md.String())
		}
	}
}
