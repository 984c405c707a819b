package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/devagent/dev/textfmt"
)

// The checkpoint-run scenarios measure what checkpoints cost a whole run
// of dev (SPEC §12): the 10-step fix-a-bug task in a project that also
// holds many files, run with checkpoints on and off in turn (on, off,
// off, on, … so that a drift of the machine's load weighs on both), each
// figure the median of its runs. The project is made once and put back
// after each run (calc.go rewritten with its old time, CHANGELOG.md
// removed): making 100,000 files takes longer than the runs.

// checkpointRunScenario is the fix-a-bug task in a project of files more
// files of about 2 KB (0: the task's own 4 files).
func checkpointRunScenario(name string, files int, target string) scenario {
	title := fmt.Sprintf("fix-a-bug in %s files, checkpoints on / off", textfmt.Thousands(int64(files)))
	if files == 0 {
		title = "fix-a-bug, checkpoints on / off"
	}
	return scenario{
		name:   name,
		title:  title,
		target: target,
		prepare: func(b *bench) (any, error) {
			if files == 0 {
				return nil, nil
			}
			return b.workspace(files)
		},
		direct: func(b *bench, shared any, warmup, runs int) (row, error) {
			variant := func(on bool) scenario {
				sc := fixABugScenario()
				setup := sc.setup
				sc.setup = func(w *world) ([]string, error) {
					w.config = map[string]any{"checkpoints": on}
					if shared != nil {
						w.dir = shared.(string)
					}
					return setup(w)
				}
				check := sc.check
				sc.check = func(w *world, p *process) error {
					err := check(w, p)
					if shared != nil {
						err = errors.Join(err, resetFixABug(w))
					}
					return err
				}
				return sc
			}
			on, off := variant(true), variant(false)
			var ons, offs []*process
			for i := range warmup + runs {
				order := []bool{true, false}
				if i%2 == 1 {
					order = []bool{false, true}
				}
				for _, withCheckpoints := range order {
					sc := off
					if withCheckpoints {
						sc = on
					}
					run := ""
					if i >= warmup {
						run = fmt.Sprintf("%s-%d-%v", name, i-warmup+1, withCheckpoints)
					}
					p, err := b.once(sc, shared, run)
					if err != nil {
						return row{}, fmt.Errorf("checkpoints %v: %w", withCheckpoints, err)
					}
					if i < warmup {
						continue
					}
					if withCheckpoints {
						ons = append(ons, p)
					} else {
						offs = append(offs, p)
					}
				}
			}
			return checkpointRunRow(title, target, ons, offs), nil
		},
	}
}

// checkpointRunRow compares the runs with checkpoints on and off: the wall
// and CPU times (the median of each, and the median of the ratios of the
// runs made one after the other, which a drift of the machine's load
// weighs on less), what checkpoints add before the first request and to
// a step (the gap from a reply to the next request, step by step; and
// from the first command on, when the first checkpoint's files have been
// read), and peak RSS.
func checkpointRunRow(title, target string, ons, offs []*process) row {
	r := row{title: title, target: target, runs: len(ons), hasRequests: true}
	wall := func(p *process) time.Duration { return p.wall }
	cpu := func(p *process) time.Duration { return p.cpu }
	first := func(p *process) time.Duration { return p.firstRequest }
	rss := func(p *process) time.Duration { return time.Duration(p.rss) }
	r.wall, r.cpu = median(ons, wall), median(ons, cpu)
	r.rss, r.firstRequest = int64(median(ons, rss)), median(ons, first)
	for _, p := range append(slices.Clone(ons), offs...) {
		r.floor = max(r.floor, p.floor)
	}
	ratios := make([]float64, len(ons))
	for i := range ons {
		ratios[i] = float64(ons[i].wall) / float64(offs[i].wall)
	}
	slices.Sort(ratios)
	// Step i's gap, median over the runs, on minus off; the gaps of the
	// steps that ran a command are among them.
	steps := len(ons[0].steps)
	added := make([]time.Duration, steps)
	var sum, sumAfter time.Duration
	firstCommand := slices.Index(ons[0].slowStep, true)
	after := 0
	var maxAfter time.Duration
	for i := range steps {
		gap := func(p *process) time.Duration { return p.steps[i] }
		added[i] = median(ons, gap) - median(offs, gap)
		sum += added[i]
		if firstCommand >= 0 && i > firstCommand {
			sumAfter += added[i]
			maxAfter = max(maxAfter, added[i])
			after++
		}
	}
	r.notes = fmt.Sprintf("wall %s / %s (%.2f×; run by run %.2f×); CPU %s / %s; before the first request +%s; per step +%s on average, at most +%s",
		ms(median(ons, wall)), ms(median(offs, wall)), float64(median(ons, wall))/float64(median(offs, wall)), ratios[len(ratios)/2],
		ms(median(ons, cpu)), ms(median(offs, cpu)),
		ms(median(ons, first)-median(offs, first)), ms(sum/time.Duration(max(steps, 1))), ms(slices.Max(added)))
	if after > 0 {
		r.notes += fmt.Sprintf(" (after the first command, once the first checkpoint's files are stored: +%s on average, at most +%s)",
			ms(sumAfter/time.Duration(after)), ms(maxAfter))
	}
	exit := func(p *process) time.Duration { return p.exit }
	r.notes += fmt.Sprintf("; from the last reply to exit +%s; peak RSS %.1f / %.1f MB", ms(median(ons, exit)-median(offs, exit)),
		float64(median(ons, rss))/(1<<20), float64(median(offs, rss))/(1<<20))
	return r
}

// resetFixABug puts the shared project back as fix-a-bug found it; its
// setup writes the task's own files again.
func resetFixABug(w *world) error {
	err := os.Remove(filepath.Join(w.dir, "CHANGELOG.md"))
	if os.IsNotExist(err) {
		err = nil
	}
	return err
}
