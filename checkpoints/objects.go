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
// third; compressed formats not at all), or a reference: the object
// stored under a file's identity (see capture.go) is the hash of its
// content.
const (
	rawObject      = 'r'
	deflatedObject = 'z'
	aliasObject    = 'a'
	// smallObject is too small to be worth compressing.
	smallObject = 64
)

func aliasEncoding(h hash) []byte { return append([]byte{aliasObject}, h[:]...) }

// resolve is the hash of the content h stands for: h itself, or for a
// file's identity the hash its reference holds; false when that content
// was never stored.
func (o *objects) resolve(h hash) (hash, bool) {
	enc, err := o.read(h)
	if err != nil {
		return h, false
	}
	if len(enc) == 1+len(h) && enc[0] == aliasObject {
		var c hash
		copy(c[:], enc[1:])
		return c, true
	}
	return h, true
}

// content reads the object h, or for a file's identity the content it
// stands for, and checks that it has its hash.
func (o *objects) content(h hash) ([]byte, error) {
	if c, ok := o.resolve(h); !ok {
		return nil, fmt.Errorf("checkpoint object %s: %w", h.id(), errNotStored)
	} else {
		h = c
	}
	return o.get(h)
}

// objects is the content-addressed store under dir. Objects stored one
// at a time (what a step changed: a file, a few trees, a state) are
// appended to this process's log, dir/pack/log-*.pack, each followed by a
// record in its index, log-*.idx: creating a file costs a fraction of a
// millisecond, appending to one a few microseconds. Many objects at once
// (the first snapshot of a project) go into one pack file, dir/pack/
// pack-*.pack, whose sorted index is renamed in place last. Stores written
// before logs existed keep an object per file, dir/ab/cdef…, which is
// still read. Each log has one writer, the process that created it, so
// concurrent writers (dev diff while dev runs) never share a file; a
// reader ignores an index record still being written. Objects are synced
// only when asked (sync: before a rewind touches a file): a crash of the
// machine can leave one truncated, which reading detects (the content no
// longer has its hash) and reports.
type objects struct {
	dir string

	mu    sync.Mutex
	known map[hash]bool // objects known to be on disk
	// packs are the indexes of the packs read so far; loaded names
	// them. logs are the other processes' logs, read up to where they
	// were when last looked at.
	packs  []packIndex
	loaded map[string]bool
	logs   map[string]*logIndex
	// loose is whether dir holds objects in files of their own (a store
	// written before logs), asked of the disk once: when it does not, an
	// object missing from the packs and logs is known to be missing
	// without a system call.
	loose, looseKnown bool
	log               *logWriter // this process's log, made at its first object
	files             map[string]*os.File
	// unsynced are the files of the packs this process wrote since the
	// last sync.
	unsynced []string

	deflaters sync.Pool // a new one allocates over half a megabyte
}

// logIndex is what was read of another process's log index.
type logIndex struct {
	pack string
	read int64 // bytes of the index read
	locs map[hash]packLoc
}

// logWriter appends to this process's log.
type logWriter struct {
	data, idx *os.File
	pack      string
	off       int64
	locs      map[hash]packLoc
}

// packLoc is where a packed object's encoding lies.
type packLoc struct {
	pack      string // the pack file's path
	off, size int64
}

func newObjects(dir string) *objects {
	return &objects{dir: dir, known: map[hash]bool{}, loaded: map[string]bool{}, logs: map[string]*logIndex{},
		files: map[string]*os.File{}}
}

// close closes the log and the packs held open.
func (o *objects) close() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.log == nil && len(o.unsynced) == 0 {
		return nil // nothing was written
	}
	var errs []error
	if o.log != nil {
		errs = append(errs, o.log.data.Close(), o.log.idx.Close())
		o.log = nil
	}
	for p, f := range o.files {
		f.Close()
		delete(o.files, p)
	}
	return errors.Join(errs...)
}

func (o *objects) path(h hash) string {
	s := hex.EncodeToString(h[:])
	return filepath.Join(o.dir, s[:2], s[2:])
}

func (o *objects) packDir() string { return filepath.Join(o.dir, "pack") }

// has reports whether the object is stored, asking the disk at most once.
func (o *objects) has(h hash) bool {
	o.mu.Lock()
	if len(o.loaded) == 0 {
		o.loadPacks()
	}
	_, found := o.find(h)
	ok := o.known[h] || found
	loose := o.hasLoose()
	o.mu.Unlock()
	if ok {
		return true
	}
	if !loose {
		return false
	}
	if _, err := os.Lstat(o.path(h)); err == nil {
		o.remember(h)
		return true
	}
	return false
}

// hasLoose reports whether the store holds objects in files of their own.
// o.mu is held.
func (o *objects) hasLoose() bool {
	if !o.looseKnown {
		o.looseKnown = true
		entries, _ := os.ReadDir(o.dir)
		for _, e := range entries {
			if len(e.Name()) == 2 && e.IsDir() {
				o.loose = true
			}
		}
	}
	return o.loose
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

// write stores data, whose hash is h, in the log.
func (o *objects) write(h hash, data []byte) error {
	return o.append(h, o.encode(data))
}

// append writes an object's encoding to the log, then its index record.
func (o *objects) append(h hash, enc []byte) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.log == nil {
		l, err := newLog(o.packDir())
		if err != nil {
			return fmt.Errorf("checkpoint store: %w", err)
		}
		o.log = l
	}
	l := o.log
	if _, err := l.data.WriteAt(enc, l.off); err != nil {
		return fmt.Errorf("checkpoint store: %w", err)
	}
	var rec [packRecord]byte
	copy(rec[:], h[:])
	binary.BigEndian.PutUint64(rec[sha256.Size:], uint64(l.off))
	binary.BigEndian.PutUint64(rec[sha256.Size+8:], uint64(len(enc)))
	if _, err := l.idx.Write(rec[:]); err != nil {
		return fmt.Errorf("checkpoint store: %w", err)
	}
	l.locs[h] = packLoc{pack: l.pack, off: l.off, size: int64(len(enc))}
	l.off += int64(len(enc))
	o.known[h] = true
	return nil
}

// newLog creates a log in dir: its data file and its index, named alike.
func newLog(dir string) (*logWriter, error) {
	data, err := os.CreateTemp(dir, "log-*.pack")
	if errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, err
		}
		data, err = os.CreateTemp(dir, "log-*.pack")
	}
	if err != nil {
		return nil, err
	}
	name := strings.TrimSuffix(data.Name(), ".pack")
	idx, err := os.OpenFile(name+".idx", os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o600)
	if err != nil {
		data.Close()
		os.Remove(data.Name())
		return nil, err
	}
	return &logWriter{data: data, idx: idx, pack: data.Name(), locs: map[hash]packLoc{}}, nil
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

// read returns an object's encoding, from its pack or log or its file. A
// pack or log another process wrote since they were read is found by
// reading them again.
func (o *objects) read(h hash) ([]byte, error) {
	for attempt := 0; ; attempt++ {
		o.mu.Lock()
		if len(o.loaded) == 0 || attempt == 1 {
			o.loadPacks()
		}
		loc, found := o.find(h)
		var f *os.File
		var err error
		if found {
			f, err = o.open(loc.pack)
		}
		loose := o.hasLoose()
		o.mu.Unlock()
		if found {
			if err != nil {
				return nil, err
			}
			return readAt(f, loc)
		}
		if loose {
			enc, err := os.ReadFile(o.path(h))
			if err == nil || !errors.Is(err, fs.ErrNotExist) {
				return enc, err
			}
		}
		if attempt == 1 {
			return nil, fs.ErrNotExist
		}
	}
}

// open returns the pack or log file p, opened once. o.mu is held.
func (o *objects) open(p string) (*os.File, error) {
	if o.log != nil && p == o.log.pack {
		return o.log.data, nil
	}
	if f := o.files[p]; f != nil {
		return f, nil
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	o.files[p] = f
	return f, nil
}

func readAt(f *os.File, loc packLoc) ([]byte, error) {
	enc := make([]byte, loc.size)
	if _, err := f.ReadAt(enc, loc.off); err != nil {
		return nil, fmt.Errorf("reading %s: %w", filepath.Base(loc.pack), err)
	}
	return enc, nil
}

func (o *objects) encode(data []byte) []byte {
	var b bytes.Buffer
	return bytes.Clone(o.encodeTo(&b, data))
}

// encodeTo encodes data into b, reset first, and returns b's bytes, valid
// until b is used again.
func (o *objects) encodeTo(b *bytes.Buffer, data []byte) []byte {
	b.Reset()
	if len(data) >= smallObject {
		b.Grow(len(data)/2 + 16)
		b.WriteByte(deflatedObject)
		w, _ := o.deflaters.Get().(*flate.Writer)
		if w == nil {
			w, _ = flate.NewWriter(nil, flate.BestSpeed) // the level is valid
		}
		w.Reset(b)
		_, _ = w.Write(data) // a bytes.Buffer does not fail
		_ = w.Close()
		o.deflaters.Put(w)
		if b.Len() <= len(data)-len(data)/8 {
			return b.Bytes()
		}
		b.Reset()
	}
	b.Grow(1 + len(data))
	b.WriteByte(rawObject)
	b.Write(data)
	return b.Bytes()
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

// find looks h up in this process's log, the packs and the logs read.
// o.mu is held.
func (o *objects) find(h hash) (packLoc, bool) {
	if o.log != nil {
		if loc, ok := o.log.locs[h]; ok {
			return loc, true
		}
	}
	for _, pi := range o.packs {
		if loc, ok := pi.find(h); ok {
			return loc, true
		}
	}
	for _, l := range o.logs {
		if loc, ok := l.locs[h]; ok {
			return loc, true
		}
	}
	return packLoc{}, false
}

// loadPacks reads the indexes of the packs not read yet, and what the
// other processes' logs gained since they were read. o.mu is held.
func (o *objects) loadPacks() {
	o.loaded[""] = true // the directory was looked at, packs or not
	entries, _ := os.ReadDir(o.packDir())
	for _, e := range entries {
		if name, ok := strings.CutSuffix(e.Name(), ".idx"); ok && strings.HasPrefix(name, "log-") {
			o.loadLog(filepath.Join(o.packDir(), name))
			continue
		}
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

// loadLog reads the records a log's index gained since it was last read;
// a record still being written is left for the next time. o.mu is held.
func (o *objects) loadLog(name string) {
	if o.log != nil && o.log.pack == name+".pack" {
		return // this process's own
	}
	l := o.logs[name]
	if l == nil {
		l = &logIndex{pack: name + ".pack", locs: map[hash]packLoc{}}
		o.logs[name] = l
	}
	f, err := os.Open(name + ".idx")
	if err != nil {
		return
	}
	defer f.Close()
	data, err := io.ReadAll(io.NewSectionReader(f, l.read, 1<<62))
	if err != nil {
		return
	}
	data = data[:len(data)-len(data)%packRecord]
	for rec := data; len(rec) > 0; rec = rec[packRecord:] {
		var h hash
		copy(h[:], rec)
		l.locs[h] = packLoc{pack: l.pack, off: int64(binary.BigEndian.Uint64(rec[sha256.Size:])), size: int64(binary.BigEndian.Uint64(rec[sha256.Size+8:]))}
	}
	l.read += int64(len(data))
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
	return p.addEncoded(h, p.o.encode(data)) // encoding outside the lock: the costly part
}

// addEncoded appends enc, the encoding of the object h, unless the pack
// has it.
func (p *packWriter) addEncoded(h hash, enc []byte) error {
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
	p.o.unsynced = append(p.o.unsynced, name+".pack", name+".idx")
	p.o.mu.Unlock()
	return nil
}

// sync writes to disk what this process stored: its log and the packs it
// wrote, then the directories that name them.
func (o *objects) sync() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.log == nil && len(o.unsynced) == 0 {
		return nil // nothing was written
	}
	var errs []error
	if o.log != nil {
		errs = append(errs, o.log.data.Sync(), o.log.idx.Sync())
	}
	for _, p := range o.unsynced {
		f, err := os.Open(p)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		errs = append(errs, f.Sync(), f.Close())
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("checkpoint store: %w", err)
	}
	o.unsynced = nil
	if err := errors.Join(syncDir(o.packDir()), syncDir(o.dir)); err != nil {
		return fmt.Errorf("checkpoint store: %w", err)
	}
	return nil
}

// abort drops the pack.
func (p *packWriter) abort() {
	p.f.Close()
	_ = os.Remove(p.f.Name())
}
