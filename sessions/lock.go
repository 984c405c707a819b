package sessions

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/gofrs/flock"
)

func (s *Store) lockPath(id string) string { return filepath.Join(s.dir, id+".lock") }

// Lock marks the session as in use by this process until release is called
// (or the process dies: the OS drops the lock with the file descriptor).
// ErrInUse when another process holds it, or another Lock of this process:
// locks belong to open files, not to processes.
//
// The lock file is never removed while sessions may use it, except by
// Prune; Lock guards against that race by checking, once locked, that the
// file it locked is still the one at the path.
func (s *Store) Lock(id string) (release func(), err error) {
	if !ValidID(id) {
		return nil, badID(id)
	}
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return nil, fmt.Errorf("lock session %s: %w", id, err)
	}
	path := s.lockPath(id)
	// Each retry means Prune removed the file between our open and our
	// lock, which cannot happen twice in a row without a pathological
	// clock; the bound only prevents spinning.
	for range 10 {
		fl := flock.New(path)
		locked, err := fl.TryLock()
		if err != nil {
			return nil, fmt.Errorf("lock session %s: %w", id, err)
		}
		if !locked {
			return nil, fmt.Errorf("%w: %s", ErrInUse, id)
		}
		if sameFile(fl, path) {
			var once sync.Once
			return func() { once.Do(func() { _ = fl.Unlock() }) }, nil
		}
		_ = fl.Unlock()
	}
	return nil, fmt.Errorf("lock session %s: lock file %s keeps being replaced", id, path)
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
