// Package modelbench is dev bench's engine (SPEC §19): which model works
// with dev, measured on the user's own server with real tasks. It holds the
// built-in suite (embedded: each task a request, a tree and a check) and
// reads a user's suite; it runs each task as dev -p runs it, through app's
// Open and Run (the same path, not a second loop), unattended, in a fresh
// temporary copy of the task's tree, with its session stored under the
// report's directory, then runs the task's check in the finished tree. The
// tasks of one model run several at once; models and constrain modes one
// after another. The report (package benchreport) is written again as each
// task finishes, so that whatever stops the run leaves the report of what
// finished. It prints nothing: its caller hears of each task as it
// finishes.
//
// Not to be confused with package bench (go run ./bench), which measures
// dev's own speed and memory against a scripted mock server.
package modelbench

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/devagent/dev/app"
	"github.com/devagent/dev/benchreport"
	"github.com/devagent/dev/event"
)

// Variant is one model in one constrain mode: its tasks run together, and
// make one row of the report.
type Variant struct {
	// Model, Profile and Constrain name the row, as the settings resolved
	// them.
	Model, Profile, Constrain string
	// Jobs is how many of its tasks run at once (at least 1).
	Jobs int
	// Options are the settings a run opens with, as dev -p would open it
	// (Config, ConfigDir, Version, NoAudit). Each task sets its directory,
	// request, sessions directory and sink.
	Options app.Options
}

// Options say what to run.
type Options struct {
	Tasks    []Task
	Variants []Variant
	Runs     int // each task's runs, at least 1
	// TaskTimeout limits each task's run, and its check again.
	TaskTimeout time.Duration
	// Out is the report's directory: report.json, report.md, sessions/.
	Out string
	// Report is the report's header: version, start, suite, shard.
	Report benchreport.Report
	// Finished, when set, hears of each task that finished, in the order
	// they finish, one at a time: the task, and how many of all have
	// finished.
	Finished func(t benchreport.Task, finished, total int)
}

// ErrServer: a task's run ended in a server or runtime failure (dev -p's
// exit 1: unreachable, authentication, unknown model, retries exhausted).
// The run stops there: the server cannot do the rest either.
var ErrServer = errors.New("the server failed")

// Bench is one run of dev bench.
type Bench struct {
	o Options

	telling  sync.Mutex // one Finished at a time, in order
	mu       sync.Mutex // guards what follows
	report   benchreport.Report
	rows     []benchreport.Key         // the variants' rows, in order
	spans    map[benchreport.Key]*span // each row's wall time
	finished int
	open     map[*app.App]bool // the runs open now, for Kill
}

// span is when a row's first task started and its last one ended.
type span struct{ start, end time.Time }

// New prepares a run.
func New(o Options) *Bench {
	o.Runs = max(o.Runs, 1)
	b := &Bench{o: o, report: o.Report, spans: map[benchreport.Key]*span{}, open: map[*app.App]bool{}}
	b.report.Models, b.report.Tasks = []benchreport.Model{}, []benchreport.Task{}
	for _, v := range o.Variants {
		b.rows = append(b.rows, v.key())
	}
	return b
}

func (v Variant) key() benchreport.Key {
	return benchreport.Key{Model: v.Model, Profile: v.Profile, Constrain: v.Constrain}
}

// Run runs every task of every variant and returns the report of what
// finished. ctx ending (Ctrl+C) stops the run: the tasks under way are
// left out, and the error is ctx's. A task whose run ends in a server
// failure stops the run too (ErrServer, with what dev said). The report
// is in Out either way.
func (b *Bench) Run(ctx context.Context) (benchreport.Report, error) {
	if err := os.MkdirAll(b.o.Out, 0o755); err != nil {
		return b.report, fmt.Errorf("creating the report's directory: %w", err)
	}
	var err error
	for _, v := range b.o.Variants {
		if err = b.runVariant(ctx, v); err != nil {
			break
		}
	}
	if ctx.Err() != nil {
		err = ctx.Err()
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.report.Interrupted = err != nil
	if werr := b.write(); werr != nil && err == nil {
		err = werr
	}
	return b.report, err
}

// runVariant runs the tasks of one variant, Jobs at a time, the whole
// suite once per run.
func (b *Bench) runVariant(ctx context.Context, v Variant) error {
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(max(v.Jobs, 1))
	for run := 1; run <= b.o.Runs; run++ {
		for _, t := range b.o.Tasks {
			if gctx.Err() != nil {
				break
			}
			g.Go(func() error { return b.runTask(gctx, v, t, run) })
		}
	}
	err := g.Wait()
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}

// runTask runs one task once: a fresh copy of its tree, the run as dev -p
// does it within the time limit, then the check. A task that ctx stopped
// is not recorded.
func (b *Bench) runTask(ctx context.Context, v Variant, t Task, run int) error {
	start := time.Now()
	root, err := os.MkdirTemp("", "dev-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(root)
	// The real path: a session's directory, and what the model sees, is
	// never reached through a link (macOS's /var).
	if real, err := filepath.EvalSymlinks(root); err == nil {
		root = real
	}
	dir := filepath.Join(root, workspaceDir)
	if err := os.Mkdir(dir, 0o755); err != nil {
		return err
	}
	if err := t.Prepare(dir); err != nil {
		return err
	}

	out, code, ok, err := b.work(ctx, v, t, dir)
	if err != nil || !ok {
		return err
	}
	row := out.row
	row.Model, row.Profile, row.Constrain, row.Task, row.Run = v.Model, v.Profile, v.Constrain, t.Name, run
	if !row.TimedOut {
		answer := ""
		if code == app.ExitOK {
			answer = out.answer
		}
		res, err := t.Check(ctx, dir, answer, b.o.TaskTimeout)
		if err != nil {
			return nil // stopped during the check: not finished
		}
		row.Done, row.CheckSeconds = res.Passed, benchreport.Seconds(res.Elapsed)
		if !res.Passed {
			row.Check = res.Output
		}
	}
	row.Seconds = benchreport.Seconds(time.Since(start))
	if err := b.record(v, row, start); err != nil {
		return err
	}
	if code == app.ExitFailure {
		return fmt.Errorf("%w: %s", ErrServer, row.Error)
	}
	return nil
}

// worked is what a run left for the report and the check.
type worked struct {
	row    benchreport.Task
	answer string // the DONE summary
}

// work runs the task's request in dir as dev -p would: ok is false when
// ctx stopped it. err is a run that could not open (the settings).
func (b *Bench) work(ctx context.Context, v Variant, t Task, dir string) (out worked, code int, ok bool, err error) {
	sink := &collector{}
	opts := v.Options
	opts.Dir, opts.DirGiven, opts.SessionsDir, opts.NoPrune = dir, true, b.o.Out, true
	opts.Automated, opts.Prompt, opts.Resume, opts.SessionID = true, t.Prompt, false, ""
	opts.Sink, opts.Live, opts.Ask, opts.Reload = sink, false, nil, nil
	a, err := app.Open(opts)
	if err != nil {
		return out, 0, false, fmt.Errorf("task %s: %w", t.Name, err)
	}
	b.track(a, true)
	defer func() {
		a.Close()
		b.track(a, false)
	}()
	request, err := a.Request(t.Prompt)
	if err != nil {
		return out, 0, false, fmt.Errorf("task %s: %w", t.Name, err)
	}
	runCtx, cancel := context.WithTimeout(ctx, b.o.TaskTimeout)
	res := a.Run(runCtx, request)
	timedOut := errors.Is(runCtx.Err(), context.DeadlineExceeded) && ctx.Err() == nil
	cancel()
	if ctx.Err() != nil {
		return out, 0, false, nil
	}
	sess := a.Session()
	out.row = benchreport.Task{ExitCode: res.Code, Steps: res.Loops, Session: sess.ID, TimedOut: timedOut, Error: sink.failure()}
	if timedOut {
		out.row.Error = fmt.Sprintf("stopped at the time limit of %s (--task-timeout)", b.o.TaskTimeout)
	}
	out.row.Account(sess.Requests)
	out.answer = res.Summary
	return out, res.Code, true, nil
}

// record adds a finished task to the report, writes the report again and
// tells the caller, in the order the tasks finish.
func (b *Bench) record(v Variant, row benchreport.Task, start time.Time) error {
	b.telling.Lock() // Finished may block on a terminal; Kill must not wait for it
	defer b.telling.Unlock()
	b.mu.Lock()
	k := v.key()
	s := b.spans[k]
	if s == nil {
		s = &span{start: start}
		b.spans[k] = s
	}
	if start.Before(s.start) {
		s.start = start
	}
	if now := time.Now(); now.After(s.end) {
		s.end = now
	}
	b.report.Tasks = append(b.report.Tasks, row)
	b.finished++
	finished := b.finished
	err := b.write()
	b.mu.Unlock()
	if err != nil {
		return err
	}
	if b.o.Finished != nil {
		b.o.Finished(row, finished, len(b.o.Variants)*len(b.o.Tasks)*b.o.Runs)
	}
	return nil
}

// write puts the tasks in order, sums up the rows and writes the report.
// Called with mu held.
func (b *Bench) write() error {
	benchreport.Sort(b.report.Tasks, b.rows)
	b.report.Models = benchreport.Summarize(b.report.Tasks, func(k benchreport.Key) float64 {
		if s := b.spans[k]; s != nil {
			return s.end.Sub(s.start).Seconds()
		}
		return 0
	})
	return benchreport.Write(b.o.Out, b.report)
}

// track keeps the runs open now, for Kill.
func (b *Bench) track(a *app.App, open bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if open {
		b.open[a] = true
	} else {
		delete(b.open, a)
	}
}

// Kill stops every process the open runs started, at once, from any
// goroutine: for a dev that must exit now (a second Ctrl+C).
func (b *Bench) Kill() {
	b.mu.Lock()
	defer b.mu.Unlock()
	for a := range b.open {
		a.Kill()
	}
}

// collector keeps what a run said went wrong.
type collector struct {
	mu   sync.Mutex
	last string
}

func (c *collector) Emit(e event.Event) {
	if f, ok := e.(event.Failure); ok {
		c.mu.Lock()
		c.last = f.Message
		c.mu.Unlock()
	}
}

func (c *collector) failure() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.last
}
