package checkpoints

import (
	"bufio"
	"bytes"
	"compress/flate"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
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

// Objects are stored with a one-byte header: raw, or compressed with
// DEFLATE when that saves at least an eighth (source text shrinks to a
// third; compressed formats not at all).
const (
	rawObject      = 'r'
	deflatedObject = 'z'
	// smallObject is too small to be worth compressing.
	smallObject = 64
)

// objects is the content-addressed store under dir. A few objects (what
// a step changed) are stored one per file, dir/ab/cdef…; many at once
// (the first snapshot of a project) go into one pack file, dir/pack/,
// because creating ten thousand files costs seconds where writing one
// costs milliseconds. Writes are atomic (temporary file, rename; a pack's
// index is renamed last), so concurrent writers, in this process or
// another dev, only ever race to write the same bytes. Objects are not
// synced: a crash can leave one truncated, which reading detects (the
// content no longer has its hash) and reports.
type objects struct {
	dir string

	mu    sync.Mutex
	known map[hash]bool // objects known to be on disk
	// packs are the indexes of the packs read so far; loaded names
	// them.
	packs  []packIndex
	loaded map[string]bool

	deflaters sync.Pool // a new one allocates over half a megabyte
}

// packLoc is where a packed object's encoding lies.
type packLoc struct {
	pack      string // the pack file's path
	off, size int64
}

func newObjects(dir string) *objects {
	return &objects{dir: dir, known: map[hash]bool{}, loaded: map[string]bool{}}
}

func (o *objects) path(h hash) string {
	s := hex.EncodeToString(h[:])
	return filepath.Join(o.dir, s[:2], s[2:])
}

func (o *objects) packDir() string { return filepath.Join(o.dir, "pack") }

// has reports whether the object is stored, asking the disk once.
func (o *objects) has(h hash) bool {
	o.mu.Lock()
	if len(o.loaded) == 0 {
		o.loadPacks()
	}
	_, packed := o.findPacked(h)
	ok := o.known[h] || packed
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

// write stores data, whose hash is h, in a file of its own.
func (o *objects) write(h hash, data []byte) error {
	p := o.path(h)
	if err := writeAtomic(p, o.encode(data)); err != nil {
		return fmt.Errorf("checkpoint store: %w", err)
	}
	o.remember(h)
	return nil
}

// writeAtomic writes data to p through a temporary file renamed over it,
// creating the directory when missing.
func writeAtomic(p string, data []byte) error {
	dir := filepath.Dir(p)
	f, err := os.CreateTemp(dir, ".tmp-*")
	if errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return err
		}
		f, err = os.CreateTemp(dir, ".tmp-*")
	}
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(data)
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
	}
	return err
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
	enc, err := o.read(h)
	if err != nil {
		return nil, fmt.Errorf("checkpoint object %s: %w", h.id(), err)
	}
	data, err := decodeObject(enc)
	if err != nil {
		return nil, fmt.Errorf("checkpoint object %s is corrupt: %w", h.id(), err)
	}
	return data, nil
}

// read returns an object's encoding, from its pack or its file. A pack
// another process wrote since the packs were read is found by reading
// them again.
func (o *objects) read(h hash) ([]byte, error) {
	for attempt := 0; ; attempt++ {
		o.mu.Lock()
		if len(o.loaded) == 0 || attempt == 1 {
			o.loadPacks()
		}
		loc, packed := o.findPacked(h)
		o.mu.Unlock()
		if packed {
			return readAt(loc)
		}
		enc, err := os.ReadFile(o.path(h))
		if err == nil || !errors.Is(err, fs.ErrNotExist) || attempt == 1 {
			return enc, err
		}
	}
}

func readAt(loc packLoc) ([]byte, error) {
	f, err := os.Open(loc.pack)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	enc := make([]byte, loc.size)
	if _, err := f.ReadAt(enc, loc.off); err != nil {
		return nil, fmt.Errorf("reading %s: %w", filepath.Base(loc.pack), err)
	}
	return enc, nil
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

// A pack is the encodings of its objects one after the other; its index,
// beside it and written after it, lists each object's hash, offset and
// size in fixed-size records sorted by hash, searched where they lie
// rather than loaded into a map. An index only exists for a complete
// pack.
const (
	packIndexMagic = "dev-checkpoint-pack 2\n"
	packRecord     = sha256.Size + 8 + 8
)

type packIndex struct {
	pack string // the pack file's path
	recs []byte // packRecord bytes each
}

func (pi packIndex) find(h hash) (packLoc, bool) {
	n := len(pi.recs) / packRecord
	i := sort.Search(n, func(i int) bool { return bytes.Compare(pi.recs[i*packRecord:i*packRecord+sha256.Size], h[:]) >= 0 })
	if i == n {
		return packLoc{}, false
	}
	rec := pi.recs[i*packRecord : (i+1)*packRecord]
	if !bytes.Equal(rec[:sha256.Size], h[:]) {
		return packLoc{}, false
	}
	return packLoc{pack: pi.pack, off: int64(binary.BigEndian.Uint64(rec[sha256.Size:])), size: int64(binary.BigEndian.Uint64(rec[sha256.Size+8:]))}, true
}

// findPacked looks h up in the packs read. o.mu is held.
func (o *objects) findPacked(h hash) (packLoc, bool) {
	for _, pi := range o.packs {
		if loc, ok := pi.find(h); ok {
			return loc, true
		}
	}
	return packLoc{}, false
}

// loadPacks reads the indexes of the packs not read yet. o.mu is held.
func (o *objects) loadPacks() {
	o.loaded[""] = true // the directory was looked at, packs or not
	entries, _ := os.ReadDir(o.packDir())
	for _, e := range entries {
		name, ok := strings.CutSuffix(e.Name(), ".idx")
		if !ok || o.loaded[name] {
			continue
		}
		data, err := os.ReadFile(filepath.Join(o.packDir(), e.Name()))
		if err != nil || !bytes.HasPrefix(data, []byte(packIndexMagic)) || (len(data)-len(packIndexMagic))%packRecord != 0 {
			continue
		}
		o.loaded[name] = true
		o.packs = append(o.packs, packIndex{pack: filepath.Join(o.packDir(), name+".pack"), recs: data[len(packIndexMagic):]})
	}
}

// packThreshold is how many objects a scan must have to write for them
// to go into a pack.
const packThreshold = 64

// packWriter writes a pack. Its methods are safe for concurrent use.
type packWriter struct {
	o *objects

	mu   sync.Mutex
	f    *os.File
	w    *bufio.Writer
	off  int64
	recs [][packRecord]byte
	in   map[hash]bool
	err  error
}

func (o *objects) newPack() (*packWriter, error) {
	if err := os.MkdirAll(o.packDir(), 0o700); err != nil {
		return nil, fmt.Errorf("checkpoint store: %w", err)
	}
	f, err := os.CreateTemp(o.packDir(), ".tmp-pack-*")
	if err != nil {
		return nil, fmt.Errorf("checkpoint store: %w", err)
	}
	return &packWriter{o: o, f: f, w: bufio.NewWriterSize(f, 1<<20), in: map[hash]bool{}}, nil
}

// add appends data, whose hash is h, unless the store or the pack has it.
func (p *packWriter) add(h hash, data []byte) error {
	p.mu.Lock()
	dup := p.in[h]
	p.mu.Unlock()
	if dup || p.o.has(h) {
		return nil
	}
	enc := p.o.encode(data) // outside the lock: the costly part
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.err != nil || p.in[h] {
		return p.err
	}
	if _, err := p.w.Write(enc); err != nil {
		p.err = fmt.Errorf("checkpoint store: %w", err)
		return p.err
	}
	p.in[h] = true
	var rec [packRecord]byte
	copy(rec[:], h[:])
	binary.BigEndian.PutUint64(rec[sha256.Size:], uint64(p.off))
	binary.BigEndian.PutUint64(rec[sha256.Size+8:], uint64(len(enc)))
	p.recs = append(p.recs, rec)
	p.off += int64(len(enc))
	return nil
}

// commit makes the pack's objects part of the store.
func (p *packWriter) commit() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	tmp := p.f.Name()
	err := p.err
	if err == nil {
		err = p.w.Flush()
	}
	if cerr := p.f.Close(); err == nil {
		err = cerr
	}
	if err == nil && len(p.in) == 0 {
		return os.Remove(tmp)
	}
	name := filepath.Join(p.o.packDir(), "pack-"+strings.TrimPrefix(filepath.Base(tmp), ".tmp-pack-"))
	if err == nil {
		err = os.Rename(tmp, name+".pack")
	}
	if err == nil {
		slices.SortFunc(p.recs, func(a, b [packRecord]byte) int { return bytes.Compare(a[:sha256.Size], b[:sha256.Size]) })
		index := make([]byte, 0, len(packIndexMagic)+len(p.recs)*packRecord)
		index = append(index, packIndexMagic...)
		for _, r := range p.recs {
			index = append(index, r[:]...)
		}
		err = writeAtomic(name+".idx", index)
	}
	if err != nil {
		_ = os.Remove(tmp)
		_ = os.Remove(name + ".pack")
		return fmt.Errorf("checkpoint store: %w", err)
	}
	p.o.mu.Lock()
	p.o.loadPacks()
	p.o.mu.Unlock()
	return nil
}

// abort drops the pack.
func (p *packWriter) abort() {
	p.f.Close()
	_ = os.Remove(p.f.Name())
}
