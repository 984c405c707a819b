package sessions

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gofrs/flock"
)

// Prune removes sessions (<id>.json, <id>.lock and the <id>/ directory)
// whose UpdatedAt is older than maxAge, skipping sessions locked by a
// running dev, and drops their directory-map entries. maxAge 0 keeps
// everything. A file that cannot be decoded is aged by its modification
// time, as are leftovers without a session file (a lock or directory of a
// run that never saved) and temporary files of interrupted writes.
// removed counts the session ids whose files were removed.
//
// Whatever maxAge, Prune then removes what dead runs left (sweep): lock
// files no dev holds, and temporary files of interrupted saves.
func (s *Store) Prune(maxAge time.Duration) (removed int, err error) {
	if maxAge > 0 {
		removed, err = s.pruneOld(maxAge)
	}
	return removed, errors.Join(err, s.sweep())
}

// pruneOld is Prune's removal of old sessions.
func (s *Store) pruneOld(maxAge time.Duration) (removed int, err error) {
	entries, err := os.ReadDir(s.dir)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("prune sessions: %w", err)
	}
	cutoff := s.now().Add(-maxAge)
	ids := map[string]bool{}
	var errs []error
	for _, e := range entries {
		name := e.Name()
		if isTemp(name) {
			if fi, err := e.Info(); err == nil && fi.ModTime().Before(cutoff) {
				if err := os.Remove(filepath.Join(s.dir, name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
					errs = append(errs, err)
				}
			}
			continue
		}
		id := strings.TrimSuffix(strings.TrimSuffix(name, ".json"), ".lock")
		if ValidID(id) {
			ids[id] = true
		}
	}
	gone := map[string]bool{}
	for id := range ids {
		if s.recent(id, cutoff) {
			continue
		}
		if t, ok := s.age(id); !ok || !t.Before(cutoff) {
			continue
		}
		ok, err := s.removeIfOld(id, cutoff)
		if err != nil {
			errs = append(errs, err)
		}
		if ok {
			gone[id] = true
		}
	}
	if len(gone) > 0 {
		err := s.updateMap(func(m map[string]string) bool {
			changed := false
			for dir, id := range m {
				if gone[id] {
					delete(m, dir)
					changed = true
				}
			}
			return changed
		})
		if err != nil {
			errs = append(errs, err)
		}
	}
	return len(gone), errors.Join(errs...)
}

// updatedAt returns the UpdatedAt of session id's file, ok false when the
// file is missing or cannot be decoded.
func (s *Store) updatedAt(id string) (time.Time, bool) {
	data, err := os.ReadFile(s.path(id))
	if err != nil {
		return time.Time{}, false
	}
	var head struct {
		UpdatedAt time.Time `json:"updatedAt"`
	}
	if json.Unmarshal(data, &head) != nil || head.UpdatedAt.IsZero() {
		return time.Time{}, false
	}
	return head.UpdatedAt, true
}

// headSize is how much of a session file recent reads: the fields before
// the history.
const headSize = 4 << 10

// recent reports, reading only the start of session id's file, that the
// session is kept: its file was modified after cutoff and says it was
// updated after cutoff. Whether or not the rest of the file decodes, its
// age is then after cutoff (its UpdatedAt, or a modification time). Every
// run prunes, and decoding whole files took 300 ms with 100 sessions of
// 300 steps (BenchmarkPruneNothingOld); dev writes updatedAt third.
func (s *Store) recent(id string, cutoff time.Time) bool {
	f, err := os.Open(s.path(id))
	if err != nil {
		return false
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || fi.ModTime().Before(cutoff) {
		return false
	}
	head := make([]byte, headSize)
	n, _ := io.ReadFull(f, head)
	dec := json.NewDecoder(bytes.NewReader(head[:n]))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return false
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return false
		}
		if key != "updatedAt" {
			var skip json.RawMessage
			if dec.Decode(&skip) != nil {
				return false
			}
			continue
		}
		var t time.Time
		return dec.Decode(&t) == nil && !t.IsZero() && !t.Before(cutoff)
	}
	return false
}

// age returns when session id was last used: its UpdatedAt, or for files
// that cannot tell, the newest modification time among its files. ok is
// false when the session has no files left.
func (s *Store) age(id string) (t time.Time, ok bool) {
	if t, ok := s.updatedAt(id); ok {
		return t, true
	}
	for _, p := range []string{s.path(id), s.lockPath(id), s.Dir(id)} {
		if fi, err := os.Stat(p); err == nil {
			ok = true
			if fi.ModTime().After(t) {
				t = fi.ModTime()
			}
		}
	}
	return t, ok
}

// removeIfOld removes session id's files when nobody holds its lock and,
// checked again under the lock, it is still older than cutoff.
func (s *Store) removeIfOld(id string, cutoff time.Time) (bool, error) {
	lockPath := s.lockPath(id)
	fl := flock.New(lockPath)
	locked, err := fl.TryLock()
	if err != nil {
		return false, fmt.Errorf("prune session %s: %w", id, err)
	}
	if !locked {
		return false, nil
	}
	// Between the first look and the lock, a dev may have resumed the
	// session, saved it and exited. (Not age: taking the lock may just have
	// created the lock file, which would make a leftover look new.)
	if t, ok := s.updatedAt(id); ok && !t.Before(cutoff) {
		_ = fl.Unlock()
		return false, nil
	}
	var errs []error
	if err := os.Remove(s.path(id)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		errs = append(errs, err)
	}
	if err := os.RemoveAll(s.Dir(id)); err != nil {
		errs = append(errs, err)
	}
	// A Lock that opened the file meanwhile notices that it was removed.
	removeLocked(fl, lockPath)
	if len(errs) > 0 {
		return false, fmt.Errorf("prune session %s: %w", id, errors.Join(errs...))
	}
	return true, nil
}

// freshLock is how old a lock file no dev holds must be before sweep
// removes it.
const freshLock = time.Minute

// sweep removes what dead runs left: lock files no dev holds, temporary
// files of sessions no dev holds (a dev killed while saving), and those of
// the directory map when no dev is updating it. Lock files are taken
// before they are removed, so a dev that holds one is never disturbed, and
// one that is locking it right now notices (see Lock). A lock file younger
// than freshLock is left alone: it is most likely a dev's that is locking
// it right now, and taking it from under that dev makes it wait (many runs
// starting at once, each sweeping, once made one wait past Lock's 500 ms
// and fail with "in use"); a dead run's lock is swept by a later run.
func (s *Store) sweep() error {
	entries, err := os.ReadDir(s.dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("clean up sessions: %w", err)
	}
	var errs []error
	remove := func(name string) {
		if err := os.Remove(filepath.Join(s.dir, name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	var mapTemps []string
	for _, e := range entries {
		name := e.Name()
		if isTemp(name) {
			target, _, _ := strings.Cut(strings.TrimPrefix(name, "."), ".tmp-")
			if id, ok := strings.CutSuffix(target, ".json"); ok && ValidID(id) && !s.held(id) {
				remove(name)
			} else if target == mapFile {
				mapTemps = append(mapTemps, name)
			}
			continue
		}
		if id, ok := strings.CutSuffix(name, ".lock"); ok && ValidID(id) {
			if fi, err := e.Info(); err != nil || s.now().Sub(fi.ModTime()) < freshLock {
				continue
			}
			fl := flock.New(s.lockPath(id), flock.SetFlag(os.O_RDONLY))
			if locked, err := fl.TryLock(); err == nil && locked {
				removeLocked(fl, s.lockPath(id))
			}
		}
	}
	if len(mapTemps) > 0 {
		fl := flock.New(filepath.Join(s.dir, mapLockFile))
		if locked, err := fl.TryLock(); err == nil && locked {
			for _, name := range mapTemps {
				remove(name)
			}
			_ = fl.Unlock()
		}
	}
	return errors.Join(errs...)
}
