package checkpoints

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"time"

	"github.com/devagent/dev/ignore"
)

// Survey is what a first snapshot of a directory would hold, found by
// walking it as a snapshot does without reading or storing anything: the
// figure dev doctor gives of what checkpoints cost there.
type Survey struct {
	Files, Dirs int
	Bytes       int64
	Oversize    int // files over the size cap, left out
	// Took is the walk's time: about what the first checkpoint of a
	// session costs before the first request (the files' content is read
	// after, in the background), and what a checkpoint that reads every
	// directory costs (before each request; after a command where the
	// directories are not watched).
	Took time.Duration
	// Partial: ctx ended before the walk did; the figures are a floor.
	Partial bool
	// WatchLimit is the most directories the system lets a process watch
	// (inotify's max_user_watches), 0 where dev cannot watch them;
	// WatchWhy says why not.
	WatchLimit int
	WatchWhy   string
}

// SurveyDir walks workDir as a snapshot with opts would (their caps
// aside). It writes nothing.
func SurveyDir(ctx context.Context, workDir string, opts Options) (Survey, error) {
	opts.Lazy, opts.Watch, opts.MaxFiles, opts.MaxTotalBytes = true, false, math.MaxInt, math.MaxInt64
	s, err := Open(filepath.Join(os.TempDir(), "dev-survey-stores-nothing"), workDir, opts)
	if err != nil {
		return Survey{}, err
	}
	var sv Survey
	sv.WatchLimit, sv.WatchWhy = watchLimit()
	fsys, start, rules := ignore.Open(s.workDir)
	sc := &scanner{s: s, ign: &ignoreBase{fsys: fsys, start: start, comps: ignore.Components(start), rules: rules},
		old: index{}, when: s.now(), lazy: true, dry: true}
	begin := time.Now()
	root := &dirNode{}
	err = sc.walk(ctx, root, s.workDir, rules, nil)
	sv.Took = time.Since(begin)
	if err != nil && ctx.Err() == nil {
		return sv, err
	}
	sv.Partial = ctx.Err() != nil
	var count func(n *dirNode)
	count = func(n *dirNode) {
		sv.Dirs++
		sv.Oversize += len(n.oversize)
		for i, e := range n.entries {
			if c := n.children[i]; c != nil {
				count(c)
				continue
			}
			sv.Files++
			sv.Bytes += e.size
		}
	}
	count(root)
	return sv, nil
}
