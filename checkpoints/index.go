package checkpoints

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io/fs"
	"os"
	"strings"
	"time"
)

// fileStat is what tells a file unchanged without reading it, as git's
// index does: size, modification time, mode, and where the platform has
// them the inode and the inode's change time.
type fileStat struct {
	size  int64
	mtime int64 // nanoseconds since the epoch
	ctime int64 // 0 where the platform has none
	ino   uint64
	mode  fs.FileMode
}

func statOf(fi fs.FileInfo) fileStat {
	ino, ctime := statExtra(fi)
	return fileStat{size: fi.Size(), mtime: fi.ModTime().UnixNano(), ctime: ctime, ino: ino, mode: kindAndPerm(fi.Mode())}
}

// indexed is a file's stat and the hash of its content when it had it.
// A racy entry was hashed so soon after its last modification that a
// second write within the file system's time granularity would leave the
// same stat: it is hashed again at the next scan. A lazy entry's hash is
// the file's identity (its path and stat), not its content's: captured
// says whether its content is stored (see capture.go).
type indexed struct {
	stat           fileStat
	hash           hash
	racy           bool
	lazy, captured bool
}

// Flags of an index entry in the file.
const (
	flagRacy     = 1
	flagLazy     = 2
	flagCaptured = 4
)

// racyWindow is the coarsest modification-time granularity of the file
// systems dev meets (FAT's two seconds).
const racyWindow = 2 * time.Second

// ctimeTick is more than the granularity of inode change times where the
// platform has them (the kernel's clock tick, 1 to 10 ms on Linux): a
// file whose inode changed that recently is not recorded by its stat
// alone (see capture.go), even when its modification time is old.
const ctimeTick = 100 * time.Millisecond

func isRacy(st fileStat, hashedAt time.Time) bool {
	return st.mtime > hashedAt.Add(-racyWindow).UnixNano()
}

// index maps the slash path of each directory of a scan ("" for the
// working directory) and the name of each of its files to what the file
// was when last hashed. It is a cache: losing it costs one full read of
// the working directory, never a wrong checkpoint, because an entry is
// used only when the file's stat is the same. A directory where nothing
// changed keeps its map from one scan to the next.
type index map[string]map[string]indexed

// forget drops the entry of the file at the slash path p.
func (idx index) forget(p string) {
	dir, name := "", p
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		dir, name = p[:i], p[i+1:]
	}
	// The map may be the scan before's too, but that one is gone.
	delete(idx[dir], name)
}

const indexMagic = "dev-checkpoint-index 4\n"

// The index file is the magic line, then per directory its path and
// files, each with its stat, hash and flags; numbers are varints.
// It is parsed in place: loading it is part of a snapshot in a new
// process (dev rewind, --resume).

// loadIndex reads the index file; a missing or unreadable one is empty.
func loadIndex(path string) index {
	data, err := os.ReadFile(path)
	if err != nil || !bytes.HasPrefix(data, []byte(indexMagic)) {
		return index{}
	}
	d := decoder{b: data[len(indexMagic):]}
	idx := make(index, min(d.uvarint(), uint64(len(d.b))))
	for len(d.b) > 0 && d.err == nil {
		dir := d.str()
		n := d.uvarint()
		if n > uint64(len(d.b)) {
			return index{}
		}
		m := make(map[string]indexed, n)
		for range n {
			name := d.str()
			var e indexed
			e.stat.size = d.varint()
			e.stat.mtime = d.varint()
			e.stat.ctime = d.varint()
			e.stat.ino = d.uvarint()
			e.stat.mode = fs.FileMode(d.uvarint())
			d.bytes(e.hash[:])
			flags := d.byte()
			e.racy, e.lazy, e.captured = flags&flagRacy != 0, flags&flagLazy != 0, flags&flagCaptured != 0
			m[name] = e
		}
		idx[dir] = m
	}
	if d.err != nil {
		return index{}
	}
	return idx
}

// decoder reads the index's fields from b; past a malformed one, err is
// set and every field is zero.
type decoder struct {
	b   []byte
	err error
}

func (d *decoder) fail() { d.b, d.err = nil, errors.New("malformed index") }

func (d *decoder) uvarint() uint64 {
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.fail()
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) varint() int64 {
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.fail()
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) str() string {
	n := d.uvarint()
	if n > uint64(len(d.b)) {
		d.fail()
		return ""
	}
	s := string(d.b[:n])
	d.b = d.b[n:]
	return s
}

func (d *decoder) bytes(dst []byte) {
	if len(d.b) < len(dst) {
		d.fail()
		return
	}
	copy(dst, d.b)
	d.b = d.b[len(dst):]
}

func (d *decoder) byte() byte {
	if len(d.b) == 0 {
		d.fail()
		return 0
	}
	c := d.b[0]
	d.b = d.b[1:]
	return c
}

// save writes the index atomically. Two processes scanning the same
// session may both write it: either file is a valid cache.
func (idx index) save(path string) error {
	size := len(indexMagic) + 16
	for dir, m := range idx {
		size += len(dir) + 16 + len(m)*(32+48)
		for name := range m {
			size += len(name)
		}
	}
	b := make([]byte, 0, size)
	b = append(b, indexMagic...)
	b = binary.AppendUvarint(b, uint64(len(idx)))
	for dir, m := range idx {
		b = binary.AppendUvarint(b, uint64(len(dir)))
		b = append(b, dir...)
		b = binary.AppendUvarint(b, uint64(len(m)))
		for name, e := range m {
			b = binary.AppendUvarint(b, uint64(len(name)))
			b = append(b, name...)
			b = binary.AppendVarint(b, e.stat.size)
			b = binary.AppendVarint(b, e.stat.mtime)
			b = binary.AppendVarint(b, e.stat.ctime)
			b = binary.AppendUvarint(b, e.stat.ino)
			b = binary.AppendUvarint(b, uint64(e.stat.mode))
			b = append(b, e.hash[:]...)
			var flags byte
			if e.racy {
				flags |= flagRacy
			}
			if e.lazy {
				flags |= flagLazy
			}
			if e.captured {
				flags |= flagCaptured
			}
			b = append(b, flags)
		}
	}
	return writeAtomic(path, b)
}
