package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"time"

	"github.com/devagent/dev/llm/llmtest"
)

// bench holds what every run needs.
type bench struct {
	sp  *spawner  // runs dev and measures it
	dev string    // the binary measured
	tmp string    // removed when the bench ends
	log io.Writer // progress
	// profile, when set, is the directory for profiles of the timed runs.
	profile    string
	memProfile bool   // profile allocations too
	keepStderr string // when set, the directory for dev's stderr of the timed runs
	// workspaces are the checkpoint workspaces made so far, by size.
	workspaces map[int]string
}

// scenario is one thing a user does with dev, scripted.
type scenario struct {
	name   string // for -only
	title  string // for the table
	target string // the targets for it, for the table
	// maxRuns caps the timed runs (a slow scenario), 0: no cap.
	maxRuns int
	// minWarmup is the least warm-up runs it needs.
	minWarmup int
	// prepare runs once before the runs (a big tree to list); what it
	// returns is handed to every setup.
	prepare func(b *bench) (any, error)
	// setup writes the project, scripts the server and returns dev's
	// arguments.
	setup func(w *world) ([]string, error)
	// check verifies that the work happened.
	check func(w *world, r *process) error
	// notes adds scenario-specific figures to the row, from the medians.
	notes func(runs []*process) string
	// direct, when set, measures in this process instead of running dev
	// (setup and check are unused): warmup untimed runs, then runs timed.
	direct func(b *bench, shared any, warmup, runs int) (row, error)
}

// world is one run's machine: a config home, a project and a mock server.
type world struct {
	home, dir string
	srv       *llmtest.Server
	shared    any            // what prepare returned
	slow      []bool         // slow[i]: reply i runs a COMMAND (not an instant tool)
	timeout   int            // commandTimeout in seconds
	config    map[string]any // more settings of config.json
	// sessionsBefore counts the sessions home held before the run.
	sessionsBefore int
	temp           []string
	env            []string // more environment for dev
}

// script queues the replies; slow marks those whose tools run a command.
func (w *world) script(steps ...step) {
	for _, s := range steps {
		w.srv.Script(s.resp)
		w.slow = append(w.slow, s.slow)
	}
}

type step struct {
	resp llmtest.Response
	slow bool
}

// process is one measured run of dev.
type process struct {
	code           int
	stdout, stderr string
	wall, cpu      time.Duration
	rss            int64 // bytes, 0 when the platform does not say
	floor          int64 // the spawner's peak RSS: rss cannot be lower
	firstRequest   time.Duration
	// exit is the time from the end of the last reply to the end of the
	// process.
	exit     time.Duration
	gaps     []time.Duration // after instant replies
	slowGaps []time.Duration // after replies that ran a command
	steps    []time.Duration // every gap, in order
	slowStep []bool          // slowStep[i]: steps[i] followed a command
	requests []llmtest.Request
	// devPerTask is dev bench's own time per task (the dev-bench
	// scenarios).
	devPerTask []time.Duration
}

func (b *bench) newWorld(sc scenario, shared any) (*world, error) {
	home, err := os.MkdirTemp(b.tmp, "home-")
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp(b.tmp, "project-")
	if err != nil {
		return nil, err
	}
	return &world{home: home, dir: dir, srv: llmtest.New("mock-model"), shared: shared, timeout: 30, temp: []string{home, dir}}, nil
}

func (w *world) close() {
	w.srv.Close()
	for _, d := range w.temp {
		os.RemoveAll(d)
	}
}

func (w *world) writeConfig() error {
	settings := map[string]any{
		"apiUrl":         w.srv.BaseURL(),
		"model":          "mock-model",
		"commandTimeout": w.timeout,
	}
	for k, v := range w.config {
		settings[k] = v
	}
	conf, err := json.MarshalIndent(settings, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(w.home, "config.json"), conf, 0o600)
}

// write creates a file of the project.
func (w *world) write(rel, content string) error {
	p := filepath.Join(w.dir, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return os.WriteFile(p, []byte(content), 0o644)
}

func (w *world) read(rel string) string { return w.readFile(filepath.Join(w.dir, rel)) }

func (w *world) readFile(path string) string {
	data, _ := os.ReadFile(path)
	return string(data)
}

// runMemoryLimit bounds this process's memory during a run.
const runMemoryLimit = 2 << 30

// once runs dev once in a fresh world; run names the timed run's
// profiles and kept stderr ("": a warm-up run).
func (b *bench) once(sc scenario, shared any, run string) (*process, error) {
	w, err := b.newWorld(sc, shared)
	if err != nil {
		return nil, err
	}
	defer w.close()
	args, err := sc.setup(w)
	if err != nil {
		return nil, fmt.Errorf("setting up: %w", err)
	}
	if err := w.writeConfig(); err != nil {
		return nil, err
	}
	env := append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + w.home, "DEV_AGENT_HOME=" + w.home, "LANG=C.UTF-8"}, w.env...)
	if b.profile != "" && run != "" {
		env = append(env, "DEV_CPUPROFILE="+filepath.Join(b.profile, run+".cpu.pprof"))
		if b.memProfile {
			env = append(env, "DEV_MEMPROFILE="+filepath.Join(b.profile, run+".allocs.pprof"))
		}
	}
	// The mock runs in this process, and it keeps every request: a garbage
	// collection of its heap while dev waits for it would show as dev's
	// time (p99 of the 300-step gaps 4.1 ms with it, 3.0 ms without). So
	// none runs during a run, unless memory passes runMemoryLimit.
	runtime.GC()
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(runMemoryLimit))
	res, err := b.sp.run(spawnRequest{
		Path: b.dev, Args: args, Dir: w.dir, Env: env,
		Stdout: filepath.Join(w.home, "bench-stdout"), Stderr: filepath.Join(w.home, "bench-stderr"),
		Timeout: 10 * time.Minute,
	})
	if err != nil {
		return nil, fmt.Errorf("running dev: %w", err)
	}
	p := &process{code: res.Code, wall: res.Wall, cpu: res.User + res.Sys, rss: res.RSS, floor: res.SpawnerRSS,
		stdout: w.readFile(filepath.Join(w.home, "bench-stdout")), stderr: w.readFile(filepath.Join(w.home, "bench-stderr"))}
	start := res.Start
	if b.keepStderr != "" && run != "" {
		if err := os.WriteFile(filepath.Join(b.keepStderr, run+".stderr"), []byte(p.stderr), 0o644); err != nil {
			return nil, err
		}
	}
	p.requests = w.srv.Requests()
	if len(p.requests) > 0 {
		p.firstRequest = p.requests[0].Arrived.Sub(start)
		p.exit = res.Wall - p.requests[len(p.requests)-1].Replied.Sub(start)
	}
	for i := 1; i < len(p.requests); i++ {
		gap := p.requests[i].Arrived.Sub(p.requests[i-1].Replied)
		p.steps = append(p.steps, gap)
		p.slowStep = append(p.slowStep, i-1 < len(w.slow) && w.slow[i-1])
		if i-1 < len(w.slow) && w.slow[i-1] {
			p.slowGaps = append(p.slowGaps, gap)
		} else {
			p.gaps = append(p.gaps, gap)
		}
	}
	if err := sc.check(w, p); err != nil {
		return nil, fmt.Errorf("the run did not do its work: %w\nexit %d\nstderr (end):\n%s", err, p.code, tail(p.stderr, 1500))
	}
	return p, nil
}

// row is a scenario's medians over its runs.
type row struct {
	title, target, notes string
	runs                 int
	wall, cpu            time.Duration
	rss, floor           int64
	firstRequest         time.Duration
	gap, gapMax          time.Duration
	hasRequests, hasGaps bool
	slowGap              time.Duration
	hasSlowGaps          bool
}

func (b *bench) measure(sc scenario, warmup, runs int) (row, error) {
	var shared any
	if sc.prepare != nil {
		fmt.Fprintf(b.log, "bench: %s: preparing\n", sc.name)
		var err error
		if shared, err = sc.prepare(b); err != nil {
			return row{}, fmt.Errorf("preparing: %w", err)
		}
	}
	warmup = max(warmup, sc.minWarmup)
	if sc.direct != nil {
		r, err := sc.direct(b, shared, warmup, runs)
		fmt.Fprintf(b.log, "bench: %s: %d runs\n", sc.name, r.runs)
		return r, err
	}
	var ps []*process
	for i := range warmup + runs {
		run := ""
		if i >= warmup {
			run = fmt.Sprintf("%s-%d", sc.name, i-warmup+1)
		}
		p, err := b.once(sc, shared, run)
		if err != nil {
			return row{}, err
		}
		if i >= warmup {
			ps = append(ps, p)
		}
	}
	fmt.Fprintf(b.log, "bench: %s: %d runs\n", sc.name, len(ps))
	r := row{title: sc.title, target: sc.target, runs: len(ps)}
	r.wall = median(ps, func(p *process) time.Duration { return p.wall })
	r.cpu = median(ps, func(p *process) time.Duration { return p.cpu })
	r.rss = int64(median(ps, func(p *process) time.Duration { return time.Duration(p.rss) }))
	for _, p := range ps {
		r.floor = max(r.floor, p.floor)
	}
	if len(ps[0].requests) > 0 {
		r.hasRequests = true
		r.firstRequest = median(ps, func(p *process) time.Duration { return p.firstRequest })
	}
	if len(ps[0].gaps) > 0 {
		r.hasGaps = true
		r.gap = median(ps, func(p *process) time.Duration { return medianOf(p.gaps) })
		r.gapMax = median(ps, func(p *process) time.Duration { return slices.Max(p.gaps) })
	}
	if len(ps[0].slowGaps) > 0 {
		r.hasSlowGaps = true
		r.slowGap = median(ps, func(p *process) time.Duration { return medianOf(p.slowGaps) })
	}
	if sc.notes != nil {
		r.notes = sc.notes(ps)
	}
	return r, nil
}

// median is the median over runs of f.
func median(ps []*process, f func(*process) time.Duration) time.Duration {
	ds := make([]time.Duration, len(ps))
	for i, p := range ps {
		ds[i] = f(p)
	}
	return medianOf(ds)
}

func medianOf(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}
