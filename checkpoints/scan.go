package checkpoints

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/devagent/dev/ignore"
)

// Scan is what a snapshot of the working directory found.
type Scan struct {
	Tree   ID    // the snapshot: the working directory's root tree
	Files  int   // files and symbolic links in it
	Bytes  int64 // their size
	Hashed int   // files read because their stat was new or changed
	// Oversize are the files larger than the size cap, left out.
	Oversize []string
	// Unreadable are the files and directories that could not be read,
	// left out.
	Unreadable []string
}

// dirent is an entry of a directory as readDir lists it: its type, and
// for a regular file its stat.
type dirent struct {
	name    string
	typ     fs.FileMode // the type bits only
	st      fileStat
	statErr error
}

// dirNode is a directory of a scan: its entries as read (sorted by
// name), for each subdirectory its node, and what the walk found there.
type dirNode struct {
	rel      string // slash path from the working directory, "" for it
	entries  []entry
	children []*dirNode // children[i] is entries[i]'s node when it is a directory
	// idx is the directory's part of the new index; todo are the
	// entries whose content must be read.
	idx                  map[string]indexed
	todo                 []int
	oversize, unreadable []string
}

func (n *dirNode) path(name string) string {
	if n.rel == "" {
		return name
	}
	return n.rel + "/" + name
}

// pending is a file whose content must be read.
type pending struct {
	node *dirNode
	i    int
}

// scanner is one scan's state.
type scanner struct {
	s     *Store
	fsys  fs.FS // the git work tree holding the working directory, for .gitignore files
	start string
	comps []string // of start
	old   index    // the index before the scan
	// spare holds a token per CPU beyond the first: a walk with a spare
	// token reads a subdirectory on a goroutine of its own.
	spare chan struct{}
	todo  []pending
	// files and bytes count what the walk keeps, against the caps.
	files, bytes atomic.Int64
	// pack receives the new objects when there are many (nil: one file
	// each).
	pack *packWriter
	res  Scan
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

// scan snapshots the working directory: it stores what is new and
// returns the root tree. s.mu is held.
func (s *Store) scan(ctx context.Context) (Scan, error) {
	if s.idx == nil {
		s.idx = loadIndex(s.indexPath())
	}
	fsys, start, rules := ignore.Open(s.workDir)
	sc := &scanner{s: s, fsys: fsys, start: start, comps: ignore.Components(start), old: s.idx,
		spare: make(chan struct{}, runtime.GOMAXPROCS(0)-1)}
	root := &dirNode{}
	err := sc.walk(ctx, root, s.workDir, rules)
	if err != nil {
		return Scan{}, err
	}
	idx := index{}
	sc.collect(root, idx)
	if len(sc.todo) >= packThreshold {
		if sc.pack, err = s.obj.newPack(); err != nil {
			return Scan{}, err
		}
	}
	h, err := sc.hashAndBuild(ctx, root)
	if err != nil {
		return Scan{}, err
	}
	sc.res.Tree = h.id()
	slices.Sort(sc.res.Oversize)
	slices.Sort(sc.res.Unreadable)
	dirty := len(sc.todo) > 0 || len(idx) != len(sc.old)
	for dir, m := range idx {
		if old, ok := sc.old[dir]; !ok || len(old) != len(m) {
			dirty = true
		}
	}
	s.idx = idx
	if dirty {
		// The index only saves work; a scan that cannot save it is
		// still a good scan.
		if err := os.MkdirAll(s.dir, 0o700); err == nil {
			_ = idx.save(s.indexPath())
		}
	}
	return sc.res, nil
}

// hashAndBuild stores the files to read and the trees, and returns the
// root tree's hash; a pack is committed or dropped.
func (sc *scanner) hashAndBuild(ctx context.Context, root *dirNode) (hash, error) {
	err := sc.hashAll(ctx)
	var h hash
	if err == nil {
		h, _, err = sc.build(root)
	}
	if sc.pack != nil {
		if err != nil {
			sc.pack.abort()
		} else {
			err = sc.pack.commit()
		}
	}
	return h, err
}

// walk reads the directory abs (n.rel from the working directory) and
// everything below it that a snapshot keeps, taking the hash of every
// file whose stat is in the index and noting the others in n.todo.
// Subdirectories are read on other goroutines while CPUs are spare.
func (sc *scanner) walk(ctx context.Context, n *dirNode, abs string, rules *ignore.Rules) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	list, err := readDir(abs)
	if err != nil {
		if n.rel == "" {
			return fmt.Errorf("snapshot %s: %w", sc.s.workDir, err)
		}
		// What could be read of it is kept; a restore never deletes what
		// a snapshot did not see.
		n.unreadable = append(n.unreadable, n.rel+"/")
	}
	comps := append(slices.Clip(sc.comps), ignore.Components(n.rel)...)
	for _, e := range list {
		if e.name == ".gitignore" && e.typ.IsRegular() && e.statErr == nil {
			rules = rules.ReadFile(sc.fsys, path.Join(sc.start, n.rel, ".gitignore"), comps)
		}
	}
	old := sc.old[n.rel]
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
			c := &dirNode{rel: n.path(name)}
			n.entries = append(n.entries, entry{name: name, mode: fs.ModeDir | 0o755})
			n.children = append(n.children, c)
			childAbs := filepath.Join(abs, name)
			select {
			case sc.spare <- struct{}{}:
				wg.Go(func() {
					defer func() { <-sc.spare }()
					if err := sc.walk(ctx, c, childAbs, rules); err != nil {
						errMu.Lock()
						errs = append(errs, err)
						errMu.Unlock()
					}
				})
			default:
				if err := sc.walk(ctx, c, childAbs, rules); err != nil {
					wg.Wait()
					return err
				}
			}
			continue
		case e.typ&fs.ModeSymlink != 0:
			target, err := os.Readlink(filepath.Join(abs, name))
			if err != nil {
				n.unreadable = append(n.unreadable, n.path(name))
				continue
			}
			err = sc.count(int64(len(target)))
			var h hash
			if err == nil {
				h, err = sc.s.obj.put([]byte(target))
			}
			if err != nil {
				wg.Wait()
				return err
			}
			n.entries = append(n.entries, entry{name: name, mode: fs.ModeSymlink | 0o777, size: int64(len(target)), hash: h})
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
			if o, ok := old[name]; ok && !o.racy && o.stat == st {
				en.hash = o.hash
			} else {
				reuse = false
				n.todo = append(n.todo, len(n.entries))
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
	if reuse && files == len(old) {
		n.idx = old
		return nil
	}
	n.idx = make(map[string]indexed, files)
	for i, e := range n.entries {
		if n.children[i] == nil && e.mode&fs.ModeSymlink == 0 && !slices.Contains(n.todo, i) {
			n.idx[e.name] = old[e.name]
		}
	}
	return nil
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

// collect gathers what the walk found below n: the new index, the files to
// read and those left out.
func (sc *scanner) collect(n *dirNode, idx index) {
	if len(n.idx) > 0 || len(n.todo) > 0 {
		idx[n.rel] = n.idx
	}
	for _, i := range n.todo {
		sc.todo = append(sc.todo, pending{node: n, i: i})
	}
	sc.res.Oversize = append(sc.res.Oversize, n.oversize...)
	sc.res.Unreadable = append(sc.res.Unreadable, n.unreadable...)
	for _, c := range n.children {
		if c != nil {
			sc.collect(c, idx)
		}
	}
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
	results := make([]result, len(sc.todo))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(sc.todo)) {
		wg.Go(func() {
			for i := range next {
				p := sc.todo[i]
				r := &results[i]
				data, fi, err := sc.s.readFile(filepath.Join(sc.s.workDir, filepath.FromSlash(p.node.path(p.node.entries[p.i].name))))
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
		e := &p.node.entries[p.i]
		switch r.skip {
		case "":
			e.hash, e.size, e.mode = r.hash, r.st.size, r.st.mode
			p.node.idx[e.name] = indexed{stat: r.st, hash: r.hash, racy: isRacy(r.st, hashedAt)}
			sc.res.Hashed++
			continue
		case "oversize":
			sc.res.Oversize = append(sc.res.Oversize, p.node.path(e.name))
		case "unreadable":
			sc.res.Unreadable = append(sc.res.Unreadable, p.node.path(e.name))
		}
		e.name = "" // left out
	}
	return nil
}

var errTooLarge = errors.New("larger than the checkpoint size cap")

// readFile reads a file the scan saw as regular and no larger than the
// cap, checking both again on the open file.
func (s *Store) readFile(p string) ([]byte, fs.FileInfo, error) {
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
	data := make([]byte, 0, fi.Size()+1)
	data, err = readAllInto(f, data, s.maxFileBytes)
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

// build stores the trees of n and below, bottom-up, and returns n's hash;
// empty reports a directory holding nothing a snapshot keeps, which is
// left out of its parent as git leaves it out.
func (sc *scanner) build(n *dirNode) (h hash, empty bool, err error) {
	kept := n.entries[:0]
	for i, e := range n.entries {
		if e.name == "" {
			continue
		}
		if c := n.children[i]; c != nil {
			var empty bool
			e.hash, empty, err = sc.build(c)
			if err != nil {
				return h, false, err
			}
			if empty {
				continue
			}
		} else {
			sc.res.Files++
			sc.res.Bytes += e.size
		}
		kept = append(kept, e)
	}
	data := encodeTree(kept)
	h = sha256.Sum256(data)
	if err := sc.store(h, data); err != nil {
		return h, false, err
	}
	return h, len(kept) == 0, nil
}
