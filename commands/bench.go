package commands

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/devagent/dev/app"
	"github.com/devagent/dev/benchreport"
	"github.com/devagent/dev/config"
	"github.com/devagent/dev/llm"
	"github.com/devagent/dev/modelbench"
	"github.com/devagent/dev/textfmt"
	"github.com/devagent/dev/ui"
)

// builtinSuite is --tasks's value for the built-in suite.
const builtinSuite = "builtin"

// defaultTaskTimeout is --task-timeout's default.
const defaultTaskTimeout = 10 * time.Minute

// benchOptions are dev bench's flags, read and checked before any work.
type benchOptions struct {
	models, profiles []string
	modes            []string // --constrain, each checked by config's validation
	runs             int
	jobs             int    // 0: the server's slots, else 1
	suite            string // builtinSuite, or a directory
	only             []string
	shard, shards    int // --shard I/N; shards 0 when not given
	out              string
	taskTimeout      time.Duration
	json, list       bool
}

// benchCommand is dev bench and dev bench report.
func (d *devCmd) benchCommand() *cli.Command {
	return d.newBenchCommand(d.runBench)
}

// newBenchCommand builds dev bench around run, which gets the options once
// they are checked (tests pass their own).
func (d *devCmd) newBenchCommand(run func(benchOptions) error) *cli.Command {
	return &cli.Command{
		Name:  "bench",
		Usage: "which model works with dev: a suite of tasks on your server",
		UsageText: `dev bench [--model M]... [--profile P]... [--constrain MODE,...]
          [--runs N] [-j N] [--tasks builtin|DIR] [--only NAME,...]
          [--shard I/N] [--out DIR] [--task-timeout D] [--json]
dev bench --list          the suite's tasks
dev bench report DIR...   merge the reports of several runs or shards`,
		Description: "Each task runs as dev -p runs it, unattended, in a fresh copy of its\n" +
			"tree; then its check says whether it was done. The report (report.md,\n" +
			"report.json, the sessions) goes to --out.\n\n" +
			"EXIT CODES: 0 the run finished, whatever the scores; 1 the server\n" +
			"failed; 2 usage; 130 interrupted (the report keeps what finished).",
		Flags: []cli.Flag{
			&cli.GenericFlag{Name: "model", Aliases: []string{"m"}, Value: &listFlag{}, Usage: "measure `MODEL`; repeat, or a comma list,\n\tfor several (default: the config's)"},
			&cli.GenericFlag{Name: "profile", Value: &listFlag{}, Usage: "measure the profile `NAME` with its settings;\n\trepeat for several"},
			&cli.GenericFlag{Name: "constrain", Value: &listFlag{}, Usage: "`MODES` auto, on, json or off; a comma list\n\t(auto,off) measures each"},
			&cli.IntFlag{Name: "runs", Value: 1, Usage: "run each task `N` times"},
			&cli.IntFlag{Name: "jobs", Aliases: []string{"j"}, DefaultText: "the\n\tserver's slots, else 1", Usage: "run `N` tasks of a model at once"},
			&cli.StringFlag{Name: "tasks", Value: builtinSuite, Usage: "the suite: builtin, or a `DIR` of tasks\n\t(task.md, workspace/, check)"},
			&cli.GenericFlag{Name: "only", Value: &listFlag{}, Usage: "run only the tasks `NAMES` (a comma list)"},
			&cli.StringFlag{Name: "shard", Usage: "run shard `I/N`: the tasks at positions I,\n\tI+N, … of the suite, from 0 (N/N is 0/N)"},
			&cli.StringFlag{Name: "out", DefaultText: "./dev-bench-<date>-<time>", Usage: "write the report and the sessions to\n\t`DIR`"},
			&cli.DurationFlag{Name: "task-timeout", Value: defaultTaskTimeout, Usage: "stop a task's run after `DURATION`"},
			&cli.BoolFlag{Name: "json", Usage: "print a JSON object per finished task,\n\tthe summary last"},
			&cli.BoolFlag{Name: "list", Usage: "list the suite's tasks and exit"},
		},
		Action: func(c *cli.Context) error {
			o, err := d.benchOptionsOf(c, time.Now())
			if err != nil {
				return err
			}
			return run(o)
		},
		Subcommands: []*cli.Command{{
			Name:      "report",
			Usage:     "merge the reports of several runs or shards",
			ArgsUsage: "DIR...",
			Flags: []cli.Flag{
				&cli.StringFlag{Name: "out", Usage: "also write the merged report.json and report.md to `DIR`"},
				&cli.BoolFlag{Name: "json", Usage: "print the merged report.json instead of the tables"},
			},
			Action: d.benchReport,
		}},
	}
}

// benchOptionsOf reads and checks dev bench's flags; now names the
// default report directory.
func (d *devCmd) benchOptionsOf(c *cli.Context, now time.Time) (benchOptions, error) {
	o := benchOptions{
		models: listOf(c, "model"), profiles: listOf(c, "profile"), modes: listOf(c, "constrain"),
		runs: c.Int("runs"), jobs: c.Int("jobs"), suite: c.String("tasks"), only: listOf(c, "only"),
		out: c.String("out"), taskTimeout: c.Duration("task-timeout"), json: c.Bool("json"), list: c.Bool("list"),
	}
	if c.NArg() > 0 {
		return o, usagef("dev bench: unexpected argument %q (its command is report: dev bench report DIR...)", c.Args().First())
	}
	for flag, list := range map[string][]string{"--model": o.models, "--profile": o.profiles, "--constrain": o.modes, "--only": o.only} {
		for i, v := range list {
			if list[i] = strings.TrimSpace(v); list[i] == "" {
				return o, usagef("dev bench: %s has an empty value", flag)
			}
		}
	}
	if o.runs < 1 {
		return o, usagef("dev bench: --runs must be at least 1, got %d", o.runs)
	}
	if c.IsSet("jobs") && o.jobs < 1 {
		return o, usagef("dev bench: -j must be at least 1, got %d", o.jobs)
	}
	if o.taskTimeout <= 0 {
		return o, usagef("dev bench: --task-timeout must be positive, got %s", o.taskTimeout)
	}
	if strings.TrimSpace(o.suite) == "" {
		return o, usagef("dev bench: --tasks needs builtin or a directory")
	}
	if s := c.String("shard"); s != "" {
		var err error
		if o.shard, o.shards, err = parseShard(s); err != nil {
			return o, usagef("dev bench: --shard %s: %v", s, err)
		}
	}
	if o.out == "" {
		o.out = "dev-bench-" + now.Format("20060102-150405")
	}
	// Paths are the current directory's: the one dev was started in.
	cwd, err := d.getwd()
	if err != nil {
		return o, fmt.Errorf("reading the current directory: %w", err)
	}
	if !filepath.IsAbs(o.out) {
		o.out = filepath.Join(cwd, o.out)
	}
	if o.suite != builtinSuite && !filepath.IsAbs(o.suite) {
		o.suite = filepath.Join(cwd, o.suite)
	}
	return o, nil
}

// listFlag is a flag given several times, or as a comma list: its values
// in order. (urfave/cli's StringSliceFlag does the same but spells each
// flag twice in the help, which then does not fit 80 columns.)
type listFlag struct{ values []string }

func (l *listFlag) Set(s string) error {
	// urfave/cli copies a flag given by one of its names to the others
	// (--model to -m) by setting them again with String(): that copy adds
	// nothing. (A list given twice whole, --model a --model a, is kept
	// once: one model measured twice is --runs.)
	if len(l.values) > 0 && s == l.String() {
		return nil
	}
	l.values = append(l.values, strings.Split(s, ",")...)
	return nil
}

func (l *listFlag) String() string { return strings.Join(l.values, ",") }

// listOf is the values of the list flag name.
func listOf(c *cli.Context, name string) []string {
	if l, ok := c.Generic(name).(*listFlag); ok {
		return l.values
	}
	return nil
}

// parseShard reads I/N: shard I (from 0) of N. N/N is shard 0/N: a job
// runner that numbers its jobs from 1 (a CI matrix of 1..N) and one that
// numbers them from 0 (Kubernetes' JOB_COMPLETION_INDEX) both cover every
// task once.
func parseShard(s string) (i, n int, err error) {
	is, ns, ok := strings.Cut(s, "/")
	i, errI := strconv.Atoi(strings.TrimSpace(is))
	n, errN := strconv.Atoi(strings.TrimSpace(ns))
	switch {
	case !ok || errI != nil || errN != nil:
		return 0, 0, errors.New("want I/N, e.g. 0/4: shard I of N, counted from 0 (N/N is 0/N)")
	case n < 1:
		return 0, 0, errors.New("the number of shards must be at least 1")
	case i < 0 || i > n:
		return 0, 0, fmt.Errorf("the shard must be from 0 to %d (or %d, the same as 0)", n-1, n)
	}
	return i % n, n, nil
}

// runBench is dev bench: the suite, the models and modes, the run, the
// report.
func (d *devCmd) runBench(o benchOptions) error {
	tasks, err := benchTasks(o)
	if err != nil {
		return err
	}
	if o.list {
		return d.benchList(o, tasks)
	}
	variants, err := d.benchVariants(o)
	if err != nil {
		return err
	}
	if st, err := os.Stat(o.out); err == nil && !st.IsDir() {
		return usagef("dev bench: --out %s is a file, not a directory", o.out)
	}
	if _, err := os.Stat(filepath.Join(o.out, benchreport.JSONFile)); err == nil {
		return usagef("dev bench: %s already holds a report; give another --out", o.out)
	}
	header := benchreport.Report{Version: d.version, Started: time.Now().UTC(), Suite: o.suite}
	if o.shards > 0 {
		header.Shard = fmt.Sprintf("%d/%d", o.shard, o.shards)
	}
	d.benchPlan(o, tasks, variants)

	progress := ui.NewBenchProgress(d.streams, len(tasks)*o.runs*len(variants))
	var events *ui.BenchEvents
	if o.json {
		events = ui.NewBenchEvents(d.streams.Out)
	}
	b := modelbench.New(modelbench.Options{
		Tasks: tasks, Variants: variants, Runs: o.runs, TaskTimeout: o.taskTimeout, Out: o.out, Report: header,
		Finished: func(t benchreport.Task, finished, total int) {
			progress.Finished(t, finished, total)
			if events != nil {
				_ = events.Task(t) // a closed stdout ends dev (interrupt)
			}
		},
	})
	d.intr.OnForce(b.Kill)
	ctx, done := d.intr.Work(context.Background())
	report, runErr := b.Run(ctx)
	done()
	progress.Stop()

	if events != nil {
		if err := events.Summary(report); err != nil && runErr == nil {
			runErr = err
		}
	} else if len(report.Tasks) > 0 {
		if err := ui.BenchReport(d.streams.Out, report, d.streams.OutFit()); err != nil && runErr == nil {
			runErr = err
		}
	}
	where := filepath.Join(o.out, benchreport.MarkdownFile)
	switch {
	case errors.Is(runErr, context.Canceled):
		fmt.Fprintf(d.streams.Err, "dev bench: interrupted; the report of the %s that finished: %s\n", textfmt.Count(len(report.Tasks), "task"), where)
		return &ShownError{context.Canceled}
	case runErr != nil:
		return fmt.Errorf("dev bench stopped: %w (the report of what finished: %s)", runErr, where)
	}
	fmt.Fprintf(d.streams.Err, "dev bench: the report: %s\n", where)
	return nil
}

// benchTasks is the suite's tasks to run: --tasks, --only, --shard.
func benchTasks(o benchOptions) ([]modelbench.Task, error) {
	var tasks []modelbench.Task
	var err error
	if o.suite == builtinSuite {
		tasks, err = modelbench.Builtin()
	} else {
		tasks, err = modelbench.Load(o.suite)
	}
	if err != nil {
		return nil, usagef("dev bench: %v", err)
	}
	if tasks, err = modelbench.Select(tasks, o.only); err != nil {
		return nil, usagef("dev bench: %v", err)
	}
	if o.shards > 0 {
		tasks = modelbench.Shard(tasks, o.shard, o.shards)
	}
	return tasks, nil
}

// benchList prints --list.
func (d *devCmd) benchList(o benchOptions, tasks []modelbench.Task) error {
	var list []ui.SuiteTask
	for _, t := range tasks {
		list = append(list, ui.SuiteTask{Name: t.Name, Kind: t.Kind, Language: t.Language, Request: t.Prompt})
	}
	if o.json {
		return ui.BenchListJSON(d.streams.Out, list)
	}
	return ui.BenchList(d.streams.Out, list, d.streams.OutFit())
}

// benchVariants are the models and modes to measure, in order, each with
// the settings a dev -p run of it would have: for each --profile (or the
// active one), each --model (or the profile's; a model that one profile
// names runs with that profile's settings), each --constrain mode (or the
// setting's). -j, or the server's slots, says how many tasks run at once.
func (d *devCmd) benchVariants(o benchOptions) ([]modelbench.Variant, error) {
	dir, base, err := d.loadConfig(config.Flags{})
	if err != nil {
		return nil, err
	}
	profiles, models, modes := orNone(o.profiles), orNone(o.models), orNone(o.modes)
	var variants []modelbench.Variant
	for _, named := range profiles {
		for _, model := range models {
			profile := named
			if profile == "" && model != "" {
				profile = modelProfile(base, model)
			}
			for _, mode := range modes {
				cfg, _, err := config.Load(dir, config.Env(d.env), config.Flags{Profile: profile, Model: model, Constrain: mode})
				if err != nil {
					return nil, err
				}
				variants = append(variants, modelbench.Variant{Model: cfg.Model, Profile: cfg.Profile, Constrain: cfg.Constrain,
					Jobs: o.jobs, Options: app.Options{Config: cfg, ConfigDir: dir, Version: d.version}})
			}
		}
	}
	if o.jobs == 0 {
		for i, v := range variants {
			variants[i].Jobs = serverSlots(v.Options.Config)
		}
	}
	return variants, nil
}

// orNone is list, or one empty value: the setting's.
func orNone(list []string) []string {
	if len(list) == 0 {
		return []string{""}
	}
	return list
}

// modelProfile is the profile of the config that names model, when
// exactly one does: that model's settings (thinking, maxTokens, its
// server). "" otherwise: the active profile, or the top level.
func modelProfile(cfg config.Config, model string) string {
	found := ""
	for name, p := range cfg.Profiles {
		if p.Model != nil && *p.Model == model {
			if found != "" {
				return ""
			}
			found = name
		}
	}
	return found
}

// serverSlots is how many requests the server of cfg serves at once, as
// it says (llama.cpp's /props total_slots); 1 when it does not say.
func serverSlots(cfg config.Config) int {
	client := llm.New(llm.Config{BaseURL: cfg.APIURL, APIKey: cfg.APIKey, IdleTimeout: time.Duration(cfg.RequestTimeout) * time.Second})
	return max(client.Discover(context.Background(), cfg.Model).Slots, 1)
}

// benchPlan says on stderr what will run.
func (d *devCmd) benchPlan(o benchOptions, tasks []modelbench.Task, variants []modelbench.Variant) {
	runs := ""
	if o.runs > 1 {
		runs = fmt.Sprintf(", %d runs each", o.runs)
	}
	fmt.Fprintf(d.streams.Err, "dev bench: %s%s; the report in %s\n", textfmt.Count(len(tasks), "task"), runs, o.out)
	for _, v := range variants {
		name := v.Model
		if v.Profile != "" {
			name += " (profile " + v.Profile + ")"
		}
		fmt.Fprintf(d.streams.Err, "  %s, constrain %s: %d at once\n", name, v.Constrain, v.Jobs)
	}
}

// benchReport is dev bench report DIR...: the reports merged, as tables
// or JSON, and written to --out when given.
func (d *devCmd) benchReport(c *cli.Context) error {
	if c.NArg() == 0 {
		return usagef("dev bench report: give the directories of the reports to merge (each holds a %s)", benchreport.JSONFile)
	}
	var reports []benchreport.Report
	for _, dir := range c.Args().Slice() {
		r, err := benchreport.Read(dir)
		if err != nil {
			return usagef("dev bench report: %v", err)
		}
		reports = append(reports, r)
	}
	merged := benchreport.Merge(reports)
	if out := c.String("out"); out != "" {
		if err := os.MkdirAll(out, 0o755); err != nil {
			return err
		}
		if err := benchreport.Write(out, merged); err != nil {
			return err
		}
		fmt.Fprintf(d.streams.Err, "dev bench report: the merged report: %s\n", filepath.Join(out, benchreport.MarkdownFile))
	}
	if c.Bool("json") {
		return ui.BenchReportJSON(d.streams.Out, merged)
	}
	return ui.BenchReport(d.streams.Out, merged, d.streams.OutFit())
}
