package sessions

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/gofrs/flock"
)

func (s *Store) lockPath(id string) string { return filepath.Join(s.dir, id+".lock") }

// lockWait is how long Lock retries a lock held for a moment only: by
// another dev probing whether the session's dev still runs (held), or
// sweeping leftovers. A lock held by a running dev is held for longer.
const lockWait = 500 * time.Millisecond

// Lock marks the session as in use by this process until release is called
// (or the process dies: the OS drops the lock with the file descriptor).
// ErrInUse when another process holds it, or another Lock of this process:
// locks belong to open files, not to processes. release removes the lock
// file (Unix; Windows cannot remove an open file).
//
// The lock file is removed only by whoever holds its lock (release, Prune),
// while holding it; Lock guards against that race by checking, once locked,
// that the file it locked is still the one at the path.
func (s *Store) Lock(id string) (release func(), err error) {
	if !ValidID(id) {
		return nil, badID(id)
	}
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return nil, fmt.Errorf("lock session %s: %w", id, err)
	}
	path := s.lockPath(id)
	ctx, cancel := context.WithTimeout(context.Background(), lockWait)
	defer cancel()
	// Each retry means the file was removed between our open and our
	// lock, which cannot happen twice in a row without a pathological
	// clock; the bound only prevents spinning.
	for range 10 {
		fl := flock.New(path)
		locked, err := fl.TryLockContext(ctx, 10*time.Millisecond)
		if err != nil && ctx.Err() == nil {
			return nil, fmt.Errorf("lock session %s: %w", id, err)
		}
		if !locked {
			_ = fl.Close()
			return nil, fmt.Errorf("%w: %s", ErrInUse, id)
		}
		if sameFile(fl, path) {
			var once sync.Once
			return func() { once.Do(func() { removeLocked(fl, path) }) }, nil
		}
		_ = fl.Unlock()
	}
	return nil, fmt.Errorf("lock session %s: lock file %s keeps being replaced", id, path)
}

// removeLocked removes the lock file fl holds, then releases it. Removing
// while holding is what keeps a second dev from locking the file being
// removed unnoticed (see Lock). Windows cannot remove an open file: there
// the file is released first and removed when nobody has it open.
func removeLocked(fl *flock.Flock, path string) {
	if runtime.GOOS == "windows" {
		_ = fl.Unlock()
		_ = os.Remove(path)
		return
	}
	_ = os.Remove(path)
	_ = fl.Unlock()
}

// held reports whether a dev process holds session id's lock, without
// creating the lock file: none means none holds it.
func (s *Store) held(id string) bool {
	fl := flock.New(s.lockPath(id), flock.SetFlag(os.O_RDONLY))
	locked, err := fl.TryRLock()
	if err != nil {
		return false // no lock file (or none that can be opened): nobody holds it
	}
	_ = fl.Close()
	return !locked
}

// sameFile reports whether fl's open file is still the file at path.
func sameFile(fl *flock.Flock, path string) bool {
	held, err := fl.Stat()
	if err != nil {
		return false
	}
	now, err := os.Stat(path)
	return err == nil && os.SameFile(held, now)
}

// Running returns the sessions of the working directory dir that a running
// dev holds now, but the one named except: the sessions whose files a
// rewind in dir may change under them.
func (s *Store) Running(dir, except string) ([]*Session, error) {
	locks, err := filepath.Glob(filepath.Join(s.dir, "*.lock"))
	if err != nil {
		return nil, fmt.Errorf("running sessions: %w", err)
	}
	var out []*Session
	for _, l := range locks {
		id := strings.TrimSuffix(filepath.Base(l), ".lock")
		if id == except || !ValidID(id) || !s.held(id) {
			continue
		}
		if sess, err := s.Load(id); err == nil && sess.WorkingDirectory == dir {
			out = append(out, sess)
		}
	}
	return out, nil
}
