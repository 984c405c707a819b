// Package checkpoints keeps snapshots of a session's working directory, so
// that every change made there, by dev's file tools or by the commands it
// runs, can be listed, shown as a diff and undone (SPEC §12).
//
// A snapshot holds the files under the working directory except .git,
// node_modules, what .gitignore excludes and files over a size cap. It is
// stored in Go, content-addressed, under a directory of the session: a
// file's content, a directory listing and a session state are each one
// object named by its SHA-256, so what did not change is never stored
// twice and git is not needed. The user's repository is only ever read
// (its .gitignore files and info/exclude). A snapshot where nothing
// changed reads no file: a stat cache (size, modification time, mode,
// inode, as git's index keeps) says which files it can trust.
//
// What a snapshot costs is what it looks at. The store keeps the last
// snapshot's tree of directories in memory, so one that looks only where
// things may have changed (the paths a file tool wrote, the directories
// a watcher saw change) reads those and rebuilds the trees above them
// alone (Look). The first snapshot of a large project may record files by
// their stat and read them in the background, before anything can change
// them (Options.Lazy, capture.go).
//
// The list of checkpoints lives in the session file; this package makes
// its entries (Take), compares snapshots (Changes, Patch) and brings the
// directory and the session state back to one (Rewind).
package checkpoints

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// Reason says why a checkpoint was taken.
type Reason string

// Reasons.
const (
	// BeforeRequest is taken before the first step of every request,
	// changed or not: rewinding to it undoes the request.
	BeforeRequest Reason = "request"
	// AfterTool is taken after a tool ran, when the directory changed.
	AfterTool Reason = "tool"
	// BeforeRewind holds the present before a rewind replaces it, so that
	// a rewind can be rewound; it is not taken when a checkpoint holds
	// the present already (files and state), as after a rewind.
	BeforeRewind Reason = "rewind"
)

// Checkpoint is one entry of a session's checkpoint list, as the session
// file stores it.
type Checkpoint struct {
	Number int       `json:"number"` // from 0 in the session
	Time   time.Time `json:"time"`   // UTC
	Reason Reason    `json:"reason"`
	// Step, Tool and Input name the step and tool after which an
	// AfterTool checkpoint was taken; Input is a one-line summary.
	Step  int    `json:"step,omitempty"`
	Tool  string `json:"tool,omitempty"`
	Input string `json:"input,omitempty"`
	Tree  ID     `json:"tree"` // the snapshot of the working directory
	// State is the session as a rewind to this checkpoint leaves it
	// (history, task list, audits); empty when none was given.
	State ID `json:"state,omitempty"`
}

// Meta is what the caller says about a checkpoint it takes.
type Meta struct {
	Reason Reason
	Step   int
	Tool   string
	Input  string
	// Look says where to look for changes, Paths the absolute paths
	// LookPaths looks at.
	Look  Look
	Paths []string
}

// Errors callers tell apart with errors.Is.
var (
	ErrNoCheckpoint = errors.New("no such checkpoint")
	// ErrTooBig: the working directory holds more than Options allow a
	// checkpoint to copy. Checkpoints are then unavailable for the
	// session; nothing else need fail.
	ErrTooBig = errors.New("the working directory is too big to checkpoint")
)

// Defaults of Options. A tree of many files costs in proportion (see
// docs/performance.md), with no cap on their number; the bytes are capped,
// since every file is copied once into the store.
const (
	DefaultMaxFileBytes  = 10 << 20 // checkpointMaxFileBytes' default
	DefaultMaxTotalBytes = 2 << 30
)

// Options tune a Store; the zero value is the defaults.
type Options struct {
	// MaxFileBytes: larger files are not snapshotted, nor ever touched
	// by a rewind (0: DefaultMaxFileBytes).
	MaxFileBytes int64
	// MaxFiles and MaxTotalBytes bound what a snapshot holds: past
	// either it fails with ErrTooBig (0: no cap on files,
	// DefaultMaxTotalBytes).
	MaxFiles      int
	MaxTotalBytes int64
	// Lazy lets the session's first snapshot record the files it has not
	// seen by their stat, and read them on a goroutine of the store's
	// (see capture.go): before anything changes a file, Protect.
	Lazy bool
	// Watch watches the snapshot's directories (inotify, on Linux), so
	// that LookChanged looks only where something changed, once a walk
	// finds 2,000 files and directories (watchFrom): below, reading them
	// all costs less than a watcher does (its end, when dev exits, waits
	// 10 to 20 ms for the kernel).
	Watch bool
	// Exclude are more directories never snapshotted nor touched, such
	// as dev's own config directory when it lies in the working
	// directory. The store's directory always is.
	Exclude []string
	// Now is the clock (nil: time.Now).
	Now func() time.Time
}

// Store holds the snapshots of one working directory for one session.
// Its methods are safe for concurrent use. Two processes may use stores
// on the same directory at once (dev diff while dev runs): objects are
// named by their content, and each process appends to a log of its own
// or writes a pack it renames into place.
type Store struct {
	dir           string // the store's directory
	workDir       string
	realWorkDir   string // workDir with its links followed
	maxFileBytes  int64
	maxFiles      int
	maxTotal      int64
	excluded      map[string]bool // slash paths under workDir
	now           func() time.Time
	obj           *objects
	lazy, watchOn bool
	watchFrom     int // watchFrom, but for tests

	mu   sync.Mutex
	idx  index      // the stat cache; loaded by the first scan
	last *lastState // the last state saved or loaded
	// root is the last scan's tree, ign where its ignore rules start;
	// nil before the first scan of the store.
	root *dirNode
	ign  *ignoreBase
	// watch reports the directories where something changed (nil: none,
	// or it failed: watchErr says why).
	watch    *watcher
	watchErr error
	// watchEmpty: the watcher was made anew since the last full walk,
	// which fills it.
	watchEmpty bool
	// idxChanged counts changes to the index since it was last saved,
	// idxSaved the saves.
	idxChanged, idxSaved int
	// pending counts the index's files recorded by stat whose content is
	// not stored yet; capturing is the background capture, when one runs.
	pending   int
	capturing *captureRun
	closed    bool
	// captureMu lets one capture run at a time.
	captureMu sync.Mutex
	// holdCapture: no background capture (tests: Protect reads).
	holdCapture bool
	counts      Counts
}

// Open returns the store kept in dir (created at the first snapshot; the
// session's own directory, e.g. sessions/<id>/checkpoints) for the
// working directory workDir.
func Open(dir, workDir string, opts Options) (*Store, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("checkpoint store: %w", err)
	}
	workDir, err = filepath.Abs(workDir)
	if err != nil {
		return nil, fmt.Errorf("checkpoint store: %w", err)
	}
	if fi, err := os.Stat(workDir); err != nil {
		return nil, fmt.Errorf("checkpoint store: %w", err)
	} else if !fi.IsDir() {
		return nil, fmt.Errorf("checkpoint store: %s is not a directory", workDir)
	}
	s := &Store{dir: dir, workDir: workDir, realWorkDir: workDir, maxFileBytes: opts.MaxFileBytes, now: opts.Now,
		excluded: map[string]bool{}, obj: newObjects(filepath.Join(dir, "objects")), lazy: opts.Lazy, watchOn: opts.Watch,
		watchFrom: watchFrom}
	if real, err := filepath.EvalSymlinks(workDir); err == nil {
		s.realWorkDir = real
	}
	if s.maxFileBytes <= 0 {
		s.maxFileBytes = DefaultMaxFileBytes
	}
	s.maxFiles, s.maxTotal = opts.MaxFiles, opts.MaxTotalBytes
	if s.maxFiles <= 0 {
		s.maxFiles = math.MaxInt
	}
	if s.maxTotal <= 0 {
		s.maxTotal = DefaultMaxTotalBytes
	}
	if s.now == nil {
		s.now = time.Now
	}
	for _, ex := range append([]string{dir}, opts.Exclude...) {
		if ex, err := filepath.Abs(ex); err == nil {
			if rel, err := filepath.Rel(workDir, ex); err == nil && rel != "." && !strings.HasPrefix(rel, "..") {
				s.excluded[filepath.ToSlash(rel)] = true
			}
		}
	}
	return s, nil
}

func (s *Store) indexPath() string { return filepath.Join(s.dir, "index") }

// Close stops the background capture (what it read so far is kept, and
// the rest is read by the next store on the session before anything
// changes), stops the watcher, and saves the index. The store is not used
// after.
func (s *Store) Close() error {
	s.mu.Lock()
	run := s.capturing
	s.closed = true
	s.mu.Unlock()
	if run != nil {
		run.cancel()
		<-run.done
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.watch != nil {
		s.watch.close()
		s.watch = nil
	}
	if s.idxChanged > 0 {
		s.saveIndex()
	}
	return s.obj.close()
}

// saveIndex writes the index. It is a cache: a scan that cannot save it
// is still a good scan. s.mu is held.
func (s *Store) saveIndex() {
	if s.idx == nil {
		return
	}
	if err := os.MkdirAll(s.dir, 0o700); err == nil && s.idx.save(s.indexPath()) == nil {
		s.idxChanged = 0
		s.idxSaved++
	}
}

// Watching reports whether the store watches the working directory for
// changes; when it was asked to and cannot, why not.
func (s *Store) Watching() (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.watch != nil, s.watchErr
}

// resetWatch replaces the watcher by a new one, which the next full walk
// fills. s.mu is held.
func (s *Store) resetWatch() {
	if s.watch != nil {
		s.watch.close()
		s.watch = nil
	}
	if !s.watchOn || s.watchErr != nil {
		return
	}
	w, err := newWatcher()
	if err != nil {
		s.watchErr = err
		return
	}
	s.watch = w
}

// dropWatch gives up watching: past the system's limit of watches, say.
// Every LookChanged snapshot then walks the working directory. s.mu is
// held.
func (s *Store) dropWatch(err error) {
	if s.watch != nil {
		s.watch.close()
		s.watch = nil
	}
	s.watchErr = err
}

// Snapshot stores the working directory as it is now, without making a
// checkpoint of it: what dev diff compares a checkpoint with. It looks
// where the watcher saw changes, or everywhere.
func (s *Store) Snapshot(ctx context.Context) (Scan, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.scan(ctx, LookChanged, nil, false)
}

// Taken is the result of Take.
type Taken struct {
	// New reports that a checkpoint was made: append Checkpoint to the
	// session's list and save it. An AfterTool checkpoint is made only
	// when the files changed since the last one, a BeforeRewind one only
	// when no checkpoint holds the same files and state: then Checkpoint
	// is the one of the list that does.
	New        bool
	Checkpoint Checkpoint
	// Changes are the files that differ from the last checkpoint of the
	// list (nil for the first): after a tool, what it changed.
	Changes []Change
	Scan    Scan
}

// Take snapshots the working directory as the checkpoint that follows
// list, the session's checkpoints. state gives the session's state; it is
// called only when a checkpoint is made (nil: none kept).
func (s *Store) Take(ctx context.Context, list []Checkpoint, m Meta, state func() State) (Taken, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.take(ctx, list, m, state)
}

func (s *Store) take(ctx context.Context, list []Checkpoint, m Meta, state func() State) (Taken, error) {
	sc, err := s.scan(ctx, m.Look, m.Paths, s.lazy && len(list) == 0)
	if err != nil {
		return Taken{}, err
	}
	if s.pending > 0 {
		// What the first snapshot deferred, or what a store closed too
		// soon left (dev --resume): read it before a tool needs it.
		s.startCapture()
	}
	t := Taken{Scan: sc}
	var last *Checkpoint
	if len(list) > 0 {
		last = &list[len(list)-1]
		if t.Changes, err = s.Changes(ctx, last.Tree, sc.Tree); err != nil {
			return Taken{}, err
		}
	}
	if m.Reason == AfterTool && last != nil && last.Tree == sc.Tree {
		return t, nil
	}
	var st ID
	if state != nil {
		var base hash
		if last != nil && last.State != "" {
			if base, err = parseID(last.State); err != nil {
				return Taken{}, err
			}
		}
		h, err := s.saveState(base, state())
		if err != nil {
			return Taken{}, err
		}
		st = h.id()
	}
	if m.Reason == BeforeRewind {
		if i := slices.IndexFunc(list, func(c Checkpoint) bool { return c.Tree == sc.Tree && c.State == st }); i >= 0 {
			t.Checkpoint = list[i] // a rewind to it brings the present back
			return t, nil
		}
	}
	number := 0
	if last != nil {
		number = last.Number + 1
	}
	t.New = true
	t.Checkpoint = Checkpoint{Number: number, Time: s.now().UTC(), Reason: m.Reason, Step: m.Step, Tool: m.Tool,
		Input: m.Input, Tree: sc.Tree, State: st}
	return t, nil
}

// Find returns the checkpoint numbered n in list.
func Find(list []Checkpoint, n int) (Checkpoint, error) {
	for _, c := range list {
		if c.Number == n {
			return c, nil
		}
	}
	if len(list) == 0 {
		return Checkpoint{}, fmt.Errorf("%w %d: the session has no checkpoints", ErrNoCheckpoint, n)
	}
	return Checkpoint{}, fmt.Errorf("%w %d: the session's checkpoints are %d to %d", ErrNoCheckpoint, n, list[0].Number, list[len(list)-1].Number)
}

// Plan is what a rewind will do, for the caller to show before asking.
type Plan struct {
	Target  Checkpoint
	Restore Restore
	// Before is the checkpoint that holds the present, which the rewind
	// takes first (Before.New), or the one of the list that holds it
	// already: `dev rewind Before.Checkpoint.Number` undoes the rewind.
	// Before.Scan.Tree is the present's snapshot.
	Before Taken
	// Foreign are the files changed since the last checkpoint, by
	// something other than dev's steps (the user, an editor, a process
	// left running): the rewind replaces those changes too.
	Foreign []Change
	// Others are the changes of Restore that other sessions made, which
	// a dev is running in the same directory now: the rewind undoes
	// their work too. The caller fills it (this package knows no
	// sessions).
	Others []SessionChanges
}

// SessionChanges are the paths another session changed.
type SessionChanges struct {
	Session string
	Paths   []string
}

// PlanRewind says what rewinding the working directory to checkpoint n of
// list would change, without changing anything, and which checkpoint
// will hold the present (present gives the session's state, as Rewind
// takes it).
func (s *Store) PlanRewind(ctx context.Context, list []Checkpoint, n int, present func() State) (Plan, error) {
	target, err := Find(list, n)
	if err != nil {
		return Plan{}, err
	}
	if err := s.Protect(ctx); err != nil {
		return Plan{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	p := Plan{Target: target}
	// What Rewind will take, but not added to the list: the objects it
	// stores are named by their content, and nothing names them yet.
	if p.Before, err = s.take(ctx, list, Meta{Reason: BeforeRewind}, present); err != nil {
		return Plan{}, err
	}
	now := p.Before.Scan.Tree
	if p.Foreign, err = s.Changes(ctx, list[len(list)-1].Tree, now); err != nil {
		return Plan{}, err
	}
	if p.Restore, err = s.planRestore(ctx, now, target.Tree); err != nil {
		return Plan{}, err
	}
	return p, nil
}

// Rewound is the result of Rewind.
type Rewound struct {
	// Before is the checkpoint of the present taken first; when
	// Before.New, it is the one kept was given.
	Before  Taken
	Target  Checkpoint
	Restore Restore // what the restore changed and what it left
	// State is the target's session state, to put back unless only the
	// files are rewound; nil when the target kept none.
	State *State
}

// Rewind brings the working directory back to checkpoint n of list: it
// first checkpoints the present (with present's state), then deletes the
// files created since, writes back those modified or deleted, and loads
// the target's session state. Paths a snapshot skips are never touched.
// A failing path does not stop the others; the error names each.
//
// A rewind never loses work (SPEC §13): the checkpoint of the present is
// written and synced to disk, then given to kept, which records it (the
// caller appends a new one to the session's list and saves the session),
// all before the first file is touched. A rewind killed at any moment
// leaves the old files, or a checkpoint kept names that brings them back.
// An error from kept stops the rewind with nothing changed.
func (s *Store) Rewind(ctx context.Context, list []Checkpoint, n int, present func() State, kept func(Taken) error) (Rewound, error) {
	target, err := Find(list, n)
	if err != nil {
		return Rewound{}, err
	}
	// The present is checkpointed and overwritten: its files must be
	// stored first.
	if err := s.Protect(ctx); err != nil {
		return Rewound{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	r := Rewound{Target: target}
	if target.State != "" {
		h, err := parseID(target.State)
		if err != nil {
			return Rewound{}, err
		}
		st, err := s.loadState(h)
		if err != nil {
			return Rewound{}, err
		}
		r.State = &st
	}
	if r.Before, err = s.take(ctx, list, Meta{Reason: BeforeRewind}, present); err != nil {
		return Rewound{}, err
	}
	if r.Restore, err = s.planRestore(ctx, r.Before.Scan.Tree, target.Tree); err != nil {
		return Rewound{}, err
	}
	if err := s.sync(); err != nil {
		return Rewound{}, fmt.Errorf("keeping the present before the rewind: %w", err)
	}
	if kept != nil {
		if err := kept(r.Before); err != nil {
			return Rewound{}, fmt.Errorf("keeping the present before the rewind: %w", err)
		}
	}
	return r, s.restore(ctx, r.Restore)
}

// sync makes what the store wrote durable: its objects, and the
// directories that name them. s.mu is held.
func (s *Store) sync() error {
	if err := s.obj.sync(); err != nil {
		return err
	}
	return errors.Join(syncDir(s.dir), syncDir(filepath.Dir(s.dir)))
}

// State reads the session state a checkpoint kept.
func (s *Store) State(id ID) (State, error) {
	h, err := parseID(id)
	if err != nil {
		return State{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.loadState(h)
}
