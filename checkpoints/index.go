package checkpoints

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
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
// same stat: it is hashed again at the next scan.
type indexed struct {
	stat fileStat
	hash hash
	racy bool
}

// racyWindow is the coarsest modification-time granularity of the file
// systems dev meets (FAT's two seconds).
const racyWindow = 2 * time.Second

func isRacy(st fileStat, hashedAt time.Time) bool {
	return st.mtime > hashedAt.Add(-racyWindow).UnixNano()
}

// index maps the slash paths of a scan's files to what they were when
// last hashed. It is a cache: losing it costs one full read of the
// working directory, never a wrong checkpoint, because an entry is used
// only when the file's stat is the same.
type index map[string]indexed

const indexMagic = "dev-checkpoint-index 1\n"

// loadIndex reads the index file; a missing or unreadable one is empty.
func loadIndex(path string) index {
	data, err := os.ReadFile(path)
	if err != nil || !bytes.HasPrefix(data, []byte(indexMagic)) {
		return index{}
	}
	r := bytes.NewReader(data[len(indexMagic):])
	n, err := binary.ReadUvarint(r)
	if err != nil || n > uint64(len(data)) {
		return index{}
	}
	idx := make(index, n)
	for range n {
		var e indexed
		l, err1 := binary.ReadUvarint(r)
		if err1 != nil || l > uint64(r.Len()) {
			return index{}
		}
		name := make([]byte, l)
		_, _ = io.ReadFull(r, name)
		size, err2 := binary.ReadVarint(r)
		mtime, err3 := binary.ReadVarint(r)
		ctime, err4 := binary.ReadVarint(r)
		ino, err5 := binary.ReadUvarint(r)
		mode, err6 := binary.ReadUvarint(r)
		_, err7 := io.ReadFull(r, e.hash[:])
		racy, err8 := r.ReadByte()
		if err := errors.Join(err2, err3, err4, err5, err6, err7, err8); err != nil {
			return index{}
		}
		e.stat = fileStat{size: size, mtime: mtime, ctime: ctime, ino: ino, mode: fs.FileMode(mode)}
		e.racy = racy != 0
		idx[string(name)] = e
	}
	return idx
}

// save writes the index atomically. Two processes scanning the same
// session may both write it: either file is a valid cache.
func (idx index) save(path string) error {
	f, err := os.CreateTemp(filepath.Dir(path), ".tmp-index-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	w := bufio.NewWriterSize(f, 1<<16)
	w.WriteString(indexMagic)
	var buf []byte
	buf = binary.AppendUvarint(buf[:0], uint64(len(idx)))
	w.Write(buf)
	for name, e := range idx {
		buf = binary.AppendUvarint(buf[:0], uint64(len(name)))
		buf = append(buf, name...)
		buf = binary.AppendVarint(buf, e.stat.size)
		buf = binary.AppendVarint(buf, e.stat.mtime)
		buf = binary.AppendVarint(buf, e.stat.ctime)
		buf = binary.AppendUvarint(buf, e.stat.ino)
		buf = binary.AppendUvarint(buf, uint64(e.stat.mode))
		buf = append(buf, e.hash[:]...)
		racy := byte(0)
		if e.racy {
			racy = 1
		}
		buf = append(buf, racy)
		w.Write(buf)
	}
	err = w.Flush()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		_ = os.Remove(tmp)
	}
	return err
}
