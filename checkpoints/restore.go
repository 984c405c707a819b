package checkpoints

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
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
	root, err := os.OpenRoot(s.workDir)
	if err != nil {
		return Restore{}, err
	}
	defer root.Close()
	var r Restore
	for _, c := range changes {
		if c.Change == Added && s.occupied(root, c.Path, deleted) {
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
func (s *Store) occupied(root *os.Root, p string, deleted map[string]bool) bool {
	if fi, err := root.Lstat(filepath.FromSlash(p)); err == nil {
		return !fi.IsDir()
	}
	for d := path.Dir(p); d != "."; d = path.Dir(d) {
		if fi, err := root.Lstat(filepath.FromSlash(d)); err == nil {
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
//
// Every change goes through an os.Root of the working directory, where
// the commands dev ran (sandboxed or not) may have put links: a link
// that leads out of it is never followed, so a restore writes, deletes
// and changes modes inside the working directory only (SPEC §13).
func (s *Store) restore(ctx context.Context, r Restore) error {
	// The kept tree is the present's: it is read again whole next time.
	s.root = nil
	root, err := os.OpenRoot(s.workDir)
	if err != nil {
		return err
	}
	defer root.Close()
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
		if err := root.Remove(filepath.FromSlash(c.Path)); err != nil && !errors.Is(err, fs.ErrNotExist) {
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
			_ = root.Remove(filepath.FromSlash(d))
		}
	}
	for _, c := range r.Changes {
		if c.Change == Deleted {
			continue
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := s.writeBack(root, c); err != nil {
			errs = append(errs, fmt.Errorf("restore %s: %w", c.Path, err))
		}
		// Its stat is new: the next scan reads it.
		s.idx.forget(c.Path)
	}
	return errors.Join(errs...)
}

// writeBack makes the file at c.Path, inside root, what c.To says.
func (s *Store) writeBack(root *os.Root, c Change) error {
	p := filepath.FromSlash(c.Path)
	if c.ModeOnly() && c.From.Mode&fs.ModeSymlink == 0 && c.To.Mode&fs.ModeSymlink == 0 {
		return root.Chmod(p, c.To.Mode.Perm())
	}
	data, err := s.content(c.To.ID)
	if err != nil {
		return err
	}
	dir := filepath.Dir(p)
	if err := root.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if fi, err := root.Lstat(p); err == nil && fi.IsDir() {
		// A directory the target has a file in place of; the deletions
		// emptied it unless it holds what a snapshot skips.
		if err := root.Remove(p); err != nil {
			return err
		}
	}
	var tmp string
	if c.To.Mode&fs.ModeSymlink != 0 {
		tmp, err = tempSymlink(root, dir, string(data))
	} else {
		tmp, err = tempFile(root, dir, data, c.To.Mode.Perm())
	}
	if err != nil {
		return err
	}
	if err := root.Rename(tmp, p); err != nil {
		_ = root.Remove(tmp)
		return err
	}
	return nil
}

// tempFile writes a new file in dir, inside root, with data and exactly
// the permission bits perm (creating it would apply the umask), and
// returns its name.
func tempFile(root *os.Root, dir string, data []byte, perm fs.FileMode) (string, error) {
	for range 10 {
		name := filepath.Join(dir, tempBase())
		f, err := root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", err
		}
		_, err = f.Write(data)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			err = root.Chmod(name, perm)
		}
		if err != nil {
			_ = root.Remove(name)
			return "", err
		}
		return name, nil
	}
	return "", fmt.Errorf("no unused temporary name in %s", dir)
}

// tempSymlink makes a new link to target in dir, inside root, and returns
// its name.
func tempSymlink(root *os.Root, dir, target string) (string, error) {
	for range 10 {
		name := filepath.Join(dir, tempBase())
		err := root.Symlink(target, name)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return name, err
	}
	return "", fmt.Errorf("no unused temporary name in %s", dir)
}

// tempBase is a name for a file being restored, unlikely to be in use.
func tempBase() string {
	return ".dev-restore-" + strconv.FormatUint(rand.Uint64(), 36)
}
