// Package benchreport is dev bench's report (SPEC §19): the result of each
// task and run, what each run cost read from its session's request records,
// the summary per model and constrain mode computed from those results,
// report.json's form, report.md, and the merge of several reports (shards
// of one suite, or separate runs) into one. It runs nothing and prints
// nothing: package modelbench fills it, ui shows it as a table.
package benchreport

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/devagent/dev/sessions"
)

// The files of a report directory.
const (
	JSONFile     = "report.json"
	MarkdownFile = "report.md"
)

// Report is one run of dev bench, or several merged.
type Report struct {
	// Version is the dev that ran the tasks ("a, b" when merged reports
	// differ).
	Version string `json:"version"`
	// Started is when the run began (the earliest, merged).
	Started time.Time `json:"started"`
	// Suite is "builtin" or the directory of the user's suite.
	Suite string `json:"suite"`
	// Shard is "I/N" when the run was one shard of the suite.
	Shard string `json:"shard,omitempty"`
	// Interrupted: the run was stopped (Ctrl+C) or ended by a server
	// failure before every task ran; the report holds what finished.
	Interrupted bool `json:"interrupted,omitempty"`
	// Models is one row per model and constrain mode (and profile).
	Models []Model `json:"models"`
	// Tasks is one row per task and run, in the order of the models, of
	// the suite and of the runs.
	Tasks []Task `json:"tasks"`
}

// Task is how one run of one task went.
type Task struct {
	Model     string `json:"model"`
	Profile   string `json:"profile,omitempty"`
	Constrain string `json:"constrain"`
	Task      string `json:"task"`
	Run       int    `json:"run"` // 1, 2, … (--runs)
	// Done: the check passed in the finished tree, within the time limit.
	Done bool `json:"done"`
	// ExitCode is how the run ended, as dev -p would have exited (SPEC §6).
	ExitCode int `json:"exitCode"`
	// Steps are the worker's steps (model replies acted on).
	Steps int `json:"steps"`
	// WellFormed is the percentage of the replies (worker and audit)
	// parsed on the first try; 0 when there was none.
	WellFormed float64 `json:"wellFormed"`
	// Seconds is the task's wall time: the tree copied, the run, the check.
	Seconds float64 `json:"seconds"`
	// Session is the id of the run's session, stored in the report's
	// directory under sessions/.
	Session string `json:"session"`

	// What the run cost, from its session's request records.
	Replies      int `json:"replies"`
	FormatErrors int `json:"formatErrors"`
	TokensIn     int `json:"tokensIn"`
	TokensOut    int `json:"tokensOut"`
	// CachedTokens are the prompt tokens the server's cache served, nil
	// when the server never said.
	CachedTokens *int `json:"cachedTokens,omitempty"`
	// ServerSeconds is the time the server worked on the run's requests:
	// its own timings where it reports them (ServerTimed), else the time
	// dev waited for its replies.
	ServerSeconds float64 `json:"serverSeconds"`
	ServerTimed   bool    `json:"serverTimed,omitempty"`
	// CheckSeconds is the check's share of Seconds.
	CheckSeconds float64 `json:"checkSeconds"`

	// TimedOut: the run passed --task-timeout and was stopped; its check
	// did not run.
	TimedOut bool `json:"timedOut,omitempty"`
	// Error is why the run failed, as dev -p says it.
	Error string `json:"error,omitempty"`
	// Check is the end of the check's output when it failed.
	Check string `json:"check,omitempty"`
}

// Model is the summary of one model in one constrain mode.
type Model struct {
	Model     string `json:"model"`
	Profile   string `json:"profile,omitempty"`
	Constrain string `json:"constrain"`
	// Tasks counts the tasks run (each run of a task counts), Done those
	// whose check passed.
	Tasks int `json:"tasks"`
	Done  int `json:"done"`
	// WellFormed is the percentage of all replies parsed on the first try.
	WellFormed   float64 `json:"wellFormed"`
	FormatErrors int     `json:"formatErrors"`
	// Steps, TokensIn, TokensOut and ServerSeconds are per task (means).
	Steps         float64 `json:"steps"`
	TokensIn      int     `json:"tokensIn"`
	TokensOut     int     `json:"tokensOut"`
	ServerSeconds float64 `json:"serverSeconds"`
	// CacheReuse is the percentage of prompt tokens the server's prompt
	// cache served; nil when the server never said.
	CacheReuse *float64 `json:"cacheReuse"`
	// WallSeconds is how long the model's tasks took from the first start
	// to the last end (merged shards: the longest shard's).
	WallSeconds float64 `json:"wallSeconds"`
}

// Key names a model row: the tasks of one model, profile and mode.
type Key struct{ Model, Profile, Constrain string }

// Key is the row t counts in.
func (t Task) Key() Key { return Key{t.Model, t.Profile, t.Constrain} }

// Key is the row's.
func (m Model) Key() Key { return Key{m.Model, m.Profile, m.Constrain} }

// Account fills what the run cost from its session's request records:
// replies and format errors (worker and audit requests, as dev stats
// counts them), tokens, the prompt cache and the server's time.
func (t *Task) Account(requests []sessions.Request) {
	t.Replies, t.FormatErrors, t.TokensIn, t.TokensOut = 0, 0, 0, 0
	t.CachedTokens, t.ServerTimed = nil, false
	var serverMs int64
	for _, r := range requests {
		t.TokensIn += r.PromptTokens
		t.TokensOut += r.CompletionTokens
		if r.CachedTokens != nil {
			t.CachedTokens = ptr(deref(t.CachedTokens) + *r.CachedTokens)
		}
		if r.ServerMs > 0 {
			serverMs += r.ServerMs
			t.ServerTimed = true
		} else {
			serverMs += r.DurationMs
		}
		if r.Purpose == sessions.PurposeCompress {
			continue
		}
		t.Replies++
		if r.FormatError {
			t.FormatErrors++
		}
	}
	t.WellFormed = percent(t.Replies-t.FormatErrors, t.Replies)
	t.ServerSeconds = seconds(serverMs)
}

// Summarize is the model rows of tasks, in the order their first task
// comes; wall gives each row's wall time.
func Summarize(tasks []Task, wall func(Key) float64) []Model {
	var rows []Model
	at := map[Key]int{}
	type sums struct {
		replies, steps, in, out int
		cached, cachedOf        int
		cacheKnown              bool
		server                  float64
	}
	var all []sums
	for _, t := range tasks {
		i, ok := at[t.Key()]
		if !ok {
			i = len(rows)
			at[t.Key()] = i
			rows = append(rows, Model{Model: t.Model, Profile: t.Profile, Constrain: t.Constrain})
			all = append(all, sums{})
		}
		m, s := &rows[i], &all[i]
		m.Tasks++
		if t.Done {
			m.Done++
		}
		m.FormatErrors += t.FormatErrors
		s.replies += t.Replies
		s.steps += t.Steps
		s.in += t.TokensIn
		s.out += t.TokensOut
		s.server += t.ServerSeconds
		if t.CachedTokens != nil {
			s.cacheKnown = true
			s.cached += *t.CachedTokens
			s.cachedOf += t.TokensIn
		}
	}
	for i := range rows {
		m, s := &rows[i], all[i]
		n := float64(m.Tasks)
		m.WellFormed = percent(s.replies-m.FormatErrors, s.replies)
		m.Steps = round(float64(s.steps)/n, 1)
		m.TokensIn = int(math.Round(float64(s.in) / n))
		m.TokensOut = int(math.Round(float64(s.out) / n))
		m.ServerSeconds = round(s.server/n, 1)
		if s.cacheKnown {
			m.CacheReuse = ptr(percent(s.cached, s.cachedOf))
		}
		if wall != nil {
			m.WallSeconds = round(wall(m.Key()), 1)
		}
	}
	return rows
}

// Sort puts the tasks in the report's order: by model row (as rows gives
// them), then in the suite's order (by name), then by run.
func Sort(tasks []Task, rows []Key) {
	pos := func(k Key) int {
		if i := slices.Index(rows, k); i >= 0 {
			return i
		}
		return len(rows)
	}
	slices.SortStableFunc(tasks, func(a, b Task) int {
		return cmp.Or(cmp.Compare(pos(a.Key()), pos(b.Key())), cmp.Compare(a.Task, b.Task), cmp.Compare(a.Run, b.Run))
	})
}

// Merge joins reports into one: every task of each, the model rows
// computed again from them. A task and run that two reports both hold (the
// same suite run twice) is kept twice, the later one numbered after the
// runs before it. A row's wall time is the longest of its parts' (shards
// run side by side).
func Merge(reports []Report) Report {
	var out Report
	walls := map[Key]float64{}
	runs := map[string]int{} // model row and task → highest run so far
	var versions, suites []string
	for _, r := range reports {
		if out.Started.IsZero() || (!r.Started.IsZero() && r.Started.Before(out.Started)) {
			out.Started = r.Started
		}
		versions = appendNew(versions, r.Version)
		suites = appendNew(suites, r.Suite)
		out.Interrupted = out.Interrupted || r.Interrupted
		for _, m := range r.Models {
			walls[m.Key()] = max(walls[m.Key()], m.WallSeconds)
		}
		// Runs of one report are renumbered together: its run 2 stays
		// after its run 1.
		offset := map[string]int{}
		for _, t := range r.Tasks {
			id := fmt.Sprintf("%q %q %q %q", t.Model, t.Profile, t.Constrain, t.Task)
			if _, ok := offset[id]; !ok {
				offset[id] = runs[id]
			}
			t.Run += offset[id]
			runs[id] = max(runs[id], t.Run)
			out.Tasks = append(out.Tasks, t)
		}
	}
	out.Version = strings.Join(versions, ", ")
	out.Suite = strings.Join(suites, ", ")
	var order []Key
	for _, t := range out.Tasks {
		if !slices.Contains(order, t.Key()) {
			order = append(order, t.Key())
		}
	}
	Sort(out.Tasks, order)
	out.Models = Summarize(out.Tasks, func(k Key) float64 { return walls[k] })
	if out.Tasks == nil {
		out.Tasks = []Task{}
	}
	return out
}

func appendNew(list []string, s string) []string {
	if s == "" || slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

// Read reads a report: dir/report.json, or the file itself when path
// names one.
func Read(path string) (Report, error) {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		path = filepath.Join(path, JSONFile)
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Report{}, fmt.Errorf("%s: no report there (dev bench writes %s in its --out directory): %w", path, JSONFile, err)
	}
	if err != nil {
		return Report{}, err
	}
	var r Report
	if err := json.Unmarshal(data, &r); err != nil {
		return Report{}, fmt.Errorf("%s: not a dev bench report: %w", path, err)
	}
	return r, nil
}

// Write writes report.json and report.md into dir, each replaced whole
// (a temporary file renamed), so that a reader, or a run killed while
// writing, never leaves half a report.
func Write(dir string, r Report) error {
	if r.Models == nil {
		r.Models = []Model{}
	}
	if r.Tasks == nil {
		r.Tasks = []Task{}
	}
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if err := writeFile(filepath.Join(dir, JSONFile), append(data, '\n')); err != nil {
		return err
	}
	var md strings.Builder
	Markdown(&md, r)
	return writeFile(filepath.Join(dir, MarkdownFile), []byte(md.String()))
}

func writeFile(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("writing the report: %w", err)
	}
	defer os.Remove(tmp.Name()) // after the rename, there is nothing to remove
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("writing the report: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("writing the report: %w", err)
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return fmt.Errorf("writing the report: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("writing the report: %w", err)
	}
	return nil
}

// percent is n of total in percent with one decimal, 0 for no total.
func percent(n, total int) float64 {
	if total <= 0 {
		return 0
	}
	return round(100*float64(n)/float64(total), 1)
}

func seconds(ms int64) float64 { return round(float64(ms)/1000, 2) }

// Seconds is d in seconds, as the report writes times.
func Seconds(d time.Duration) float64 { return round(d.Seconds(), 2) }

func round(x float64, decimals int) float64 {
	p := math.Pow(10, float64(decimals))
	return math.Round(x*p) / p
}

func ptr[T any](v T) *T { return &v }

func deref(p *int) int {
	if p == nil {
		return 0
	}
	return *p
}
