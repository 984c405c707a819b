package app

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"github.com/devagent/dev/bgproc"
	"github.com/devagent/dev/checkpoints"
	"github.com/devagent/dev/config"
	"github.com/devagent/dev/event"
	"github.com/devagent/dev/llm"
	"github.com/devagent/dev/mention"
	"github.com/devagent/dev/parser"
	"github.com/devagent/dev/sessions"
	"github.com/devagent/dev/textfmt"
	"github.com/devagent/dev/tools"
	"github.com/devagent/dev/transcript"
)

// Timeline is a session's checkpoints (SPEC §12): snapshots of the working
// directory taken as the work goes, listed, compared and rewound. The
// session's list of checkpoints is its Checkpoints field; the snapshots
// live in its directory.
type Timeline struct {
	cps   *checkpoints.Store
	sess  *sessions.Session
	store *sessions.Store
	// open opens another session's timeline, to name what it changed.
	open func(*sessions.Session) (*Timeline, error)
	now  func() time.Time
}

// openTimeline opens the checkpoints of sess. It fails when checkpoints
// cannot work here (a directory too big, one that cannot be written). A
// run's timeline watches the working directory and reads the project in
// the background after its first checkpoint; a command's (dev diff, dev
// rewind) does neither.
func openTimeline(store *sessions.Store, sess *sessions.Session, cfg config.Config, configDir string, run bool, now func() time.Time) (*Timeline, error) {
	cps, err := checkpoints.Open(filepath.Join(store.Dir(sess.ID), "checkpoints"), sess.WorkingDirectory,
		checkpoints.Options{MaxFileBytes: cfg.CheckpointMaxFileBytes, Exclude: []string{configDir}, Lazy: run, Watch: run, Now: now})
	if err != nil {
		return nil, err
	}
	if now == nil {
		now = time.Now
	}
	return &Timeline{cps: cps, sess: sess, store: store, now: now, open: func(other *sessions.Session) (*Timeline, error) {
		return openTimeline(store, other, cfg, configDir, false, nil)
	}}, nil
}

// Close stops what the timeline runs (the watcher, the background
// reading) and keeps its cache.
func (t *Timeline) Close() error { return t.cps.Close() }

// OpenTimeline opens the checkpoints of a session for the commands that
// read or rewind them without running anything (dev checkpoints, diff,
// rewind). A rewind needs the session's lock: lock takes it, and release
// gives it back.
func OpenTimeline(cfg config.Config, configDir string, sess *sessions.Session, lock bool) (t *Timeline, release func(), err error) {
	store := sessions.Open(configDir, nil)
	release = func() {}
	if lock {
		if release, err = store.Lock(sess.ID); err != nil {
			return nil, nil, fmt.Errorf("session %s: %w", sess.ID, err)
		}
	}
	t, err = openTimeline(store, sess, cfg, configDir, false, nil)
	if err != nil {
		release()
		return nil, nil, err
	}
	unlock := release
	return t, func() { t.Close(); unlock() }, nil
}

// take records a checkpoint when it is new; it returns what changed
// since the last one.
func (t *Timeline) take(ctx context.Context, m checkpoints.Meta) ([]checkpoints.Change, error) {
	taken, err := t.cps.Take(ctx, t.sess.Checkpoints, m, t.sess.CheckpointState)
	if err != nil {
		return nil, err
	}
	if taken.New {
		t.sess.Checkpoints = append(t.sess.Checkpoints, taken.Checkpoint)
	}
	return taken.Changes, nil
}

// List is every checkpoint of the session, oldest first.
func (t *Timeline) List(ctx context.Context) ([]checkpoints.Entry, error) {
	out := make([]checkpoints.Entry, len(t.sess.Checkpoints))
	var prev checkpoints.ID
	for i, c := range t.sess.Checkpoints {
		changes, err := t.cps.Changes(ctx, prev, c.Tree)
		if err != nil {
			return nil, err
		}
		out[i], prev = checkpoints.Entry{Checkpoint: c, Changes: changes}, c.Tree
	}
	return out, nil
}

// Diff compares checkpoint from (nil: the first) with checkpoint to (nil:
// the working directory as it is now).
func (t *Timeline) Diff(ctx context.Context, from, to *int) ([]checkpoints.FileDiff, error) {
	if len(t.sess.Checkpoints) == 0 {
		return nil, checkpoints.ErrNoCheckpoint
	}
	a := t.sess.Checkpoints[0].Tree
	if from != nil {
		c, err := checkpoints.Find(t.sess.Checkpoints, *from)
		if err != nil {
			return nil, err
		}
		a = c.Tree
	}
	var b checkpoints.ID
	if to != nil {
		c, err := checkpoints.Find(t.sess.Checkpoints, *to)
		if err != nil {
			return nil, err
		}
		b = c.Tree
	} else {
		scan, err := t.cps.Snapshot(ctx)
		if err != nil {
			return nil, err
		}
		b = scan.Tree
	}
	return t.diffs(ctx, a, b)
}

func (t *Timeline) diffs(ctx context.Context, a, b checkpoints.ID) ([]checkpoints.FileDiff, error) {
	changes, err := t.cps.Changes(ctx, a, b)
	if err != nil {
		return nil, err
	}
	out := make([]checkpoints.FileDiff, len(changes))
	for i, c := range changes {
		text, binary, err := t.cps.Patch(c)
		if err != nil {
			return nil, err
		}
		out[i] = checkpoints.FileDiff{Change: c, Diff: text, Binary: binary}
	}
	return out, nil
}

// LastRequest is the number of the checkpoint taken before the last
// request, false when there is none.
func (t *Timeline) LastRequest() (int, bool) {
	for i := len(t.sess.Checkpoints) - 1; i >= 0; i-- {
		if c := t.sess.Checkpoints[i]; c.Reason == checkpoints.BeforeRequest {
			return c.Number, true
		}
	}
	return 0, false
}

// Plan says what a rewind to checkpoint n would change, before it does,
// naming the changes of other sessions running in the same directory.
func (t *Timeline) Plan(ctx context.Context, n int) (checkpoints.Plan, error) {
	p, err := t.cps.PlanRewind(ctx, t.sess.Checkpoints, n, t.sess.CheckpointState)
	if err != nil {
		return p, err
	}
	if left, ok := t.rewoundTo(); ok {
		// The last thing that changed the files was a rewind: its own
		// changes are dev's, not something else's.
		if p.Foreign, err = t.cps.Changes(ctx, left, p.Before.Scan.Tree); err != nil {
			return p, err
		}
	}
	if p.Others, err = t.othersChanges(ctx, p); err != nil {
		return p, err
	}
	// What another session did is named there, not again as unknown.
	theirs := map[string]bool{}
	for _, o := range p.Others {
		for _, path := range o.Paths {
			theirs[path] = true
		}
	}
	p.Foreign = slices.DeleteFunc(p.Foreign, func(c checkpoints.Change) bool { return theirs[c.Path] })
	return p, nil
}

// rewoundTo is the snapshot the last rewind left the working directory
// in, when no checkpoint was taken since: the checkpoint it rewound to.
func (t *Timeline) rewoundTo() (checkpoints.ID, bool) {
	list := t.sess.Checkpoints
	if len(t.sess.Rewinds) == 0 || len(list) == 0 {
		return "", false
	}
	last := t.sess.Rewinds[len(t.sess.Rewinds)-1]
	if last.From != list[len(list)-1].Number {
		return "", false
	}
	to, err := checkpoints.Find(list, last.To)
	if err != nil {
		return "", false
	}
	return to.Tree, true
}

// othersChanges are the paths of p's restore that other sessions running
// in the working directory changed after p's target was taken: their
// checkpoints after that time say which. Another session's store that
// cannot be read is skipped: naming is a courtesy, the plan stands.
func (t *Timeline) othersChanges(ctx context.Context, p checkpoints.Plan) ([]checkpoints.SessionChanges, error) {
	touched := map[string]bool{}
	for _, c := range p.Restore.Changes {
		touched[c.Path] = true
	}
	if len(touched) == 0 {
		return nil, nil
	}
	running, err := t.store.Running(t.sess.WorkingDirectory, t.sess.ID)
	if err != nil || len(running) == 0 {
		return nil, err
	}
	var out []checkpoints.SessionChanges
	for _, other := range running {
		ot, err := t.open(other)
		if err != nil {
			continue
		}
		entries, err := ot.List(ctx)
		ot.Close()
		if err != nil {
			continue
		}
		seen := map[string]bool{}
		var paths []string
		for _, e := range entries {
			// Only its tools' changes are its own: a checkpoint before a
			// request holds what others did meanwhile (the first, the
			// whole tree).
			if e.Reason != checkpoints.AfterTool || !e.Time.After(p.Target.Time) {
				continue
			}
			for _, c := range e.Changes {
				if touched[c.Path] && !seen[c.Path] {
					seen[c.Path] = true
					paths = append(paths, c.Path)
				}
			}
		}
		if len(paths) > 0 {
			slices.Sort(paths)
			out = append(out, checkpoints.SessionChanges{Session: other.ID, Paths: paths})
		}
	}
	return out, nil
}

// Rewind brings the working directory back to checkpoint n, after
// checkpointing the present (so a rewind can be rewound), and unless
// filesOnly cuts the session's history, task list and audits back to what
// they were then. The session is saved.
//
// The checkpoint of the present is in the session file, synced to disk,
// before the first file is touched (SPEC §13): a rewind killed at any
// moment leaves the old files, or that checkpoint to bring them back.
func (t *Timeline) Rewind(ctx context.Context, n int, filesOnly bool) (checkpoints.Rewound, error) {
	r, err := t.cps.Rewind(ctx, t.sess.Checkpoints, n, t.sess.CheckpointState, func(before checkpoints.Taken) error {
		if !before.New {
			return nil // a checkpoint of the list holds the present already
		}
		t.sess.Checkpoints = append(t.sess.Checkpoints, before.Checkpoint)
		return t.store.SaveSynced(t.sess)
	})
	if err != nil {
		return r, err
	}
	// What the checkpoints do not say: where the rewind went, and the
	// requests it took out of the history (the session browser shows
	// them as undone).
	rec := sessions.Rewind{Time: t.now().UTC(), To: n, From: t.sess.Checkpoints[len(t.sess.Checkpoints)-1].Number, FilesOnly: filesOnly}
	before := transcript.Requests(t.sess.History)
	if !filesOnly && r.State != nil {
		if err := t.sess.RestoreCheckpointState(*r.State); err != nil {
			return r, err
		}
	}
	rec.Kept = transcript.Requests(t.sess.History)
	rec.Undone = max(0, before-rec.Kept)
	if rec.Undone > 0 { // what lists show of the session: the requests it holds now
		t.sess.Prompts = max(0, t.sess.Prompts-rec.Undone)
		t.sess.LastPrompt = lastPrompt(t.sess.History)
	}
	t.sess.Rewinds = append(t.sess.Rewinds, rec)
	return r, t.store.Save(t.sess)
}

// lastPrompt is the last request a history holds, as typed ("" when it
// holds none): the request of its last turn, or the one a compression's
// summary goes on with.
func lastPrompt(msgs []llm.Message) string {
	turn, ok := transcript.Last(msgs)
	if !ok {
		return ""
	}
	if turn.Kind == transcript.TurnRequest {
		return turn.Text
	}
	text, _ := mention.Split(turn.Request)
	return text
}

// ParseNumber reads a checkpoint number as a user writes it.
func ParseNumber(s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%q is not a checkpoint number (0, 1, 2, …; dev checkpoints lists them)", s)
	}
	return n, nil
}

// The run's side: checkpoints taken as the work goes.

// timeline opens the checkpoints of the session worked in, when the
// settings want them; when they cannot work it says so once and the run
// goes on without.
func (a *App) openTimeline() {
	a.closeTimeline()
	if !a.cfg.Checkpoints || a.checkpointsOff {
		return
	}
	t, err := openTimeline(a.store, a.sess, a.cfg, a.opts.ConfigDir, true, a.opts.Now)
	if err != nil {
		a.disableCheckpoints(err)
		return
	}
	a.timeline = t
}

// closeTimeline closes the timeline of the session worked in, if any.
func (a *App) closeTimeline() {
	if a.timeline != nil {
		_ = a.timeline.Close() // its cache only: the next run rebuilds it
		a.timeline = nil
	}
}

// disableCheckpoints says once why checkpoints are off, and turns them
// off for the rest of the process.
func (a *App) disableCheckpoints(err error) {
	a.closeTimeline()
	a.checkpointsOff = true
	why := err.Error()
	if errors.Is(err, checkpoints.ErrTooBig) {
		why = "the working directory is too big to snapshot (" + why + ")"
	}
	a.warn("checkpoints are off for this run: " + why + "; dev diff and dev rewind will not cover it")
}

// Timeline is the checkpoints of the session worked in; nil when off.
func (a *App) Timeline() *Timeline { return a.timeline }

// runCheckpoints is the loop's Checkpoints: the app's timeline of the
// session worked in, whichever it is now.
type runCheckpoints struct{ a *App }

// BeforeRequest implements loop.Checkpoints.
func (c runCheckpoints) BeforeRequest(ctx context.Context) { c.a.beforeRequest(ctx) }

// AfterTool implements loop.Checkpoints.
func (c runCheckpoints) AfterTool(ctx context.Context, step int, call parser.ToolCall, res tools.Result) []event.FileChange {
	return c.a.afterTool(ctx, step, call, res)
}

// beforeRequest takes the checkpoint before a request: it holds the
// history before it.
func (a *App) beforeRequest(ctx context.Context) {
	if a.timeline == nil {
		return
	}
	if _, err := a.timeline.take(ctx, checkpoints.Meta{Reason: checkpoints.BeforeRequest}); err != nil && ctx.Err() == nil {
		a.disableCheckpoints(err)
	}
}

// afterTool records what a tool changed in the working directory, with
// the diffs of the file tools' edits. It looks only where the tool may
// have changed something (SPEC §12): nowhere after a tool that changes
// nothing, at the paths a file tool wrote, and where the watcher saw
// changes (or everywhere) after anything else: a command, a custom or MCP
// tool. While a background process runs, files may change at any time:
// then after every tool.
func (a *App) afterTool(ctx context.Context, step int, call parser.ToolCall, res tools.Result) []event.FileChange {
	if a.timeline == nil {
		return nil
	}
	m := checkpoints.Meta{Reason: checkpoints.AfterTool, Step: step, Tool: call.Name, Input: textfmt.Summary(res.Summary, 80),
		Look: checkpoints.LookChanged}
	reach := a.tools.Reach(call.Name)
	edit := reach == tools.ReachItsFiles
	switch {
	case a.backgroundRunning():
	case reach == tools.ReachNothing:
		return nil
	case edit:
		if len(res.Files) == 0 {
			return nil // it wrote nothing
		}
		m.Look = checkpoints.LookPaths
		for _, f := range res.Files {
			if !filepath.IsAbs(f) {
				f = filepath.Join(a.sess.WorkingDirectory, filepath.FromSlash(f))
			}
			m.Paths = append(m.Paths, f)
		}
	}
	changes, err := a.timeline.take(ctx, m)
	if err != nil {
		if ctx.Err() == nil {
			a.disableCheckpoints(err)
		}
		return nil
	}
	out := make([]event.FileChange, len(changes))
	for i, c := range changes {
		out[i] = event.FileChange{Path: c.Path, Change: string(c.Change)}
		if edit && c.Change == checkpoints.Modified { // a new file is its result already
			if text, binary, err := a.timeline.cps.Patch(c); err == nil && !binary {
				out[i].Diff = text
			}
		}
		if edit && c.Change != checkpoints.Deleted {
			out[i].Old, out[i].New, out[i].Texts = a.timeline.cps.Texts(c)
		}
	}
	return a.maskChanges(out)
}

// backgroundRunning reports whether a command of the run still runs in
// the background.
func (a *App) backgroundRunning() bool {
	if a.bg == nil {
		return false
	}
	for _, i := range a.bg.List() {
		if i.Status == bgproc.Running {
			return true
		}
	}
	return false
}

// protect stores what the checkpoints hold of the working directory by
// its stat alone before something may change it (a command, a file
// tool, an MCP call): see checkpoints.Store.Protect. It waits while the
// first checkpoint's files are still being read.
func (a *App) protect(ctx context.Context) {
	if a.timeline == nil {
		return
	}
	if err := a.timeline.cps.Protect(ctx); err != nil && ctx.Err() == nil {
		a.disableCheckpoints(err)
	}
}

// approveAndProtect is the worker's tools.Env.Approve: the approval, then
// what the checkpoints need before a change.
func (a *App) approveAndProtect(ctx context.Context, act tools.Action) tools.Verdict {
	v := a.approve(ctx, act)
	if v.Allowed {
		a.protect(ctx)
	}
	return v
}

// protectOnly is tools.Env.Approve where nothing needs approval (the
// auditor's commands, the user's own): the checkpoints' protection alone.
func (a *App) protectOnly(ctx context.Context, _ tools.Action) tools.Verdict {
	a.protect(ctx)
	return tools.Verdict{Allowed: true}
}

// Counts says what the timeline's snapshots did so far.
func (t *Timeline) Counts() checkpoints.Counts { return t.cps.Counts() }
