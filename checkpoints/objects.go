package checkpoints

import (
	"bytes"
	"compress/flate"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
)

// ID names an object of the store: the SHA-256 of its content, in hex. A
// file's content, a directory listing and a session state are all objects,
// so anything stored twice is stored once.
type ID string

// hash is an ID in binary, as trees and states hold it.
type hash [sha256.Size]byte

func (h hash) id() ID { return ID(hex.EncodeToString(h[:])) }

func parseID(id ID) (hash, error) {
	var h hash
	if len(id) != 2*len(h) {
		return h, fmt.Errorf("not a checkpoint object id: %q", id)
	}
	if _, err := hex.Decode(h[:], []byte(id)); err != nil {
		return h, fmt.Errorf("not a checkpoint object id: %q", id)
	}
	return h, nil
}

// Objects are stored one per file, objects/ab/cdef…, with a one-byte
// header: raw, or compressed with DEFLATE when that saves at least an
// eighth (source text shrinks to a third; compressed formats not at all).
const (
	rawObject      = 'r'
	deflatedObject = 'z'
	// smallObject is too small to be worth compressing.
	smallObject = 64
)

// objects is the content-addressed store under dir. Writes are atomic
// (temporary file, rename), so concurrent writers, in this process or
// another dev, only ever race to write the same bytes. Objects are not
// synced: a crash can leave one truncated, which reading detects (the
// content no longer has its hash) and reports.
type objects struct {
	dir string

	mu    sync.Mutex
	known map[hash]bool // objects known to be on disk

	deflaters sync.Pool // a new one allocates over half a megabyte
}

func newObjects(dir string) *objects {
	return &objects{dir: dir, known: map[hash]bool{}}
}

func (o *objects) path(h hash) string {
	s := hex.EncodeToString(h[:])
	return filepath.Join(o.dir, s[:2], s[2:])
}

// has reports whether the object is on disk, asking the disk once.
func (o *objects) has(h hash) bool {
	o.mu.Lock()
	ok := o.known[h]
	o.mu.Unlock()
	if ok {
		return true
	}
	if _, err := os.Lstat(o.path(h)); err == nil {
		o.remember(h)
		return true
	}
	return false
}

func (o *objects) remember(h hash) {
	o.mu.Lock()
	o.known[h] = true
	o.mu.Unlock()
}

// put stores data and returns its hash.
func (o *objects) put(data []byte) (hash, error) {
	h := sha256.Sum256(data)
	if o.has(h) {
		return h, nil
	}
	return h, o.write(h, data)
}

// write stores data, whose hash is h.
func (o *objects) write(h hash, data []byte) error {
	enc := o.encode(data)
	p := o.path(h)
	dir := filepath.Dir(p)
	f, err := os.CreateTemp(dir, ".tmp-*")
	if errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return fmt.Errorf("checkpoint store: %w", err)
		}
		f, err = os.CreateTemp(dir, ".tmp-*")
	}
	if err != nil {
		return fmt.Errorf("checkpoint store: %w", err)
	}
	tmp := f.Name()
	_, err = f.Write(enc)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, p)
		if err != nil {
			// Windows refuses to replace a file another process holds;
			// the same content is there already.
			if _, serr := os.Lstat(p); serr == nil {
				err = nil
			}
		}
	}
	if err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("checkpoint store: %w", err)
	}
	o.remember(h)
	return nil
}

// get reads an object and checks that it still has its hash.
func (o *objects) get(h hash) ([]byte, error) {
	data, err := o.getUnchecked(h)
	if err == nil && sha256.Sum256(data) != h {
		err = fmt.Errorf("checkpoint object %s is corrupt: content does not match its hash", h.id())
	}
	return data, err
}

// getUnchecked reads an object stored under another name than its hash
// (a state); the caller checks it.
func (o *objects) getUnchecked(h hash) ([]byte, error) {
	enc, err := os.ReadFile(o.path(h))
	if err != nil {
		return nil, fmt.Errorf("checkpoint object %s: %w", h.id(), err)
	}
	data, err := decodeObject(enc)
	if err != nil {
		return nil, fmt.Errorf("checkpoint object %s is corrupt: %w", h.id(), err)
	}
	return data, nil
}

func (o *objects) encode(data []byte) []byte {
	if len(data) >= smallObject {
		var b bytes.Buffer
		b.Grow(len(data)/2 + 16)
		b.WriteByte(deflatedObject)
		w, _ := o.deflaters.Get().(*flate.Writer)
		if w == nil {
			w, _ = flate.NewWriter(nil, flate.BestSpeed) // the level is valid
		}
		w.Reset(&b)
		_, _ = w.Write(data) // a bytes.Buffer does not fail
		_ = w.Close()
		o.deflaters.Put(w)
		if b.Len() <= len(data)-len(data)/8 {
			return b.Bytes()
		}
	}
	out := make([]byte, 1+len(data))
	out[0] = rawObject
	copy(out[1:], data)
	return out
}

func decodeObject(enc []byte) ([]byte, error) {
	if len(enc) == 0 {
		return nil, errors.New("empty")
	}
	switch enc[0] {
	case rawObject:
		return enc[1:], nil
	case deflatedObject:
		r := flate.NewReader(bytes.NewReader(enc[1:]))
		defer r.Close()
		return io.ReadAll(r)
	}
	return nil, fmt.Errorf("unknown header %q", enc[0])
}
