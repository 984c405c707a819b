package checkpoints

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"io"
	"runtime"
	"sync"
)

// The first snapshot of a session need not read the project: with
// Options.Lazy, a file the store has never seen is recorded by its
// identity (identity: the hash of its path and stat) instead of its
// content's hash, and its content is read afterwards, on a goroutine of
// the store's, while the model thinks. A file's stat changes whenever its
// content does (the inode change time moves even when the modification
// time is set back), so the content read later is the content the
// snapshot saw if, and only if, the file still has the recorded stat when
// it is read: capture checks it before and after reading, and stores the
// content under its hash and, under the identity, a reference to it.
// Files modified within the last seconds (racy, see index.go), or whose
// inode changed within a clock tick or so, are read at once: their stat
// could stay the same across a second write.
//
// So that nothing dev does changes a file before its content is stored,
// the caller calls Protect before any tool that may change the working
// directory runs: it waits for the capture. What something else (the
// user, an editor) changes before the capture reaches it cannot be
// stored: the identity then refers to nothing, Changes reports such a
// file as modified, and a rewind to that snapshot lists it in
// Restore.Lost and leaves it as it is. A store closed before the capture
// ends keeps what it read; the index keeps which files remain, for the
// next store on the session to read before anything changes.

// captureRun is the background capture of a store.
type captureRun struct {
	cancel context.CancelFunc
	done   chan struct{}
}

// lazyFile is a file of the index recorded by its identity and not yet
// read.
type lazyFile struct {
	dir, name string
	stat      fileStat
	id        hash
}

func (f lazyFile) rel() string {
	if f.dir == "" {
		return f.name
	}
	return f.dir + "/" + f.name
}

// countPending counts the index's lazy files whose content is not stored.
// s.mu is held.
func (s *Store) countPending() {
	s.pending = 0
	for _, m := range s.idx {
		for _, e := range m {
			if e.lazy && !e.captured {
				s.pending++
			}
		}
	}
}

// startCapture reads the pending files on a goroutine, unless one does
// already. s.mu is held.
func (s *Store) startCapture() {
	if s.capturing != nil || s.closed || s.pending == 0 || s.holdCapture {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	run := &captureRun{cancel: cancel, done: make(chan struct{})}
	s.capturing = run
	go func() {
		defer close(run.done)
		// A failure leaves the files pending: Protect tries again and
		// reports it.
		_ = s.capture(ctx)
		s.mu.Lock()
		if s.capturing == run {
			s.capturing = nil
		}
		s.mu.Unlock()
		cancel()
	}()
}

// Protect stores the content of every file the checkpoints hold by its
// stat alone: call it before anything may change the working directory.
// It waits for the background capture, then reads what remains (what a
// closed store left, or what the capture could not store). It costs
// nothing once the content is stored.
func (s *Store) Protect(ctx context.Context) error {
	s.mu.Lock()
	run := s.capturing
	s.mu.Unlock()
	if run != nil {
		select {
		case <-run.done:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return s.capture(ctx)
}

// Pending is how many files the checkpoints hold by their stat alone,
// their content not stored yet.
func (s *Store) Pending() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.pending
}

// captureBatch is how many files capture reads into one pack: the
// memory a capture takes beyond the index is a batch's, and what was read
// is kept batch by batch if the store closes before the end.
const captureBatch = 8192

// capture reads the pending files and stores their content, a batch at a
// time.
func (s *Store) capture(ctx context.Context) error {
	s.captureMu.Lock()
	defer s.captureMu.Unlock()
	s.mu.Lock()
	if s.idx == nil {
		s.idx = loadIndex(s.indexPath())
		s.countPending()
	}
	if s.pending == 0 {
		s.mu.Unlock()
		return nil
	}
	dirs := make([]string, 0, len(s.idx))
	for dir := range s.idx {
		dirs = append(dirs, dir)
	}
	s.mu.Unlock()
	var err error
	for len(dirs) > 0 && err == nil {
		// The next batch: whole directories, until it is full.
		todo := make([]lazyFile, 0, captureBatch+256)
		s.mu.Lock()
		for len(dirs) > 0 && len(todo) < captureBatch {
			dir := dirs[0]
			dirs = dirs[1:]
			for name, e := range s.idx[dir] {
				if e.lazy && !e.captured {
					todo = append(todo, lazyFile{dir: dir, name: name, stat: e.stat, id: e.hash})
				}
			}
		}
		s.mu.Unlock()
		if len(todo) > 0 {
			err = s.captureFiles(ctx, todo)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err == nil {
		// Scans that read a pending file since it was counted leave the
		// count high: every file was looked at, none is pending.
		s.pending = 0
	}
	if s.idxChanged > 0 {
		s.saveIndex()
	}
	return err
}

// captureFiles reads and stores the files of a batch, on every CPU, and
// marks them in the index.
func (s *Store) captureFiles(ctx context.Context, todo []lazyFile) error {
	const (
		stored = iota + 1
		lost
	)
	outcome := make([]uint8, len(todo))
	var pack *packWriter
	if len(todo) >= packThreshold {
		var err error
		if pack, err = s.obj.newPack(); err != nil {
			return err
		}
	}
	write := func(h hash, enc []byte) error {
		if pack != nil {
			return pack.addEncoded(h, enc)
		}
		return s.obj.append(h, enc)
	}
	next := make(chan int)
	var wg sync.WaitGroup
	var errOnce sync.Once
	var werr error
	for range min(runtime.GOMAXPROCS(0), len(todo)) {
		wg.Go(func() {
			var buf []byte
			var enc bytes.Buffer
			for i := range next {
				f := todo[i]
				if s.obj.has(f.id) {
					outcome[i] = stored // by an earlier store on the session
					continue
				}
				data, err := s.readAs(s.abs(f.rel()), f.stat, buf)
				if err != nil {
					outcome[i] = lost
					continue
				}
				buf = data
				h := sha256.Sum256(data)
				if !s.obj.has(h) {
					// Written (copied) before the buffer serves again.
					err = write(h, s.obj.encodeTo(&enc, data))
				}
				if err == nil {
					err = write(f.id, aliasEncoding(h))
				}
				if err != nil {
					errOnce.Do(func() { werr = err })
					continue
				}
				outcome[i] = stored
			}
		})
	}
	for i := range todo {
		if ctx.Err() != nil || werr != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	if pack != nil {
		if werr != nil {
			pack.abort()
			clear(outcome)
		} else if err := pack.commit(); err != nil {
			werr = err
			clear(outcome)
		}
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	for i, f := range todo {
		if outcome[i] == 0 {
			continue
		}
		m := s.idx[f.dir]
		e, ok := m[f.name]
		if !ok || e.hash != f.id || !e.lazy || e.captured {
			continue // changed since, and read by a scan
		}
		if outcome[i] == stored {
			e.captured = true
			m[f.name] = e
		} else {
			// Changed before it could be read: its identity refers to
			// nothing, and the next scan reads the file as it is now.
			delete(m, f.name)
		}
		s.pending--
		s.idxChanged++
	}
	if werr != nil {
		return werr
	}
	return ctx.Err()
}

// errChanged: a file no longer has the stat it was recorded with.
var errChanged = errors.New("changed since it was recorded")

// readAs reads the file at p, into buf, if it still has the stat st
// after: a write since st was taken moved its modification and inode
// change times (a file changed just before, whose stat a second write in
// the same tick would leave alone, is not recorded by stat but read at
// once), and one that shrank or grew ends the read early or changes the
// size.
func (s *Store) readAs(p string, st fileStat, buf []byte) ([]byte, error) {
	f, err := openFile(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if int64(cap(buf)) < st.size {
		buf = make([]byte, st.size)
	}
	data := buf[:st.size]
	if _, err := io.ReadFull(f, data); err != nil {
		return nil, errChanged
	}
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() || statOf(fi) != st {
		return nil, errChanged
	}
	return data, nil
}

// errNotStored is the error of reading an identity whose content was never
// stored.
var errNotStored = errors.New("its content then was never stored (it changed before dev read it)")
