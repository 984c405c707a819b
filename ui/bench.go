package ui

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/fatih/color"
	"github.com/rivo/uniseg"

	"github.com/devagent/dev/benchreport"
	"github.com/devagent/dev/textfmt"
)

// BenchReport writes dev bench's report in f's width: the table of the
// models, the table of the tasks and runs, and what the columns count.
func BenchReport(w io.Writer, r benchreport.Report, f Fit) error {
	for i, table := range []func() ([]benchreport.Column, [][]string){r.ModelTable, r.TaskTable} {
		if i > 0 {
			fmt.Fprintln(w)
		}
		cols, rows := table()
		if err := benchTable(cols, rows).Write(w, f); err != nil {
			return err
		}
	}
	legend := []string{benchreport.Legend}
	if f.Width > 0 {
		legend = wrap(benchreport.Legend, f.Width)
	}
	_, err := fmt.Fprintln(w, "\n"+strings.Join(legend, "\n"))
	return err
}

// benchTable lays a report table out with the one table writer.
func benchTable(cols []benchreport.Column, rows [][]string) *Table {
	t := &Table{Rows: rows}
	for _, c := range cols {
		col := Column{Header: c.Header, Right: c.Number, Yields: c.Yields, Optional: c.Optional}
		if c.Cut {
			col.Cut, col.Min = CutEnd, 8
		}
		t.Columns = append(t.Columns, col)
	}
	return t
}

// SuiteTask is a task as dev bench --list shows it.
type SuiteTask struct {
	Name, Kind, Language string
	Request              string // task.md
}

// BenchList writes dev bench --list: a task a line, with its kind,
// language and the start of its request.
func BenchList(w io.Writer, tasks []SuiteTask, f Fit) error {
	t := &Table{Columns: []Column{{Header: "TASK"}, {Header: "KIND"}, {Header: "LANGUAGE"}, {Header: "REQUEST", Cut: CutEnd, Min: 20}}}
	for _, task := range tasks {
		t.Rows = append(t.Rows, []string{task.Name, orDash(task.Kind), orDash(task.Language), textfmt.Excerpt(task.Request, 300)})
	}
	return t.Write(w, f)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// BenchListJSON writes dev bench --list --json: an object a line per task
// (name, kind, language, request).
func BenchListJSON(w io.Writer, tasks []SuiteTask) error {
	enc := json.NewEncoder(w)
	for _, t := range tasks {
		err := enc.Encode(struct {
			Name     string `json:"name"`
			Kind     string `json:"kind,omitempty"`
			Language string `json:"language,omitempty"`
			Request  string `json:"request"`
		}{t.Name, t.Kind, t.Language, t.Request})
		if err != nil {
			return err
		}
	}
	return nil
}

// BenchReportJSON writes a report as report.json holds it (dev bench
// report --json).
func BenchReportJSON(w io.Writer, r benchreport.Report) error {
	if r.Models == nil {
		r.Models = []benchreport.Model{}
	}
	if r.Tasks == nil {
		r.Tasks = []benchreport.Task{}
	}
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", data)
	return err
}

// BenchEvents writes dev bench --json: a JSON object a line for each
// finished task ("type": "task", the task's fields of report.json), and
// last the summary ("type": "summary", report.json's content).
type BenchEvents struct {
	mu  sync.Mutex
	enc *json.Encoder
}

// NewBenchEvents writes the events to w.
func NewBenchEvents(w io.Writer) *BenchEvents { return &BenchEvents{enc: json.NewEncoder(w)} }

// Task writes a finished task.
func (e *BenchEvents) Task(t benchreport.Task) error {
	return e.write(struct {
		Type string `json:"type"`
		benchreport.Task
	}{"task", t})
}

// Summary writes the report, last.
func (e *BenchEvents) Summary(r benchreport.Report) error {
	if r.Models == nil {
		r.Models = []benchreport.Model{}
	}
	if r.Tasks == nil {
		r.Tasks = []benchreport.Task{}
	}
	return e.write(struct {
		Type string `json:"type"`
		benchreport.Report
	}{"summary", r})
}

func (e *BenchEvents) write(v any) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.enc.Encode(v)
}

// BenchProgress shows dev bench's progress on stderr: a line for each
// finished task (model, mode, task, done or not, steps, seconds) and, on a
// terminal, a bar under them with the count and an estimate of the time
// left, redrawn each second.
type BenchProgress struct {
	mu       sync.Mutex
	w        io.Writer
	tty      bool
	escapes  bool
	unicode  bool
	widthOf  func() int
	now      func() time.Time
	started  time.Time
	total    int
	finished int
	drawn    int // the bar's width on screen, 0 when none is drawn
	stop     chan struct{}
	stopped  bool
	green    *color.Color
	red      *color.Color
	dim      *color.Color
}

// benchTick is how often the bar's times are redrawn.
const benchTick = time.Second

// NewBenchProgress starts the progress of total tasks on s.Err.
func NewBenchProgress(s *Streams, total int) *BenchProgress {
	p := &BenchProgress{w: s.Err, tty: s.ErrTTY, escapes: s.Color, unicode: s.Unicode, widthOf: s.TermWidth,
		now: time.Now, total: total, stop: make(chan struct{})}
	p.started = p.now()
	mk := func(attrs ...color.Attribute) *color.Color { return colour(s.Color, attrs...) }
	p.green, p.red, p.dim = mk(color.FgGreen), mk(color.FgRed), mk(color.Faint)
	if p.tty {
		p.mu.Lock()
		p.drawBar()
		p.mu.Unlock()
		go p.tick()
	}
	return p
}

func (p *BenchProgress) tick() {
	t := time.NewTicker(benchTick)
	defer t.Stop()
	for {
		select {
		case <-p.stop:
			return
		case <-t.C:
			p.mu.Lock()
			if !p.stopped {
				p.drawBar()
			}
			p.mu.Unlock()
		}
	}
}

// Finished says that a task finished: finished of total so far.
func (p *BenchProgress) Finished(t benchreport.Task, finished, total int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.finished, p.total = finished, total
	p.eraseBar()
	fmt.Fprintln(p.w, p.line(t))
	if p.tty && !p.stopped {
		p.drawBar()
	}
}

// line is a finished task's line.
func (p *BenchProgress) line(t benchreport.Task) string {
	sep := " | "
	if p.unicode {
		sep = " · "
	}
	name := t.Task
	if t.Run > 1 {
		name += fmt.Sprintf(" #%d", t.Run)
	}
	model := t.Model
	if t.Profile != "" {
		model += " (" + t.Profile + ")"
	}
	var verdict string
	switch {
	case t.Done:
		verdict = p.green.Sprint("done")
	case t.TimedOut:
		verdict = p.red.Sprint("timed out")
	default:
		verdict = p.red.Sprint("not done") + fmt.Sprintf(" (exit %d)", t.ExitCode)
	}
	count := fmt.Sprintf("[%d/%d]", p.finished, p.total)
	return fmt.Sprintf("%s %s%s%s%s%s: %s, %s, %.1fs", p.dim.Sprint(count), model, sep, t.Constrain, sep, name, verdict,
		textfmt.Count(t.Steps, "step"), t.Seconds)
}

// Stop erases the bar and stops redrawing it.
func (p *BenchProgress) Stop() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stopped {
		return
	}
	p.stopped = true
	p.eraseBar()
	close(p.stop)
}

// bar is the live line: a gauge, the count, the time so far and an
// estimate of the time left (the pace so far times what is left).
func (p *BenchProgress) bar(width int) string {
	elapsed := p.now().Sub(p.started)
	text := fmt.Sprintf(" %d/%d tasks, %s", p.finished, p.total, textfmt.Duration(elapsed))
	switch {
	case p.finished == 0:
		text += ", time left unknown"
	case p.finished < p.total:
		perTask := elapsed / time.Duration(p.finished)
		text += ", about " + textfmt.Duration(perTask*time.Duration(p.total-p.finished)) + " left"
	}
	gauge := max(10, min(30, width-uniseg.StringWidth(text)-2))
	full, empty := "#", "-"
	if p.unicode {
		full, empty = "█", "░"
	}
	n := 0
	if p.total > 0 {
		n = gauge * p.finished / p.total
	}
	return clipWidth("["+strings.Repeat(full, n)+strings.Repeat(empty, gauge-n)+"]"+text, width)
}

// drawBar draws the bar anew. Called with mu held.
func (p *BenchProgress) drawBar() {
	p.eraseBar()
	line := p.bar(p.widthOf() - 1) // never the last column: some terminals wrap there
	fmt.Fprint(p.w, line)
	p.drawn = max(uniseg.StringWidth(line), 1)
}

// eraseBar removes the bar, leaving the cursor at the start of its line.
// Called with mu held.
func (p *BenchProgress) eraseBar() {
	if p.drawn == 0 {
		return
	}
	if p.escapes {
		fmt.Fprint(p.w, "\r\x1b[K")
	} else {
		fmt.Fprint(p.w, "\r"+strings.Repeat(" ", p.drawn)+"\r")
	}
	p.drawn = 0
}
