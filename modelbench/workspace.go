package modelbench

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Prepare copies the task's tree into dir, an empty directory.
func (t Task) Prepare(dir string) error {
	if err := copyTree(dir, t.Workspace, t.CheckPath == ""); err != nil {
		return fmt.Errorf("task %s: copying its tree: %w", t.Name, err)
	}
	return nil
}

// copyTree copies the tree of src into the directory dst, which exists:
// files with their permission bits (a built-in tree's scripts made
// executable: embedded files have none), directories, symbolic links as
// links.
func copyTree(dst string, src fs.FS, builtin bool) error {
	return fs.WalkDir(src, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == "." {
			return nil
		}
		target := filepath.Join(dst, filepath.FromSlash(p))
		switch {
		case d.IsDir():
			return os.Mkdir(target, 0o755)
		case d.Type()&fs.ModeSymlink != 0:
			link, err := fs.ReadLink(src, p)
			if err != nil {
				return err
			}
			return os.Symlink(link, target)
		case !d.Type().IsRegular():
			return nil // sockets, devices: no part of a project's tree
		}
		mode := fs.FileMode(0o644)
		if info, err := d.Info(); err == nil && !builtin {
			mode = info.Mode().Perm() | 0o200 // the run may change it
		}
		if builtin && strings.HasSuffix(p, ".sh") {
			mode = 0o755
		}
		return copyFile(target, src, p, mode)
	})
}

func copyFile(target string, src fs.FS, p string, mode fs.FileMode) error {
	in, err := src.Open(p)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(target, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return fmt.Errorf("copying %s: %w", p, err)
	}
	return out.Close()
}
