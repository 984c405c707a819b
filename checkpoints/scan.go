package checkpoints

import (
	"context"
	"crypto/sha256"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/devagent/dev/ignore"
)

// A snapshot is a scan (Store.scan, here), laid out by job: the full
// walk (walk.go) reads every directory into the tree of dirNodes the
// store keeps, or the incremental look (look.go) reads again only where
// something changed; either queues the files whose stat the index does
// not know, which the hash pool (hash.go) reads (read.go) and stores;
// finish then builds the trees that changed, bottom-up, and keeps the
// index.

// Scan is what a snapshot of the working directory found.
type Scan struct {
	Tree   ID    // the snapshot: the working directory's root tree
	Files  int   // files and symbolic links in it
	Bytes  int64 // their size
	Hashed int   // files read because their stat was new or changed
	// Deferred are the files of a first snapshot recorded by their stat
	// alone, whose content is read in the background (Options.Lazy).
	Deferred int
	// Looked says where the snapshot looked: LookAll when it read every
	// directory. Statted counts the names it took the stat of.
	Looked  Look
	Statted int
	// Oversize are the files larger than the size cap, left out.
	Oversize []string
	// Unreadable are the files and directories that could not be read,
	// left out.
	Unreadable []string
}

// Look says where a snapshot looks for what changed since the last one.
// Whatever it is told, the first snapshot of a store reads every
// directory.
type Look int

// Where to look.
const (
	// LookAll reads every directory (and stats every file).
	LookAll Look = iota
	// LookChanged looks only where the watcher saw something change
	// since the last snapshot (Options.Watch); without a watcher, or when
	// it lost track, everywhere.
	LookChanged
	// LookPaths looks at Meta.Paths alone, the files a file tool wrote:
	// a change made elsewhere since the last snapshot stays unseen until
	// a snapshot looks there (and a rewind names it as made by something
	// else).
	LookPaths
)

// Counts are what a store's snapshots did, for tests and figures.
type Counts struct {
	Scans    [3]int // by Look
	Statted  int    // names whose stat was taken
	Hashed   int    // files read
	Deferred int    // files recorded by their stat, read later
}

func (c *Counts) add(sc Scan) {
	c.Scans[sc.Looked]++
	c.Statted += sc.Statted
	c.Hashed += sc.Hashed
	c.Deferred += sc.Deferred
}

// Counts says what the store's snapshots did so far.
func (s *Store) Counts() Counts {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.counts
}

// dirent is an entry of a directory as readDir lists it: its type, and
// for a regular file its stat.
type dirent struct {
	name    string
	typ     fs.FileMode // the type bits only
	st      fileStat
	statErr error
}

// dirNode is a directory as the last scan saw it: its entries (sorted by
// name), for each subdirectory its node, and what the walk found there.
// The store keeps the tree of nodes from one scan to the next, so that a
// scan that looks at a few places reads only those and rebuilds only the
// trees above them.
type dirNode struct {
	rel string // slash path from the working directory, "" for it
	// inherited are the ignore rules in force above the directory, rules
	// those for its entries (its own .gitignore included).
	inherited, rules *ignore.Rules
	entries          []entry
	children         []*dirNode // children[i] is entries[i]'s node when it is a directory
	// idx is the directory's part of the index; todo are the entries
	// whose content must be read.
	idx                  map[string]indexed
	todo                 []int
	oversize, unreadable []string
	// When built, hash, empty, files and bytes are those of the tree as
	// entries and children hold it.
	built        bool
	hash         hash
	empty        bool
	files        int
	bytes        int64
	treeOversize int // oversize and unreadable paths at or below it
}

func (n *dirNode) path(name string) string {
	if n.rel == "" {
		return name
	}
	return n.rel + "/" + name
}

// find returns the position of the entry called name, and whether there
// is one.
func (n *dirNode) find(name string) (int, bool) {
	return slices.BinarySearchFunc(n.entries, name, func(e entry, name string) int { return strings.Compare(e.name, name) })
}

// scanner is one scan's state.
type scanner struct {
	s    *Store
	ign  *ignoreBase
	old  index     // the index before the scan
	when time.Time // when the scan began
	// lazy: files the index does not know are recorded by their stat
	// (see capture.go). dry: nothing is stored (SurveyDir).
	lazy, dry bool
	todo      []pending // the files to read (hash.go)
	// files and bytes count what a full walk keeps, against the caps.
	files, bytes atomic.Int64
	// pack receives the new objects when there are many (nil: the log).
	pack *packWriter
	res  Scan
	// watch is the watcher directories are added to as they are read:
	// the store's, or one a full walk makes once it has seen watchFrom
	// names (then unwatched holds the directories read before). watchErr
	// is the first failure to watch a directory: the watcher is dropped
	// after the scan.
	watch     atomic.Pointer[watcher]
	mayWatch  bool // this walk may make one
	watchMu   sync.Mutex
	unwatched []string
	watchErr  atomic.Pointer[error]
	statted   atomic.Int64
}

// watchFrom is how many files and directories a walk must see for the
// store to watch them: a walk of fewer costs a few milliseconds.
const watchFrom = 2000

// ignoreBase is where .gitignore rules start for the working directory:
// the git work tree holding it, as ignore.Open found it.
type ignoreBase struct {
	fsys  fs.FS
	start string
	comps []string // of start
	rules *ignore.Rules
}

// store stores data, whose hash is h, unless it is stored.
func (sc *scanner) store(h hash, data []byte) error {
	if sc.pack != nil {
		return sc.pack.add(h, data)
	}
	if sc.s.obj.has(h) {
		return nil
	}
	return sc.s.obj.write(h, data)
}

// scan snapshots the working directory, looking where look says: it
// stores what is new and returns the root tree. s.mu is held.
func (s *Store) scan(ctx context.Context, look Look, paths []string, lazy bool) (Scan, error) {
	if s.idx == nil {
		s.idx = loadIndex(s.indexPath())
		s.countPending()
	}
	if s.root == nil || s.ign == nil {
		look = LookAll
	}
	var dirty []string
	if s.watch != nil {
		var all bool
		if dirty, all = s.watch.drain(); all {
			// It lost events, or a directory moved: its map of
			// directories is not to be trusted. A new one watches
			// nothing until a full walk fills it.
			s.resetWatch()
			s.watchEmpty = true
		} else if look == LookPaths {
			// Not looked at now: the next snapshot that looks where
			// things changed sees them.
			s.watch.requeue(dirty)
		}
	}
	if look == LookChanged && (s.watch == nil || s.watchEmpty) {
		look = LookAll
	}
	sc := &scanner{s: s, ign: s.ign, old: s.idx, when: s.now(), lazy: lazy && look == LookAll}
	sc.watch.Store(s.watch)
	sc.mayWatch = look == LookAll && s.watch == nil && s.watchOn && s.watchErr == nil
	sc.res.Looked = look
	var err error
	switch look {
	case LookAll:
		err = sc.walkAll(ctx)
	case LookChanged:
		err = sc.relist(ctx, dirty)
	case LookPaths:
		err = sc.updatePaths(ctx, paths)
	}
	if err == nil {
		err = sc.finish(ctx)
	}
	if w := sc.watch.Load(); w != s.watch && w != nil {
		s.watch, s.watchEmpty = w, false // made by this walk
	}
	if werr := sc.watchErr.Load(); werr != nil {
		s.dropWatch(*werr)
	}
	sc.res.Statted = int(sc.statted.Load())
	s.counts.add(sc.res)
	if err != nil {
		// The kept tree may be half updated: the next scan walks
		// everything again.
		s.root = nil
		return Scan{}, err
	}
	return sc.res, nil
}

// finish reads the queued files, builds the trees, and keeps the index.
func (sc *scanner) finish(ctx context.Context) error {
	s := sc.s
	if len(sc.todo) >= packThreshold {
		var err error
		if sc.pack, err = s.obj.newPack(); err != nil {
			return err
		}
	}
	h, files, bytes, err := sc.hashAndBuild(ctx, s.root)
	if err != nil {
		return err
	}
	if files > s.maxFiles {
		return fmt.Errorf("%w: more than %d files (%s)", ErrTooBig, s.maxFiles, s.workDir)
	}
	if bytes > s.maxTotal {
		return fmt.Errorf("%w: more than %d MB of files (%s)", ErrTooBig, s.maxTotal>>20, s.workDir)
	}
	sc.res.Tree, sc.res.Files, sc.res.Bytes = h.id(), files, bytes
	if sc.lazy {
		sc.res.Deferred = countLazy(s.root)
	}
	if s.root.treeOversize > 0 {
		gatherSkipped(s.root, &sc.res)
		slices.Sort(sc.res.Oversize)
		slices.Sort(sc.res.Unreadable)
	}
	idx := make(index, len(s.idx))
	indexOf(s.root, idx)
	if sc.res.Hashed > 0 || sc.res.Deferred > 0 || len(idx) != len(s.idx) {
		s.idxChanged++
	}
	s.idx = idx
	if sc.res.Deferred > 0 {
		s.countPending()
	}
	if sc.res.Deferred > 0 || sc.res.Hashed > 0 && s.idxSaved == 0 || sc.res.Hashed >= saveIndexAfter {
		s.saveIndex()
	}
	return nil
}

// saveIndexAfter is how many files a scan must read for the index to be
// saved at once rather than when the store is closed: losing it (dev
// killed) costs reading them again. The first scan of a store that read
// anything saves it, and one that defers files: it holds which files
// are still to be read.
const saveIndexAfter = 1000

// countLazy counts the files below n recorded by their stat.
func countLazy(n *dirNode) int {
	count := 0
	for i, e := range n.entries {
		if c := n.children[i]; c != nil {
			count += countLazy(c)
		} else if e.mode&lazyMode != 0 {
			count++
		}
	}
	return count
}

// indexOf gathers the index of the tree below n.
func indexOf(n *dirNode, idx index) {
	if len(n.idx) > 0 {
		idx[n.rel] = n.idx
	}
	for _, c := range n.children {
		if c != nil {
			indexOf(c, idx)
		}
	}
}

// gatherSkipped lists the files left out below n.
func gatherSkipped(n *dirNode, res *Scan) {
	res.Oversize = append(res.Oversize, n.oversize...)
	res.Unreadable = append(res.Unreadable, n.unreadable...)
	for _, c := range n.children {
		if c != nil && c.treeOversize > 0 {
			gatherSkipped(c, res)
		}
	}
}

// hashAndBuild stores the files to read and the trees, and returns the
// root tree's hash; a pack is committed or dropped.
func (sc *scanner) hashAndBuild(ctx context.Context, root *dirNode) (h hash, files int, bytes int64, err error) {
	err = sc.hashAll(ctx)
	if err == nil {
		h, _, files, bytes, err = sc.build(root)
	}
	if sc.pack != nil {
		if err != nil {
			sc.pack.abort()
		} else {
			err = sc.pack.commit()
		}
	}
	return h, files, bytes, err
}

// build stores the trees of n and below that changed since they were
// last built, bottom-up, and returns n's hash and what it holds; empty
// reports a directory holding nothing a snapshot keeps, which is left out
// of its parent as git leaves it out.
func (sc *scanner) build(n *dirNode) (h hash, empty bool, files int, bytes int64, err error) {
	if n.built {
		return n.hash, n.empty, n.files, n.bytes, nil
	}
	if slices.ContainsFunc(n.entries, func(e entry) bool { return e.name == "" }) {
		// Files hashAll left out.
		j := 0
		for i, e := range n.entries {
			if e.name != "" {
				n.entries[j], n.children[j] = e, n.children[i]
				j++
			}
		}
		clear(n.children[j:])
		n.entries, n.children = n.entries[:j], n.children[:j]
	}
	kept := make([]entry, 0, len(n.entries))
	skipped := len(n.oversize) + len(n.unreadable)
	for i := range n.entries {
		e := &n.entries[i]
		if c := n.children[i]; c != nil {
			var empty bool
			var f int
			var b int64
			e.hash, empty, f, b, err = sc.build(c)
			if err != nil {
				return h, false, 0, 0, err
			}
			skipped += c.treeOversize
			if empty {
				continue
			}
			files, bytes = files+f, bytes+b
		} else {
			files++
			bytes += e.size
		}
		kept = append(kept, *e)
	}
	data := encodeTree(kept)
	h = sha256.Sum256(data)
	if err := sc.store(h, data); err != nil {
		return h, false, 0, 0, err
	}
	n.built, n.hash, n.empty, n.files, n.bytes, n.treeOversize = true, h, len(kept) == 0, files, bytes, skipped
	return h, n.empty, files, bytes, nil
}
