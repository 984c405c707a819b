//go:build linux || darwin

package checkpoints

import (
	"io/fs"
	"os"
	"slices"

	"golang.org/x/sys/unix"
)

// readDir lists the directory abs, sorted by name, with the type of each
// entry and the stat of each regular file. Names are read without
// allocating an entry each, and stats are taken relative to the open
// directory, so the kernel resolves the name alone rather than the whole
// path again: this is most of what a snapshot of an unchanged tree costs.
func readDir(abs string) ([]dirent, error) {
	f, err := os.Open(abs)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	names, err := f.Readdirnames(-1)
	slices.Sort(names)
	fd := int(f.Fd())
	out := make([]dirent, len(names))
	for i, name := range names {
		d := &out[i]
		d.name = name
		var st unix.Stat_t
		if serr := unix.Fstatat(fd, name, &st, unix.AT_SYMLINK_NOFOLLOW); serr != nil {
			d.typ, d.statErr = fs.ModeIrregular, &fs.PathError{Op: "lstat", Path: name, Err: serr}
			continue
		}
		switch st.Mode & unix.S_IFMT {
		case unix.S_IFREG:
			d.st = fileStat{size: st.Size, mtime: st.Mtim.Nano(), ctime: st.Ctim.Nano(), ino: uint64(st.Ino),
				mode: fs.FileMode(st.Mode & 0o777)}
		case unix.S_IFDIR:
			d.typ = fs.ModeDir
		case unix.S_IFLNK:
			d.typ = fs.ModeSymlink
		default:
			d.typ = fs.ModeIrregular
		}
	}
	return out, err
}
