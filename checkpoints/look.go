package checkpoints

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/devagent/dev/ignore"
)

// The incremental look: a snapshot that does not read every directory
// starts from the tree of nodes the last one kept, and reads again only
// where something changed, as the watcher says (relist: each directory
// where it saw a change) or as the caller says (updatePaths: the files a
// file tool wrote, one entry each). A node read again replaces the kept
// one, and the trees above it are built again; the rest is kept as it is.

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
		if err := sc.reread(ctx, parent, i, node, node); err != nil {
			return err
		}
	}
	return nil
}

// reread reads the kept node's directory again into a new node in its
// place, parent's i-th child, keeping old's subdirectories as walk does
// (old nil: reading everything below it again), and queues its files.
func (sc *scanner) reread(ctx context.Context, parent *dirNode, i int, node, old *dirNode) error {
	fresh := &dirNode{rel: node.rel}
	if err := sc.walk(ctx, fresh, sc.s.abs(node.rel), node.inherited, old); err != nil {
		return err
	}
	sc.replace(parent, i, fresh)
	sc.collect(fresh)
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
		return sc.reread(ctx, parent, i, n, nil)
	}
	return sc.updateEntry(ctx, n, name)
}

// updateEntry brings n's entry called name up to date with the disk.
func (sc *scanner) updateEntry(ctx context.Context, n *dirNode, name string) error {
	sc.s.unbuild(n.rel)
	sl := n.slot(name)
	abs := sc.s.abs(sl.p)
	fi, err := os.Lstat(abs)
	sc.statted.Add(1)
	if err != nil {
		sl.remove()
		if !errors.Is(err, fs.ErrNotExist) {
			n.unreadable = append(n.unreadable, sl.p)
		}
		return nil
	}
	typ := fi.Mode().Type()
	match := append(append(slices.Clip(sc.ign.comps), ignore.Components(n.rel)...), name)
	switch {
	case n.rules.Match(match, typ.IsDir()):
		sl.remove()
	case typ.IsDir():
		return sc.updateDir(ctx, sl, abs)
	case typ&fs.ModeSymlink != 0:
		return sc.updateLink(sl, abs)
	case typ.IsRegular():
		sc.updateFile(sl, statOf(fi))
	default:
		sl.remove() // a device, pipe or socket now
	}
	return nil
}

// updateDir brings the slot up to date with the directory at abs: one
// the snapshot has stays as it is, and one it has not is read.
func (sc *scanner) updateDir(ctx context.Context, sl *slot, abs string) error {
	if sl.present && sl.n.children[sl.i] != nil {
		return nil // a directory still: what is in it is not this path
	}
	sl.remove()
	c := &dirNode{rel: sl.p}
	if err := sc.walk(ctx, c, abs, sl.n.rules, nil); err != nil {
		return err
	}
	sl.set(entry{name: sl.name, mode: fs.ModeDir | 0o755}, c)
	sc.collect(c)
	return nil
}

// updateLink brings the slot up to date with the symbolic link at abs,
// noted as unreadable when its target cannot be read.
func (sc *scanner) updateLink(sl *slot, abs string) error {
	sl.remove()
	e, err := sc.link(abs, sl.name)
	if errors.Is(err, errSkip) {
		sl.n.unreadable = append(sl.n.unreadable, sl.p)
		return nil
	}
	if err != nil {
		return err
	}
	sl.set(e, nil)
	return nil
}

// updateFile brings the slot up to date with the regular file whose stat
// is st: left out (noted) over the size cap; with the hash the index
// holds when it holds that stat; else queued to be read.
func (sc *scanner) updateFile(sl *slot, st fileStat) {
	n := sl.n
	old, known := n.idx[sl.name]
	sl.remove()
	if st.size > sc.s.maxFileBytes {
		n.oversize = append(n.oversize, sl.p)
		return
	}
	e := entry{name: sl.name, mode: st.mode, size: st.size}
	if n.idx == nil {
		n.idx = map[string]indexed{}
	}
	if known && !old.racy && old.stat == st {
		e.hash = old.hash
		if old.lazy {
			e.mode |= lazyMode
		}
		n.idx[sl.name] = old
		sl.set(e, nil)
		return
	}
	sl.set(e, nil)
	sc.todo = append(sc.todo, pending{node: n, name: sl.name})
}

// slot is a directory's entry called name, as updateEntry changes it: at
// position i when present.
type slot struct {
	n       *dirNode
	name, p string // p: its slash path
	i       int
	present bool
}

func (n *dirNode) slot(name string) *slot {
	i, present := n.find(name)
	return &slot{n: n, name: name, p: n.path(name), i: i, present: present}
}

// remove takes the entry out of the directory, and its path out of those
// the directory left out.
func (sl *slot) remove() {
	n := sl.n
	if sl.present {
		n.entries = slices.Delete(n.entries, sl.i, sl.i+1)
		n.children = slices.Delete(n.children, sl.i, sl.i+1)
		delete(n.idx, sl.name)
		sl.present = false
	}
	n.oversize = slices.DeleteFunc(n.oversize, func(s string) bool { return s == sl.p })
	n.unreadable = slices.DeleteFunc(n.unreadable, func(s string) bool { return s == sl.p || s == sl.p+"/" })
}

// set puts e in the slot, and child, its node when it is a directory.
func (sl *slot) set(e entry, child *dirNode) {
	n := sl.n
	if !sl.present {
		sl.i, _ = n.find(sl.name)
		n.entries = slices.Insert(n.entries, sl.i, e)
		n.children = slices.Insert(n.children, sl.i, child)
		sl.present = true
		return
	}
	n.entries[sl.i], n.children[sl.i] = e, child
}
