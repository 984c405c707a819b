package checkpoints

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"strings"
)

// entry is one name of a directory listing (a tree): a file, a symbolic
// link (its target is the content) or a directory (its tree is the
// content). Trees are objects like file contents, so a directory where
// nothing changed is the same object in every checkpoint, and comparing
// two checkpoints skips it without reading it.
type entry struct {
	name string
	mode fs.FileMode // fs.ModeDir, fs.ModeSymlink or 0 (a regular file), with the permission bits
	size int64       // of the content (files and links)
	hash hash
}

func (e entry) dir() bool { return e.mode.IsDir() }

// lazyMode marks a file entry whose hash is the file's identity (its
// path and stat) rather than its content's: a first snapshot recorded it
// without reading it, and the content is stored under the identity as a
// reference to the content's hash once read (see capture.go). It is a
// bit no file's mode has.
const lazyMode = fs.ModeTemporary

// kindAndPerm keeps what a checkpoint restores of a mode: the type and
// the permission bits (not setuid and the like, nor the platform's extras).
func kindAndPerm(m fs.FileMode) fs.FileMode {
	return m&(fs.ModeDir|fs.ModeSymlink) | m.Perm()
}

// treeFormat starts every encoded tree, so that a later format can be told
// apart.
const treeFormat = 1

// encodeTree encodes entries, sorted by name, as
//
//	format, then per entry: mode, size, hash (32 bytes), name length, name
//
// with unsigned varints for the numbers.
func encodeTree(entries []entry) []byte {
	n := 1
	for _, e := range entries {
		n += 3*binary.MaxVarintLen32 + len(e.hash) + len(e.name)
	}
	b := make([]byte, 0, n)
	b = append(b, treeFormat)
	for _, e := range entries {
		b = binary.AppendUvarint(b, uint64(e.mode))
		b = binary.AppendUvarint(b, uint64(e.size))
		b = append(b, e.hash[:]...)
		b = binary.AppendUvarint(b, uint64(len(e.name)))
		b = append(b, e.name...)
	}
	return b
}

var errBadTree = errors.New("not a valid tree")

func decodeTree(b []byte) ([]entry, error) {
	if len(b) == 0 || b[0] != treeFormat {
		return nil, errBadTree
	}
	b = b[1:]
	var entries []entry
	next := func() uint64 {
		v, n := binary.Uvarint(b)
		if n <= 0 {
			b = nil
			return 0
		}
		b = b[n:]
		return v
	}
	for len(b) > 0 {
		var e entry
		e.mode = fs.FileMode(next())
		e.size = int64(next())
		if len(b) < len(e.hash) {
			return nil, errBadTree
		}
		copy(e.hash[:], b)
		b = b[len(e.hash):]
		n := next()
		if uint64(len(b)) < n || n == 0 {
			return nil, errBadTree
		}
		e.name = string(b[:n])
		b = b[n:]
		if strings.ContainsAny(e.name, `/`) || e.name == "." || e.name == ".." {
			return nil, fmt.Errorf("%w: entry %q", errBadTree, e.name)
		}
		entries = append(entries, e)
	}
	return entries, nil
}

// tree reads a tree object.
func (o *objects) tree(h hash) ([]entry, error) {
	data, err := o.get(h)
	if err != nil {
		return nil, err
	}
	entries, err := decodeTree(data)
	if err != nil {
		return nil, fmt.Errorf("checkpoint tree %s: %w", h.id(), err)
	}
	return entries, nil
}
