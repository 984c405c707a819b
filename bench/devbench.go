package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/devagent/dev/benchreport"
	"github.com/devagent/dev/llm/llmtest"
	"github.com/devagent/dev/modelbench/benchtest"
)

// modelDelay is how long the mock takes to answer each request of the dev
// bench scenarios, every request on its own: a server with enough slots.
const modelDelay = 200 * time.Millisecond

// devBenchScenario runs dev bench over the built-in suite with jobs tasks
// at once, against a mock that knows how to do every task and answers each
// request after modelDelay. Its notes give dev's own time per task: the
// task's wall time less its check's and less the time its requests spent
// at the mock (from arrival to the reply's last byte); and, for -j 4, the
// ratio of its wall time to the -j 1 scenario's.
// j1 holds the -j 1 scenario's median wall time, for -j 4's ratio.
func devBenchScenario(jobs int, j1 *time.Duration, target string) scenario {
	name := fmt.Sprintf("dev-bench-j%d", jobs)
	return scenario{
		name:   name,
		title:  fmt.Sprintf("`dev bench -j %d`, the built-in suite, replies after %s", jobs, ms(modelDelay)),
		target: target,
		setup: func(w *world) ([]string, error) {
			solve, err := benchtest.Solver(modelDelay)
			if err != nil {
				return nil, err
			}
			w.srv.Respond(solve)
			w.env = append(w.env, toolEnv()...)
			return []string{"bench", "-j", fmt.Sprint(jobs), "--out", filepath.Join(w.home, "report")}, nil
		},
		check: func(w *world, p *process) error {
			if p.code != 0 {
				return fmt.Errorf("exit %d", p.code)
			}
			r, err := benchreport.Read(filepath.Join(w.home, "report"))
			if err != nil {
				return err
			}
			if len(r.Tasks) < 12 || r.Models[0].Done != len(r.Tasks) {
				return fmt.Errorf("%d tasks, %d done", len(r.Tasks), r.Models[0].Done)
			}
			// The requests of several tasks interleave: the gap between two
			// is no step of dev's.
			p.gaps, p.slowGaps, p.steps, p.slowStep = nil, nil, nil, nil
			p.devPerTask, err = devTimePerTask(r, p.requests)
			return err
		},
		notes: func(ps []*process) string {
			wall := median(ps, func(p *process) time.Duration { return p.wall })
			own := median(ps, func(p *process) time.Duration { return medianOf(p.devPerTask) })
			most := median(ps, func(p *process) time.Duration { return slices.Max(p.devPerTask) })
			note := fmt.Sprintf("dev's own time per task (wall − check − server wait): median %s, max %s", ms(own), ms(most))
			if jobs > 1 && *j1 > 0 {
				note += fmt.Sprintf("; %.2f× the wall time of -j 1 (%s)", float64(wall)/float64(*j1), ms(*j1))
			}
			if jobs == 1 {
				*j1 = wall
			}
			return note
		},
	}
}

// devTimePerTask is, for each task of the report, its wall time less its
// check's and less the time its requests spent at the mock.
func devTimePerTask(r benchreport.Report, requests []llmtest.Request) ([]time.Duration, error) {
	waited := map[string]time.Duration{}
	for _, req := range requests {
		task, ok := benchtest.TaskOf(req)
		if !ok || req.Replied.IsZero() {
			return nil, fmt.Errorf("a request of no task, or never answered: %.300s", lastUser(req))
		}
		waited[task] += req.Replied.Sub(req.Arrived)
	}
	var out []time.Duration
	for _, t := range r.Tasks {
		seconds := t.Seconds - t.CheckSeconds
		out = append(out, time.Duration(seconds*float64(time.Second))-waited[t.Task])
	}
	return out, nil
}

// toolEnv gives the checks the toolchains' settings, which the bench's
// fresh HOME would hide: the warm Go build cache (a cold one rebuilds the
// standard library), no toolchain download, pyenv's root.
func toolEnv() []string {
	var env []string
	for _, name := range []string{"GOCACHE", "GOPATH", "GOMODCACHE", "PYENV_ROOT"} {
		v := os.Getenv(name)
		if v == "" && strings.HasPrefix(name, "GO") {
			if out, err := exec.Command("go", "env", name).Output(); err == nil {
				v = strings.TrimSpace(string(out))
			}
		}
		if v != "" {
			env = append(env, name+"="+v)
		}
	}
	return append(env, "GOTOOLCHAIN=local")
}
