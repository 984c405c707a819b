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

// dirNode is a directory of a scan: its entries as read (sorted by
// name), and for each subdirectory its node.
type dirNode struct {
	entries  []entry
	children []*dirNode // children[i] is entries[i]'s node when it is a directory
}

// pending is a file whose content must be read.
type pending struct {
	node *dirNode
	i    int
	rel  string
}

// scanner is one scan's state.
type scanner struct {
	s        *Store
	fsys     fs.FS // the git work tree holding the working directory, for .gitignore files
	start    string
	comps    []string // of start
	old, idx index    // the index before the scan, and as the scan leaves it
	todo     []pending
	res      Scan
}

// scan snapshots the working directory: it stores what is new and
// returns the root tree. s.mu is held.
func (s *Store) scan(ctx context.Context) (Scan, error) {
	if s.idx == nil {
		s.idx = loadIndex(s.indexPath())
	}
	fsys, start, rules := ignore.Open(s.workDir)
	sc := &scanner{s: s, fsys: fsys, start: start, comps: ignore.Components(start), old: s.idx, idx: make(index, len(s.idx))}
	root, err := sc.walk(ctx, s.workDir, "", rules)
	if err != nil {
		return Scan{}, err
	}
	if err := sc.hashAll(ctx); err != nil {
		return Scan{}, err
	}
	h, _, err := sc.build(root)
	if err != nil {
		return Scan{}, err
	}
	sc.res.Tree = h.id()
	dirty := len(sc.todo) > 0 || len(sc.idx) != len(sc.old)
	s.idx = sc.idx
	if dirty {
		// The index only saves work; a scan that cannot save it is
		// still a good scan.
		if err := os.MkdirAll(s.dir, 0o700); err == nil {
			_ = sc.idx.save(s.indexPath())
		}
	}
	return sc.res, nil
}

// walk reads the directory abs (rel from the working directory) and
// everything below it that a snapshot keeps, taking the hash of every
// file whose stat is in the index and queueing the others.
func (sc *scanner) walk(ctx context.Context, abs, rel string, rules *ignore.Rules) (*dirNode, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	n := &dirNode{}
	list, err := os.ReadDir(abs)
	if err != nil {
		if rel == "" {
			return nil, fmt.Errorf("snapshot %s: %w", sc.s.workDir, err)
		}
		// What could be read of it is kept; a restore never deletes what
		// a snapshot did not see.
		sc.res.Unreadable = append(sc.res.Unreadable, rel+"/")
	}
	comps := append(slices.Clip(sc.comps), ignore.Components(rel)...)
	for _, e := range list {
		if e.Name() == ".gitignore" && !e.IsDir() {
			rules = rules.ReadFile(sc.fsys, path.Join(sc.start, rel, ".gitignore"), comps)
		}
	}
	for _, e := range list {
		name := e.Name()
		if ignore.Skipped(name) {
			continue
		}
		childRel := name
		if rel != "" {
			childRel = rel + "/" + name
		}
		if sc.s.excluded[childRel] {
			continue
		}
		typ := e.Type()
		if rules.Match(append(slices.Clip(comps), name), typ.IsDir()) {
			continue
		}
		childAbs := filepath.Join(abs, name)
		switch {
		case typ.IsDir():
			c, err := sc.walk(ctx, childAbs, childRel, rules)
			if err != nil {
				return nil, err
			}
			n.entries = append(n.entries, entry{name: name, mode: fs.ModeDir | 0o755})
			n.children = append(n.children, c)
			continue
		case typ&fs.ModeSymlink != 0:
			target, err := os.Readlink(childAbs)
			if err != nil {
				sc.res.Unreadable = append(sc.res.Unreadable, childRel)
				continue
			}
			h, err := sc.s.obj.put([]byte(target))
			if err != nil {
				return nil, err
			}
			n.entries = append(n.entries, entry{name: name, mode: fs.ModeSymlink | 0o777, size: int64(len(target)), hash: h})
		case typ.IsRegular():
			fi, err := e.Info()
			if err != nil {
				if !errors.Is(err, fs.ErrNotExist) {
					sc.res.Unreadable = append(sc.res.Unreadable, childRel)
				}
				continue
			}
			if fi.Size() > sc.s.maxFileBytes {
				sc.res.Oversize = append(sc.res.Oversize, childRel)
				continue
			}
			st := statOf(fi)
			en := entry{name: name, mode: st.mode, size: st.size}
			if old, ok := sc.old[childRel]; ok && !old.racy && old.stat == st {
				en.hash = old.hash
				sc.idx[childRel] = old
			} else {
				sc.todo = append(sc.todo, pending{node: n, i: len(n.entries), rel: childRel})
			}
			n.entries = append(n.entries, en)
		default:
			continue // devices, pipes, sockets: not files a checkpoint can hold
		}
		n.children = append(n.children, nil)
	}
	return n, nil
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
				data, fi, err := sc.s.readFile(filepath.Join(sc.s.workDir, filepath.FromSlash(p.rel)))
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
					if !sc.s.obj.has(r.hash) {
						r.err = sc.s.obj.write(r.hash, data)
					}
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
			sc.idx[p.rel] = indexed{stat: r.st, hash: r.hash, racy: isRacy(r.st, hashedAt)}
			sc.res.Hashed++
			continue
		case "oversize":
			sc.res.Oversize = append(sc.res.Oversize, p.rel)
		case "unreadable":
			sc.res.Unreadable = append(sc.res.Unreadable, p.rel)
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
	if !sc.s.obj.has(h) {
		if err := sc.s.obj.write(h, data); err != nil {
			return h, false, err
		}
	}
	return h, len(kept) == 0, nil
}
