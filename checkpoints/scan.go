package checkpoints

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/devagent/dev/ignore"
)

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

// pending is a file whose content must be read: n's entry called name.
type pending struct {
	node *dirNode
	name string
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
	// spare holds a token per CPU beyond the first: a walk with a spare
	// token reads a subdirectory on a goroutine of its own.
	spare chan struct{}
	todo  []pending
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
	sc := &scanner{s: s, ign: s.ign, old: s.idx, when: s.now(), lazy: lazy && look == LookAll,
		spare: make(chan struct{}, runtime.GOMAXPROCS(0)-1)}
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

// walkAll reads every directory into a new tree.
func (sc *scanner) walkAll(ctx context.Context) error {
	fsys, start, rules := ignore.Open(sc.s.workDir)
	sc.ign = &ignoreBase{fsys: fsys, start: start, comps: ignore.Components(start), rules: rules}
	root := &dirNode{inherited: rules}
	if err := sc.walk(ctx, root, sc.s.workDir, rules, nil); err != nil {
		return err
	}
	sc.s.root, sc.s.ign, sc.s.watchEmpty = root, sc.ign, false
	if w := sc.watch.Load(); w != nil && w != sc.s.watch && len(sc.unwatched) > 0 {
		// The walk started watching part way: the directories it read
		// before are watched now, and read again for what changed
		// between.
		for _, rel := range sc.unwatched {
			sc.watchDir(rel, sc.s.abs(rel))
		}
		if err := sc.relist(ctx, sc.unwatched); err != nil {
			return err
		}
	}
	sc.collect(sc.s.root)
	return nil
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

// watchDir watches the directory rel, before it is read: what changes in
// it from then on, the watcher says. The working directory is watched
// where its links lead (a watch does not follow the last link of a
// path), and must be: without it, nothing the watcher says can be
// trusted.
func (sc *scanner) watchDir(rel, abs string) {
	w := sc.watch.Load()
	if w == nil && sc.mayWatch {
		sc.watchMu.Lock()
		if w = sc.watch.Load(); w == nil && sc.mayWatch && sc.statted.Load() >= int64(sc.s.watchFrom) {
			var err error
			if w, err = newWatcher(); err != nil {
				sc.mayWatch = false
				sc.watchErr.CompareAndSwap(nil, &err)
			} else {
				sc.watch.Store(w)
			}
		}
		if w == nil {
			sc.unwatched = append(sc.unwatched, rel)
		}
		sc.watchMu.Unlock()
	}
	if w == nil || w.watching(rel) {
		return
	}
	if rel == "" {
		abs = sc.s.realWorkDir
	}
	err := w.add(rel, abs)
	if err == nil && rel == "" && !w.watching(rel) {
		err = fmt.Errorf("watching %s: it cannot be watched", abs)
	}
	if err != nil {
		sc.watchErr.CompareAndSwap(nil, &err)
	}
}

// walk reads the directory abs (n.rel from the working directory) and
// everything below it that a snapshot keeps, taking the hash of every
// file whose stat is in the index and noting the others in n.todo.
// rules are those in force above it. old, when set, is the directory as
// the last scan saw it: its subdirectories are kept as they were, unless
// the watcher no longer watches one (it was replaced) or the directory's
// .gitignore changed. Subdirectories are read on other goroutines while
// CPUs are spare.
func (sc *scanner) walk(ctx context.Context, n *dirNode, abs string, rules *ignore.Rules, old *dirNode) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	n.inherited = rules
	sc.watchDir(n.rel, abs)
	list, err := readDir(abs)
	sc.statted.Add(int64(len(list)))
	if err != nil {
		if n.rel == "" {
			return fmt.Errorf("snapshot %s: %w", sc.s.workDir, err)
		}
		// What could be read of it is kept; a restore never deletes what
		// a snapshot did not see.
		n.unreadable = append(n.unreadable, n.rel+"/")
	}
	oldIdx := sc.old[n.rel]
	comps := append(slices.Clip(sc.ign.comps), ignore.Components(n.rel)...)
	hasIgnore := false
	for _, e := range list {
		if e.name == ".gitignore" && e.typ.IsRegular() && e.statErr == nil {
			hasIgnore = true
			rules = rules.ReadFile(sc.ign.fsys, path.Join(sc.ign.start, n.rel, ".gitignore"), comps)
			if o, ok := oldIdx[".gitignore"]; !ok || o.racy || o.stat != e.st {
				old = nil // other rules: what was kept below may not be
			}
		}
	}
	if _, had := oldIdx[".gitignore"]; had && !hasIgnore {
		old = nil // the .gitignore is gone
	}
	n.rules = rules
	n.entries, n.children = make([]entry, 0, len(list)), make([]*dirNode, 0, len(list))
	reuse := true // every file's entry in old is still good: keep old as it is
	match := append(slices.Clip(comps), "")
	var wg sync.WaitGroup
	var errs []error
	var errMu sync.Mutex
	for _, e := range list {
		name := e.name
		if ignore.Skipped(name) || len(sc.s.excluded) > 0 && sc.s.excluded[n.path(name)] {
			continue
		}
		if e.statErr != nil {
			if !errors.Is(e.statErr, fs.ErrNotExist) {
				n.unreadable = append(n.unreadable, n.path(name))
			}
			continue
		}
		match[len(match)-1] = name
		if rules.Match(match, e.typ.IsDir()) {
			continue
		}
		switch {
		case e.typ.IsDir():
			n.entries = append(n.entries, entry{name: name, mode: fs.ModeDir | 0o755})
			if old != nil {
				if i, ok := old.find(name); ok && old.children[i] != nil && sc.watch.Load().watching(old.children[i].rel) {
					n.children = append(n.children, old.children[i])
					continue
				}
			}
			c := &dirNode{rel: n.path(name)}
			n.children = append(n.children, c)
			childAbs := filepath.Join(abs, name)
			select {
			case sc.spare <- struct{}{}:
				wg.Go(func() {
					defer func() { <-sc.spare }()
					if err := sc.walk(ctx, c, childAbs, rules, nil); err != nil {
						errMu.Lock()
						errs = append(errs, err)
						errMu.Unlock()
					}
				})
			default:
				if err := sc.walk(ctx, c, childAbs, rules, nil); err != nil {
					wg.Wait()
					return err
				}
			}
			continue
		case e.typ&fs.ModeSymlink != 0:
			en, err := sc.link(filepath.Join(abs, name), name)
			if errors.Is(err, errSkip) {
				n.unreadable = append(n.unreadable, n.path(name))
				continue
			}
			if err != nil {
				wg.Wait()
				return err
			}
			n.entries = append(n.entries, en)
		case e.typ.IsRegular():
			st := e.st
			if st.size > sc.s.maxFileBytes {
				n.oversize = append(n.oversize, n.path(name))
				continue
			}
			if err := sc.count(st.size); err != nil {
				wg.Wait()
				return err
			}
			en := entry{name: name, mode: st.mode, size: st.size}
			if o, ok := oldIdx[name]; ok && !o.racy && o.stat == st {
				en.hash = o.hash
				if o.lazy {
					en.mode |= lazyMode
				}
			} else {
				reuse = false
				if sc.lazy && !isRacy(st, sc.when) && st.ctime <= sc.when.Add(-ctimeTick).UnixNano() {
					en.hash, en.mode = identity(n.path(name), st), en.mode|lazyMode
					if n.idx == nil {
						n.idx = make(map[string]indexed, len(list))
					}
					n.idx[name] = indexed{stat: st, hash: en.hash, lazy: true}
				} else {
					n.todo = append(n.todo, len(n.entries))
				}
			}
			n.entries = append(n.entries, en)
		default:
			continue // devices, pipes, sockets: not files a checkpoint can hold
		}
		n.children = append(n.children, nil)
	}
	wg.Wait()
	if len(errs) > 0 {
		return errs[0]
	}
	files := 0
	for i := range n.entries {
		if n.children[i] == nil && n.entries[i].mode&fs.ModeSymlink == 0 {
			files++
		}
	}
	if reuse && files == len(oldIdx) {
		n.idx = oldIdx
		return nil
	}
	lazy := n.idx
	if len(oldIdx) == 0 && len(lazy) == files {
		return nil // all recorded by their stat (a first scan): n.idx is whole
	}
	n.idx = make(map[string]indexed, files)
	for i, e := range n.entries {
		if n.children[i] != nil || e.mode&fs.ModeSymlink != 0 || slices.Contains(n.todo, i) {
			continue
		}
		if l, ok := lazy[e.name]; ok {
			n.idx[e.name] = l
		} else {
			n.idx[e.name] = oldIdx[e.name]
		}
	}
	return nil
}

var errSkip = errors.New("left out")

// link is the entry of the symbolic link at abs: its target is its
// content. errSkip: it cannot be read.
func (sc *scanner) link(abs, name string) (entry, error) {
	target, err := os.Readlink(abs)
	if err != nil {
		return entry{}, errSkip
	}
	if sc.res.Looked == LookAll {
		if err := sc.count(int64(len(target))); err != nil {
			return entry{}, err
		}
	}
	h := sha256.Sum256([]byte(target))
	if !sc.dry {
		if h, err = sc.s.obj.put([]byte(target)); err != nil {
			return entry{}, err
		}
	}
	return entry{name: name, mode: fs.ModeSymlink | 0o777, size: int64(len(target)), hash: h}, nil
}

// count adds a file to the snapshot, failing past the caps.
func (sc *scanner) count(size int64) error {
	files, bytes := sc.files.Add(1), sc.bytes.Add(size)
	switch {
	case files > int64(sc.s.maxFiles):
		return fmt.Errorf("%w: more than %d files (%s)", ErrTooBig, sc.s.maxFiles, sc.s.workDir)
	case bytes > sc.s.maxTotal:
		return fmt.Errorf("%w: more than %d MB of files (%s)", ErrTooBig, sc.s.maxTotal>>20, sc.s.workDir)
	}
	return nil
}

// collect queues the files to read below n, a node the scan walked.
func (sc *scanner) collect(n *dirNode) {
	if n.built {
		return // kept from the last scan
	}
	for _, i := range n.todo {
		sc.todo = append(sc.todo, pending{node: n, name: n.entries[i].name})
	}
	n.todo = nil
	for _, c := range n.children {
		if c != nil {
			sc.collect(c)
		}
	}
}

// relist reads again the directories where the watcher saw changes,
// deepest first, keeping the subdirectories of each as they are (those
// that changed were read before their parent).
func (sc *scanner) relist(ctx context.Context, dirty []string) error {
	depth := func(rel string) int {
		if rel == "" {
			return 0
		}
		return strings.Count(rel, "/") + 1
	}
	slices.SortFunc(dirty, func(a, b string) int {
		if c := depth(b) - depth(a); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	for _, d := range slices.Compact(dirty) {
		parent, i, node := sc.s.lookup(d)
		if node == nil {
			continue // not in the snapshot: ignored, gone, or below a link
		}
		fresh := &dirNode{rel: d}
		if err := sc.walk(ctx, fresh, sc.s.abs(d), node.inherited, node); err != nil {
			return err
		}
		sc.replace(parent, i, fresh)
		sc.collect(fresh)
	}
	return nil
}

// replace puts node in place of parent's i-th child (parent nil: the
// root) and marks the trees above it for building again.
func (sc *scanner) replace(parent *dirNode, i int, node *dirNode) {
	if parent == nil {
		sc.s.root = node
		return
	}
	parent.children[i] = node
	sc.s.unbuild(parent.rel)
}

// lookup finds the node of the directory rel, its parent and its
// position there; node is nil when the last scan has no such directory.
func (s *Store) lookup(rel string) (parent *dirNode, i int, node *dirNode) {
	node = s.root
	for _, c := range ignore.Components(rel) {
		if node == nil {
			return nil, 0, nil
		}
		j, ok := node.find(c)
		if !ok {
			return nil, 0, nil
		}
		parent, i, node = node, j, node.children[j]
	}
	return parent, i, node
}

// unbuild marks the tree of rel and those above it as changed.
func (s *Store) unbuild(rel string) {
	n := s.root
	n.built = false
	for _, c := range ignore.Components(rel) {
		j, ok := n.find(c)
		if !ok || n.children[j] == nil {
			return
		}
		n = n.children[j]
		n.built = false
	}
}

// updatePaths looks at the files at paths (absolute) alone: each as
// named, and where its links lead when that is elsewhere in the working
// directory.
func (sc *scanner) updatePaths(ctx context.Context, paths []string) error {
	seen := map[string]bool{}
	for _, p := range paths {
		for _, rel := range sc.s.relPaths(p) {
			if seen[rel] {
				continue
			}
			seen[rel] = true
			if err := sc.updatePath(ctx, rel); err != nil {
				return err
			}
		}
	}
	return nil
}

// relPaths are the slash paths in the working directory that writing the
// absolute path p may have changed: p, and the file its links lead to.
func (s *Store) relPaths(p string) []string {
	var out []string
	for _, cand := range []string{filepath.Clean(p), resolveLinks(p)} {
		for _, root := range []string{s.workDir, s.realWorkDir} {
			rel, err := filepath.Rel(root, cand)
			if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				continue
			}
			rel = filepath.ToSlash(rel)
			if !slices.Contains(out, rel) {
				out = append(out, rel)
			}
		}
	}
	return out
}

// resolveLinks is p with every link followed, as far as the path exists.
func resolveLinks(p string) string {
	p = filepath.Clean(p)
	var rest []string
	for d := p; ; d = filepath.Dir(d) {
		if r, err := filepath.EvalSymlinks(d); err == nil {
			slices.Reverse(rest)
			return filepath.Join(append([]string{r}, rest...)...)
		}
		if filepath.Dir(d) == d {
			return p
		}
		rest = append(rest, filepath.Base(d))
	}
}

// updatePath brings the snapshot's entry for the slash path rel up to
// date, reading nothing else.
func (sc *scanner) updatePath(ctx context.Context, rel string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	comps := ignore.Components(rel)
	for i := range comps {
		if ignore.Skipped(comps[i]) || sc.s.excluded[strings.Join(comps[:i+1], "/")] {
			return nil
		}
	}
	n := sc.s.root
	for _, c := range comps[:len(comps)-1] {
		i, ok := n.find(c)
		if !ok {
			// A directory the last scan did not have: the whole of it is
			// new.
			return sc.updateEntry(ctx, n, c)
		}
		if n.children[i] == nil {
			return nil // a file or link where the path has a directory: not a path the snapshot holds
		}
		n = n.children[i]
	}
	name := comps[len(comps)-1]
	if name == ".gitignore" {
		// The rules of the directory changed: all of it is read again.
		parent, i, _ := sc.s.lookup(n.rel)
		fresh := &dirNode{rel: n.rel}
		if err := sc.walk(ctx, fresh, sc.s.abs(n.rel), n.inherited, nil); err != nil {
			return err
		}
		sc.replace(parent, i, fresh)
		sc.collect(fresh)
		return nil
	}
	return sc.updateEntry(ctx, n, name)
}

// updateEntry brings n's entry called name up to date with the disk.
func (sc *scanner) updateEntry(ctx context.Context, n *dirNode, name string) error {
	sc.s.unbuild(n.rel)
	p := n.path(name)
	abs := sc.s.abs(p)
	i, present := n.find(name)
	remove := func() {
		if present {
			n.entries = slices.Delete(n.entries, i, i+1)
			n.children = slices.Delete(n.children, i, i+1)
			delete(n.idx, name)
			present = false
		}
		n.oversize = slices.DeleteFunc(n.oversize, func(s string) bool { return s == p })
		n.unreadable = slices.DeleteFunc(n.unreadable, func(s string) bool { return s == p || s == p+"/" })
	}
	set := func(e entry, child *dirNode) {
		if !present {
			i, _ = n.find(name)
			n.entries = slices.Insert(n.entries, i, e)
			n.children = slices.Insert(n.children, i, child)
			present = true
			return
		}
		n.entries[i], n.children[i] = e, child
	}
	fi, err := os.Lstat(abs)
	sc.statted.Add(1)
	if err != nil {
		remove()
		if !errors.Is(err, fs.ErrNotExist) {
			n.unreadable = append(n.unreadable, p)
		}
		return nil
	}
	typ := fi.Mode().Type()
	match := append(append(slices.Clip(sc.ign.comps), ignore.Components(n.rel)...), name)
	if n.rules.Match(match, typ.IsDir()) {
		remove()
		return nil
	}
	switch {
	case typ.IsDir():
		if present && n.children[i] != nil {
			return nil // a directory still: what is in it is not this path
		}
		remove()
		c := &dirNode{rel: p}
		if err := sc.walk(ctx, c, abs, n.rules, nil); err != nil {
			return err
		}
		set(entry{name: name, mode: fs.ModeDir | 0o755}, c)
		sc.collect(c)
	case typ&fs.ModeSymlink != 0:
		remove()
		e, err := sc.link(abs, name)
		if errors.Is(err, errSkip) {
			n.unreadable = append(n.unreadable, p)
			return nil
		}
		if err != nil {
			return err
		}
		set(e, nil)
	case typ.IsRegular():
		st := statOf(fi)
		old, known := n.idx[name]
		remove()
		if st.size > sc.s.maxFileBytes {
			n.oversize = append(n.oversize, p)
			return nil
		}
		e := entry{name: name, mode: st.mode, size: st.size}
		if known && !old.racy && old.stat == st {
			e.hash = old.hash
			if old.lazy {
				e.mode |= lazyMode
			}
			if n.idx == nil {
				n.idx = map[string]indexed{}
			}
			n.idx[name] = old
			set(e, nil)
			return nil
		}
		set(e, nil)
		if n.idx == nil {
			n.idx = map[string]indexed{}
		}
		sc.todo = append(sc.todo, pending{node: n, name: name})
	default:
		remove() // a device, pipe or socket now
	}
	return nil
}

// identity stands for a file's content until it is read: the hash of its
// path and stat, which change whenever the content does (see
// capture.go).
func identity(rel string, st fileStat) hash {
	var buf [512]byte // on the stack for all but long paths
	b := buf[:0]
	b = append(b, "dev file by stat\x00"...)
	b = append(b, rel...)
	b = append(b, 0)
	b = binary.AppendVarint(b, st.size)
	b = binary.AppendVarint(b, st.mtime)
	b = binary.AppendVarint(b, st.ctime)
	b = binary.AppendUvarint(b, st.ino)
	b = binary.AppendUvarint(b, uint64(st.mode))
	return sha256.Sum256(b)
}

// hashAll reads, hashes and stores the queued files, on every CPU.
func (sc *scanner) hashAll(ctx context.Context) error {
	if len(sc.todo) == 0 {
		return nil
	}
	type result struct {
		st   fileStat
		hash hash
		skip string // "oversize", "unreadable", "gone"
		err  error
	}
	// Entries are found by name before any is left out (named ""), while
	// each directory's are sorted.
	at := make([]int, len(sc.todo))
	for i, p := range sc.todo {
		at[i], _ = p.node.find(p.name)
	}
	results := make([]result, len(sc.todo))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(sc.todo)) {
		wg.Go(func() {
			var buf []byte
			for i := range next {
				p := sc.todo[i]
				r := &results[i]
				data, fi, err := sc.s.readFile(sc.s.abs(p.node.path(p.name)), buf)
				switch {
				case errors.Is(err, fs.ErrNotExist):
					r.skip = "gone"
				case errors.Is(err, errTooLarge):
					r.skip = "oversize"
				case err != nil:
					r.skip = "unreadable"
				default:
					r.st = statOf(fi)
					r.hash = sha256.Sum256(data)
					r.err = sc.store(r.hash, data)
					buf = data // stored as an encoded copy: the buffer serves again
				}
			}
		})
	}
	func() {
		defer close(next)
		for i := range sc.todo {
			if ctx.Err() != nil {
				return
			}
			next <- i
		}
	}()
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return err
	}
	hashedAt := sc.s.now()
	for i, p := range sc.todo {
		r := results[i]
		if r.err != nil {
			return r.err
		}
		e := &p.node.entries[at[i]]
		switch r.skip {
		case "":
			e.hash, e.size, e.mode = r.hash, r.st.size, r.st.mode
			p.node.idx[e.name] = indexed{stat: r.st, hash: r.hash, racy: isRacy(r.st, hashedAt)}
			sc.res.Hashed++
			continue
		case "oversize":
			p.node.oversize = append(p.node.oversize, p.node.path(e.name))
		case "unreadable":
			p.node.unreadable = append(p.node.unreadable, p.node.path(e.name))
		}
		delete(p.node.idx, e.name)
		e.name = "" // left out
	}
	return nil
}

var errTooLarge = errors.New("larger than the checkpoint size cap")

// readFile reads a file the scan saw as regular and no larger than the
// cap, checking both again on the open file, into buf.
func (s *Store) readFile(p string, buf []byte) ([]byte, fs.FileInfo, error) {
	f, err := openFile(p)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, nil, fs.ErrNotExist // replaced since the scan by something a checkpoint does not hold
	}
	if fi.Size() > s.maxFileBytes {
		return nil, nil, errTooLarge
	}
	if int64(cap(buf)) < fi.Size()+1 {
		buf = make([]byte, 0, fi.Size()+1)
	}
	data, err := readAllInto(f, buf[:0], s.maxFileBytes)
	if err != nil {
		return nil, nil, err
	}
	return data, fi, nil
}

// readAllInto reads r to its end into buf, failing past limit bytes (a file
// that grows while it is read).
func readAllInto(r io.Reader, buf []byte, limit int64) ([]byte, error) {
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if int64(len(buf)) > limit {
			return nil, errTooLarge
		}
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
	}
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
