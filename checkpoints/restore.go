package checkpoints

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// Restore is what bringing the working directory back to a snapshot does
// or would do.
type Restore struct {
	// Changes are what the restore changes: files created since are
	// deleted, modified and deleted ones written back.
	Changes []Change
	// Left are changes it does not make because the path is one a
	// snapshot skips now (ignored, over the size cap, unreadable, not a
	// file): a restore never touches those.
	Left []Change
	// Lost are changes it cannot make: the file's content at the target
	// was never stored, because something other than dev changed the
	// file before dev read it (see capture.go). The file is left as it
	// is.
	Lost []Change
}

// planRestore splits the changes from the snapshot now to target into
// those a restore makes and those it leaves.
func (s *Store) planRestore(ctx context.Context, now, target ID) (Restore, error) {
	changes, err := s.Changes(ctx, now, target)
	if err != nil {
		return Restore{}, err
	}
	deleted := map[string]bool{}
	for _, c := range changes {
		if c.Change == Deleted {
			deleted[c.Path] = true
		}
	}
	var r Restore
	for _, c := range changes {
		if c.Change == Added && s.occupied(c.Path, deleted) {
			r.Left = append(r.Left, c)
			continue
		}
		if c.Change != Deleted && !c.ModeOnly() && !s.stored(c.To.ID) {
			r.Lost = append(r.Lost, c)
			continue
		}
		r.Changes = append(r.Changes, c)
	}
	return r, nil
}

// stored reports whether the content id is in the store. Changes gives
// the content's hash for a file recorded by its stat whose content was
// read, and its identity, which names no object, for one whose content
// was not.
func (s *Store) stored(id ID) bool {
	h, err := parseID(id)
	return err == nil && s.obj.has(h)
}

// occupied reports whether writing a file at p, which the present
// snapshot does not hold, would replace something it skipped: a file or
// link at p, or in place of a directory above p (unless the restore
// deletes it). A directory at p is not: it is removed only when empty.
func (s *Store) occupied(p string, deleted map[string]bool) bool {
	if fi, err := os.Lstat(s.abs(p)); err == nil {
		return !fi.IsDir()
	}
	for d := path.Dir(p); d != "."; d = path.Dir(d) {
		if fi, err := os.Lstat(s.abs(d)); err == nil {
			return !fi.IsDir() && !deleted[d]
		}
	}
	return false
}

func (s *Store) abs(rel string) string { return filepath.Join(s.workDir, filepath.FromSlash(rel)) }

// restore applies r: deletions first (deepest first, removing the
// directories they empty when the target has none there), then writes,
// each through a temporary file renamed over the path. It carries on past
// a failing path and returns every failure.
func (s *Store) restore(ctx context.Context, r Restore) error {
	// The kept tree is the present's: it is read again whole next time.
	s.root = nil
	var errs []error
	var dirs []string
	keep := map[string]bool{} // directories the target has files in
	for _, c := range r.Changes {
		if c.Change != Deleted {
			for d := path.Dir(c.Path); d != "."; d = path.Dir(d) {
				keep[d] = true
			}
		}
	}
	for _, c := range slices.Backward(r.Changes) {
		if c.Change != Deleted {
			continue
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := os.Remove(s.abs(c.Path)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, fmt.Errorf("delete %s: %w", c.Path, err))
		}
		s.idx.forget(c.Path)
		for d := path.Dir(c.Path); d != "."; d = path.Dir(d) {
			dirs = append(dirs, d)
		}
	}
	// Directories the deletions emptied go too, unless the target has
	// files there; one still holding something (ignored files) stays.
	slices.SortFunc(dirs, func(a, b string) int { return strings.Count(b, "/") - strings.Count(a, "/") })
	for _, d := range slices.Compact(dirs) {
		if !keep[d] {
			_ = os.Remove(s.abs(d))
		}
	}
	for _, c := range r.Changes {
		if c.Change == Deleted {
			continue
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := s.writeBack(c); err != nil {
			errs = append(errs, fmt.Errorf("restore %s: %w", c.Path, err))
		}
		// Its stat is new: the next scan reads it.
		s.idx.forget(c.Path)
	}
	return errors.Join(errs...)
}

// writeBack makes the file at c.Path what c.To says.
func (s *Store) writeBack(c Change) error {
	p := s.abs(c.Path)
	if c.ModeOnly() && c.From.Mode&fs.ModeSymlink == 0 && c.To.Mode&fs.ModeSymlink == 0 {
		return os.Chmod(p, c.To.Mode.Perm())
	}
	data, err := s.content(c.To.ID)
	if err != nil {
		return err
	}
	dir := filepath.Dir(p)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if fi, err := os.Lstat(p); err == nil && fi.IsDir() {
		// A directory the target has a file in place of; the deletions
		// emptied it unless it holds what a snapshot skips.
		if err := os.Remove(p); err != nil {
			return err
		}
	}
	tmp, err := tempName(dir)
	if err != nil {
		return err
	}
	if c.To.Mode&fs.ModeSymlink != 0 {
		err = os.Symlink(string(data), tmp)
	} else {
		err = writeFile(tmp, data, c.To.Mode.Perm())
	}
	if err == nil {
		err = os.Rename(tmp, p)
	}
	if err != nil {
		_ = os.Remove(tmp)
	}
	return err
}

// writeFile writes a new file with exactly the permission bits perm
// (creating it would apply the umask).
func writeFile(name string, data []byte, perm fs.FileMode) error {
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(name, perm)
	}
	return err
}

// tempName is an unused name in dir for a file being restored.
func tempName(dir string) (string, error) {
	f, err := os.CreateTemp(dir, ".dev-restore-*")
	if err != nil {
		return "", err
	}
	name := f.Name()
	f.Close()
	return name, os.Remove(name)
}
