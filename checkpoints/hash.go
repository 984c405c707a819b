package checkpoints

import (
	"context"
	"crypto/sha256"
	"errors"
	"io/fs"
	"runtime"
	"sync/atomic"

	"golang.org/x/sync/errgroup"
)

// The hash pool: the files a walk or a look could not take from the
// index are queued (collect), then read, hashed and stored on every CPU
// (hashFiles), and what was found is put in their entries and the index
// in the order they were queued (record).

// pending is a file whose content must be read: n's entry called name.
type pending struct {
	node *dirNode
	name string
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

// hashed is what reading a queued file found.
type hashed struct {
	st   fileStat
	hash hash
	skip string // "oversize", "unreadable", "gone"; "": read and stored
}

// hashAll reads, hashes and stores the queued files, on every CPU.
func (sc *scanner) hashAll(ctx context.Context) error {
	if len(sc.todo) == 0 {
		return nil
	}
	// Entries are found by name before any is left out (named ""), while
	// each directory's are sorted.
	at := make([]int, len(sc.todo))
	for i, p := range sc.todo {
		at[i], _ = p.node.find(p.name)
	}
	results := make([]hashed, len(sc.todo))
	if err := sc.hashFiles(ctx, results); err != nil {
		return err
	}
	sc.record(results, at)
	return nil
}

// hashFiles reads the queued files into results, a worker per CPU taking
// the next file in turn into a buffer of its own, which serves again. The
// first failure to store a file stops the others.
func (sc *scanner) hashFiles(ctx context.Context, results []hashed) error {
	g, gctx := errgroup.WithContext(ctx)
	var next atomic.Int64
	for range min(runtime.GOMAXPROCS(0), len(sc.todo)) {
		g.Go(func() error {
			var buf []byte
			for gctx.Err() == nil {
				i := int(next.Add(1) - 1)
				if i >= len(sc.todo) {
					return nil
				}
				var err error
				if buf, err = sc.hashFile(sc.todo[i], &results[i], buf); err != nil {
					return err
				}
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	return ctx.Err()
}

// hashFile reads the queued file p into buf, and stores it, saying in r
// what it found; it returns the buffer to read the next file into.
func (sc *scanner) hashFile(p pending, r *hashed, buf []byte) ([]byte, error) {
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
		// Stored as an encoded copy: the buffer serves again.
		return data, sc.store(r.hash, data)
	}
	return buf, nil
}

// record puts what reading the queued files found into their entries
// (at[i] is the i-th's position in its node) and the index. A file that
// could not be read is left out of its tree (named "", for build to
// drop), and noted when it is oversize or unreadable.
func (sc *scanner) record(results []hashed, at []int) {
	hashedAt := sc.s.now()
	for i, p := range sc.todo {
		r := results[i]
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
}
