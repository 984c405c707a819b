package checkpoints

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"

	"golang.org/x/sync/errgroup"

	"github.com/devagent/dev/ignore"
)

// The walk reads a directory and everything below it that a snapshot
// keeps into a tree of dirNodes: walk fans the subdirectories out over
// the spare CPUs, walkDir reads one directory, and a dirRead adds its
// entries one by one (addDir, addLink, addFile), then sets its part of
// the index. Files whose stat the index does not know are queued in their
// node's todo, for the hash pool (hash.go).

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

// walk reads the directory abs (n.rel from the working directory) into
// n, and everything below it that a snapshot keeps, as walkDir does, and
// returns when all of it is read. rules are those in force above it; old
// is the directory as the last scan saw it, or nil (see walkDir).
//
// Subdirectories are read on other goroutines while CPUs are spare: the
// group is limited to one goroutine per CPU beyond this one, and a
// directory that finds it full reads its subdirectory itself. The first
// of those goroutines to fail cancels the context the others read under:
// the scan fails, and they stop.
func (sc *scanner) walk(ctx context.Context, n *dirNode, abs string, rules *ignore.Rules, old *dirNode) error {
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(runtime.GOMAXPROCS(0) - 1)
	err := sc.walkDir(gctx, g, n, abs, rules, old)
	if gerr := g.Wait(); gerr != nil {
		return gerr // the cause, where err may be the cancellation it caused
	}
	return err
}

// walkDir reads the directory abs into n, taking the hash of every file
// whose stat is in the index and noting the others in n.todo, and reads
// each subdirectory on a goroutine of g, or itself when g is full. rules
// are those in force above it. old, when set, is the directory as the
// last scan saw it: its subdirectories are kept as they were, unless the
// watcher no longer watches one (it was replaced) or the directory's
// .gitignore changed.
func (sc *scanner) walkDir(ctx context.Context, g *errgroup.Group, n *dirNode, abs string, rules *ignore.Rules, old *dirNode) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	n.inherited = rules
	list, err := sc.list(n, abs)
	if err != nil {
		return err
	}
	d := &dirRead{sc: sc, g: g, n: n, abs: abs, listed: len(list), oldIdx: sc.old[n.rel], reuse: true}
	comps := append(slices.Clip(sc.ign.comps), ignore.Components(n.rel)...)
	n.rules, d.old = d.rules(list, rules, comps, old)
	d.match = append(slices.Clip(comps), "")
	n.entries, n.children = make([]entry, 0, len(list)), make([]*dirNode, 0, len(list))
	for _, e := range list {
		if err := d.add(ctx, e); err != nil {
			return err
		}
	}
	d.index()
	return nil
}

// list lists the directory abs, n's, watching it first. A directory
// that cannot be read is listed as far as it could be, and noted as
// unreadable; the working directory must be read.
func (sc *scanner) list(n *dirNode, abs string) ([]dirent, error) {
	sc.watchDir(n.rel, abs)
	list, err := readDir(abs)
	sc.statted.Add(int64(len(list)))
	if err != nil {
		if n.rel == "" {
			return nil, fmt.Errorf("snapshot %s: %w", sc.s.workDir, err)
		}
		// What could be read of it is kept; a restore never deletes what
		// a snapshot did not see.
		n.unreadable = append(n.unreadable, n.rel+"/")
	}
	return list, nil
}

// dirRead is the reading of one directory by walkDir.
type dirRead struct {
	sc     *scanner
	g      *errgroup.Group
	n      *dirNode
	abs    string
	listed int // names in the listing
	// old is the directory as the last scan saw it, whose subdirectories
	// are kept (nil: all are read again); oldIdx is its index before
	// the scan.
	old    *dirNode
	oldIdx map[string]indexed
	// match is the path of an entry as the rules match it: the
	// components of the directory's, then the entry's name.
	match []string
	// reuse: every file's entry in oldIdx still holds, so far.
	reuse bool
}

// rules returns the rules in force for the directory's entries, those
// above it and its .gitignore's, and old, unless the .gitignore changed
// or went since the last scan: what was kept below old may no longer be
// what the rules keep, so it is nil then.
func (d *dirRead) rules(list []dirent, rules *ignore.Rules, comps []string, old *dirNode) (*ignore.Rules, *dirNode) {
	ign := d.sc.ign
	hasIgnore := false
	for _, e := range list {
		if e.name == ".gitignore" && e.typ.IsRegular() && e.statErr == nil {
			hasIgnore = true
			rules = rules.ReadFile(ign.fsys, path.Join(ign.start, d.n.rel, ".gitignore"), comps)
			if o, ok := d.oldIdx[".gitignore"]; !ok || o.racy || o.stat != e.st {
				old = nil // other rules
			}
			break
		}
	}
	if _, had := d.oldIdx[".gitignore"]; had && !hasIgnore {
		old = nil // the .gitignore is gone
	}
	return rules, old
}

// add adds the listed entry e to the directory, unless a snapshot leaves
// it out.
func (d *dirRead) add(ctx context.Context, e dirent) error {
	if d.leftOut(e) {
		return nil
	}
	switch {
	case e.typ.IsDir():
		return d.addDir(ctx, e.name)
	case e.typ&fs.ModeSymlink != 0:
		return d.addLink(e.name)
	case e.typ.IsRegular():
		return d.addFile(e.name, e.st)
	}
	return nil // devices, pipes, sockets: not files a checkpoint can hold
}

// leftOut says whether a snapshot leaves e out: a name it never keeps
// (.git), an excluded path, an entry whose stat failed (noted as
// unreadable, unless it is gone since it was listed), or one the rules
// ignore.
func (d *dirRead) leftOut(e dirent) bool {
	n, excluded := d.n, d.sc.s.excluded
	if ignore.Skipped(e.name) || len(excluded) > 0 && excluded[n.path(e.name)] {
		return true
	}
	if e.statErr != nil {
		if !errors.Is(e.statErr, fs.ErrNotExist) {
			n.unreadable = append(n.unreadable, n.path(e.name))
		}
		return true
	}
	d.match[len(d.match)-1] = e.name
	return n.rules.Match(d.match, e.typ.IsDir())
}

// put appends an entry to the directory, and child, its node when it is
// a directory.
func (d *dirRead) put(e entry, child *dirNode) {
	d.n.entries = append(d.n.entries, e)
	d.n.children = append(d.n.children, child)
}

// addDir adds the subdirectory name: the last scan's node for it while
// the watcher watches it, else a node read now, on a goroutine of the
// group when it has room.
func (d *dirRead) addDir(ctx context.Context, name string) error {
	e := entry{name: name, mode: fs.ModeDir | 0o755}
	if old := d.old; old != nil {
		if i, ok := old.find(name); ok && old.children[i] != nil && d.sc.watch.Load().watching(old.children[i].rel) {
			d.put(e, old.children[i])
			return nil
		}
	}
	c := &dirNode{rel: d.n.path(name)}
	d.put(e, c)
	sc, g, abs, rules := d.sc, d.g, filepath.Join(d.abs, name), d.n.rules
	walk := func() error { return sc.walkDir(ctx, g, c, abs, rules, nil) }
	if g.TryGo(walk) {
		return nil
	}
	return walk()
}

// addLink adds the symbolic link name, noted as unreadable when its
// target cannot be read.
func (d *dirRead) addLink(name string) error {
	e, err := d.sc.link(filepath.Join(d.abs, name), name)
	if errors.Is(err, errSkip) {
		d.n.unreadable = append(d.n.unreadable, d.n.path(name))
		return nil
	}
	if err != nil {
		return err
	}
	d.put(e, nil)
	return nil
}

// addFile adds the regular file name, whose stat is st, unless it is
// over the size cap (noted as oversize), and counts it against the
// snapshot's caps. Its hash is the index's when the index knows its stat;
// else, when the scan may record it by its stat, its identity; else it
// is queued in n.todo, to be read.
func (d *dirRead) addFile(name string, st fileStat) error {
	n, sc := d.n, d.sc
	if st.size > sc.s.maxFileBytes {
		n.oversize = append(n.oversize, n.path(name))
		return nil
	}
	if err := sc.count(st.size); err != nil {
		return err
	}
	e := entry{name: name, mode: st.mode, size: st.size}
	switch o, ok := d.oldIdx[name]; {
	case ok && !o.racy && o.stat == st:
		e.hash = o.hash
		if o.lazy {
			e.mode |= lazyMode
		}
	case sc.byStat(st):
		d.reuse = false
		e.hash, e.mode = identity(n.path(name), st), e.mode|lazyMode
		if n.idx == nil {
			n.idx = make(map[string]indexed, d.listed)
		}
		n.idx[name] = indexed{stat: st, hash: e.hash, lazy: true}
	default:
		d.reuse = false
		n.todo = append(n.todo, len(n.entries))
	}
	d.put(e, nil)
	return nil
}

// byStat says whether a file whose stat is st may be recorded by it and
// read later (see capture.go): in a lazy scan, unless it is racy or its
// inode changed within a clock tick or so of the scan's start.
func (sc *scanner) byStat(st fileStat) bool {
	return sc.lazy && !isRacy(st, sc.when) && st.ctime <= sc.when.Add(-ctimeTick).UnixNano()
}

// index sets the directory's part of the index once its entries are
// added: the last scan's as it is when every file's entry in it still
// holds, else the files recorded by their stat and those whose stat the
// last scan's holds. Queued files get theirs when read.
func (d *dirRead) index() {
	n := d.n
	files := 0
	for i := range n.entries {
		if n.children[i] == nil && n.entries[i].mode&fs.ModeSymlink == 0 {
			files++
		}
	}
	if d.reuse && files == len(d.oldIdx) {
		n.idx = d.oldIdx
		return
	}
	lazy := n.idx
	if len(d.oldIdx) == 0 && len(lazy) == files {
		return // all recorded by their stat (a first scan): n.idx is whole
	}
	n.idx = make(map[string]indexed, files)
	for i, e := range n.entries {
		if n.children[i] != nil || e.mode&fs.ModeSymlink != 0 || slices.Contains(n.todo, i) {
			continue
		}
		if l, ok := lazy[e.name]; ok {
			n.idx[e.name] = l
		} else {
			n.idx[e.name] = d.oldIdx[e.name]
		}
	}
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
