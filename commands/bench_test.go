package commands

import (
	"bytes"
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/devagent/dev/ui"
)

// parseBench runs dev bench's flags through the command as dev does, and
// returns the options the run would get, or the error.
func parseBench(t *testing.T, cwd string, args ...string) (benchOptions, bool, error) {
	t.Helper()
	runs.Lock()
	defer runs.Unlock()
	d := &devCmd{streams: &ui.Streams{Out: &bytes.Buffer{}, Err: &bytes.Buffer{}}, getwd: func() (string, error) { return cwd, nil }}
	var got benchOptions
	ran := false
	cmd := d.newBenchCommand(func(o benchOptions) error { got, ran = o, true; return nil })
	a := &cli.App{Name: "dev", Commands: []*cli.Command{cmd}, Writer: &bytes.Buffer{}, ErrWriter: &bytes.Buffer{},
		ExitErrHandler: func(*cli.Context, error) {}}
	flagErrors("dev bench", cmd)
	err := a.Run(flagsFirst(append([]string{"dev", "bench"}, args...)))
	return got, ran, err
}

// The flags become checked options before anything runs.
func TestBenchOptions(t *testing.T) {
	t.Parallel()
	cwd := t.TempDir()
	o, ran, err := parseBench(t, cwd, "--model", "a,b", "--model", "c", "--profile", "p1", "--profile", "p2", "--constrain", "auto,off",
		"--runs", "3", "-j", "4", "--tasks", "suite", "--only", "x, y", "--shard", "1/4", "--out", "r", "--task-timeout", "90s", "--json")
	if err != nil || !ran {
		t.Fatalf("ran %v, err %v", ran, err)
	}
	want := benchOptions{models: []string{"a", "b", "c"}, profiles: []string{"p1", "p2"}, modes: []string{"auto", "off"}, runs: 3, jobs: 4,
		suite: filepath.Join(cwd, "suite"), only: []string{"x", "y"}, shard: 1, shards: 4, out: filepath.Join(cwd, "r"),
		taskTimeout: 90 * time.Second, json: true}
	if !reflect.DeepEqual(o, want) {
		t.Errorf("options:\n got %+v\nwant %+v", o, want)
	}

	o, _, err = parseBench(t, cwd)
	if err != nil {
		t.Fatal(err)
	}
	if o.runs != 1 || o.jobs != 0 || o.suite != "builtin" || o.taskTimeout != 10*time.Minute || o.shards != 0 || o.list || o.json ||
		!strings.HasPrefix(o.out, filepath.Join(cwd, "dev-bench-")) {
		t.Errorf("defaults: %+v", o)
	}
	if name := filepath.Base(o.out); len(name) != len("dev-bench-20060102-150405") {
		t.Errorf("default --out %s is not dev-bench-<date>-<time>", name)
	}
}

// Mistakes are usage errors, found before anything runs.
func TestBenchOptionErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--runs", "0"}, "--runs must be at least 1"},
		{[]string{"-j", "0"}, "-j must be at least 1"},
		{[]string{"--jobs", "-2"}, "-j must be at least 1"},
		{[]string{"--task-timeout", "0s"}, "--task-timeout must be positive"},
		{[]string{"--task-timeout", "soon"}, "invalid value"},
		{[]string{"--shard", "4/3"}, "the shard must be from 0 to 2 (or 3, the same as 0)"},
		{[]string{"--shard", "0/0"}, "the number of shards must be at least 1"},
		{[]string{"--shard", "-1/2"}, "the shard must be from 0 to 1 (or 2, the same as 0)"},
		{[]string{"--shard", "1"}, "want I/N"},
		{[]string{"--model", "a,,b"}, "--model has an empty value"},
		{[]string{"--constrain", ""}, "--constrain has an empty value"},
		{[]string{"--tasks", " "}, "--tasks needs builtin or a directory"},
		{[]string{"extra"}, `unexpected argument "extra"`},
		{[]string{"--nope"}, "unknown flag --nope"},
	} {
		_, ran, err := parseBench(t, t.TempDir(), tc.args...)
		var u *UsageError
		if !errors.As(err, &u) || !strings.Contains(u.Msg, tc.want) {
			t.Errorf("dev bench %q: %v, want a usage error saying %q", tc.args, err, tc.want)
		}
		if ran {
			t.Errorf("dev bench %q ran", tc.args)
		}
	}
}

// Several runs' flags are each a fresh list: a list flag's values do not
// carry over from one command line to the next.
func TestBenchListFlagsFresh(t *testing.T) {
	t.Parallel()
	cwd := t.TempDir()
	if _, _, err := parseBench(t, cwd, "--model", "a"); err != nil {
		t.Fatal(err)
	}
	o, _, err := parseBench(t, cwd, "--model", "b")
	if err != nil || !reflect.DeepEqual(o.models, []string{"b"}) {
		t.Errorf("models %v %v", o.models, err)
	}
	// urfave/cli sets a flag again under its alias (-m): no value twice.
	for _, args := range [][]string{{"-m", "x,y"}, {"--model", "x", "--model", "y"}} {
		o, _, err = parseBench(t, cwd, args...)
		if err != nil || !reflect.DeepEqual(o.models, []string{"x", "y"}) {
			t.Errorf("%q: models %v %v", args, o.models, err)
		}
	}
}

// The model's profile: a model one profile names runs with its settings.
func TestBenchModelProfile(t *testing.T) {
	h := newHome(t)
	h.config(map[string]any{"model": "top", "profiles": map[string]any{
		"small": map[string]any{"model": "smol", "thinking": "off"},
		"twin1": map[string]any{"model": "twin"}, "twin2": map[string]any{"model": "twin"},
	}})
	d := &devCmd{streams: &ui.Streams{Out: &bytes.Buffer{}, Err: &bytes.Buffer{}}, env: func(k string) string { return h.env[k] }}
	vs, err := d.benchVariants(benchOptions{models: []string{"smol", "twin", "other"}, modes: []string{"auto", "off"}, jobs: 2})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, v := range vs {
		got = append(got, v.Model+"/"+v.Profile+"/"+v.Constrain+"/"+v.Options.Config.Thinking)
		if v.Jobs != 2 || v.Options.ConfigDir != h.dir {
			t.Errorf("variant %+v", v)
		}
	}
	want := []string{"smol/small/auto/off", "smol/small/off/off", "twin//auto/auto", "twin//off/auto", "other//auto/auto", "other//off/auto"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("variants %v, want %v", got, want)
	}
	vs, err = d.benchVariants(benchOptions{profiles: []string{"small", "twin1"}, jobs: 1})
	if err != nil || len(vs) != 2 || vs[0].Model != "smol" || vs[1].Model != "twin" || vs[1].Profile != "twin1" {
		t.Errorf("--profile small --profile twin1: %+v %v", vs, err)
	}
}
