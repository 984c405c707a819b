package capture

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"

	"github.com/devagent/dev/redact"
	"github.com/devagent/dev/textfmt"
)

const (
	// OutputHead and OutputTail are how much of a long command output the
	// model sees: its start and its end.
	OutputHead = 4 << 10
	OutputTail = 8 << 10

	// SpillMax bounds the file a long output is saved to (SPEC §2): a
	// command printing without end must not fill the disk. Past it the
	// file keeps the first SpillHead bytes, a line saying how much was
	// cut, and the last bytes, SpillMax in all at most.
	SpillMax  = 64 << 20
	SpillHead = 32 << 20
	// spillNote is room for the line saying what was cut.
	spillNote = 256
	spillTail = SpillMax - SpillHead - spillNote
)

// Output collects what a command prints. Memory stays bounded whatever it
// prints: it keeps the head and the tail, and once the output outgrows them
// it writes it, from the first byte, to a file in dir: all of it up to
// SpillMax, else its first SpillHead bytes and its last bytes (kept in a
// second file used as a ring until Close puts them in order). The file is
// the session's (spills, nil for none): secrets are masked before they
// reach it, and the session's files are kept under their total.
type Output struct {
	dir    string
	spills *Spills

	mu        sync.Mutex
	head      []byte
	tail      []byte // the latest bytes; trimmed to OutputTail when twice that
	total     int64
	lines     int64
	file      *os.File
	fileErr   error // saving the full output failed
	savedPath string
	spilled   int64    // bytes given to the file (and the ring)
	ring      *os.File // the bytes after SpillHead, at offset (n - SpillHead) % spillTail
	spillCut  int64    // bytes the saved file lacks, once closed
	masker    *redact.Writer
	emptied   []string // older saved outputs emptied to make room for this one
}

// New returns an empty Output that saves a long output in dir, the
// session's (spills; nil: the file is saved as printed, capped alone).
func New(dir string, spills *Spills) *Output { return &Output{dir: dir, spills: spills} }

// Write never fails: a command must not break because its output could not
// be saved; the result says so instead.
func (o *Output) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	n := len(p)
	if o.file == nil && o.fileErr == nil && o.total+int64(n) > OutputHead+OutputTail {
		o.startSaving()
	}
	if o.file != nil {
		if _, err := o.masker.Write(p); err != nil {
			o.fileErr = err
			o.dropFiles()
		}
	}
	o.total += int64(n)
	o.lines += int64(bytes.Count(p, []byte{'\n'}))
	if room := OutputHead - len(o.head); room > 0 {
		k := min(room, len(p))
		o.head = append(o.head, p[:k]...)
		p = p[k:]
	}
	o.tail = append(o.tail, p...)
	if len(o.tail) > 2*OutputTail {
		k := copy(o.tail, o.tail[len(o.tail)-OutputTail:])
		o.tail = o.tail[:k]
	}
	return n, nil
}

// startSaving opens the full-output file and writes what came so far, which
// is all still in head and tail: nothing is dropped before the file exists.
func (o *Output) startSaving() {
	if o.dir == "" {
		o.fileErr = errors.New("no output directory was given")
		return
	}
	f, err := o.spills.create(o.dir)
	if err != nil {
		o.fileErr = err
		return
	}
	o.file, o.savedPath = f, f.Name()
	o.masker = o.spills.redactor().NewWriter(spillWriter{o})
	_, err = o.masker.Write(o.head)
	if err == nil {
		_, err = o.masker.Write(o.tail)
	}
	if err != nil {
		o.fileErr = err
		o.dropFiles()
	}
}

// spillWriter passes the masked output to spill.
type spillWriter struct{ o *Output }

func (w spillWriter) Write(p []byte) (int, error) {
	if err := w.o.spill(p); err != nil {
		return 0, err
	}
	return len(p), nil
}

// spill saves p: into the file up to SpillHead, then into the ring. The
// session counts the file as large as it will be.
func (o *Output) spill(p []byte) error {
	defer func() {
		o.emptied = append(o.emptied, o.spills.sized(o.savedPath, min(o.spilled, SpillMax), true)...)
	}()
	if room := SpillHead - o.spilled; room > 0 {
		k := int(min(room, int64(len(p))))
		if _, err := o.file.Write(p[:k]); err != nil {
			return err
		}
		o.spilled += int64(k)
		p = p[k:]
	}
	if len(p) == 0 {
		return nil
	}
	if o.ring == nil {
		ring, err := os.CreateTemp(o.dir, "command-*.tail")
		if err != nil {
			return err
		}
		if runtime.GOOS != "windows" {
			// Unix keeps an open file: nothing is left behind if dev dies.
			_ = os.Remove(ring.Name())
		}
		o.ring = ring
	}
	if len(p) > spillTail {
		o.spilled += int64(len(p) - spillTail) // older than the tail kept
		p = p[len(p)-spillTail:]
	}
	for len(p) > 0 {
		at := (o.spilled - SpillHead) % spillTail
		k := int(min(spillTail-at, int64(len(p))))
		if _, err := o.ring.WriteAt(p[:k], at); err != nil {
			return err
		}
		o.spilled += int64(k)
		p = p[k:]
	}
	return nil
}

// dropFiles gives up saving: the file stays as far as it got.
func (o *Output) dropFiles() {
	if o.file != nil {
		_ = o.file.Close()
		o.file = nil
	}
	if o.ring != nil {
		_ = o.ring.Close()
		_ = os.Remove(o.ring.Name())
		o.ring = nil
	}
}

// Close finishes the saved file, if any: the tail kept in the ring goes
// after the head, in order, behind a line saying what was cut. Call it
// once the command wrote its last byte, before String.
func (o *Output) Close() {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.file == nil {
		return
	}
	if err := o.masker.Flush(); err != nil && o.fileErr == nil {
		o.fileErr = err
	}
	if o.ring != nil {
		if err := o.appendRing(); err != nil && o.fileErr == nil {
			o.fileErr = err
		}
	}
	// The size of the file written, not of what its path names now: a
	// command may have put something else there.
	info, serr := o.file.Stat()
	if err := o.file.Close(); err != nil && o.fileErr == nil {
		o.fileErr = err
	}
	o.file = nil
	o.dropFiles()
	if serr == nil {
		o.emptied = append(o.emptied, o.spills.sized(o.savedPath, info.Size(), false)...)
	}
}

func (o *Output) appendRing() error {
	after := o.spilled - SpillHead // bytes that went to the ring
	kept := min(after, spillTail)
	start := int64(0) // of the oldest byte kept in the ring
	if after > spillTail {
		o.spillCut = after - spillTail
		start = after % spillTail
		note := fmt.Sprintf("\n[… dev cut %s here (%d bytes): the output was %s in all; this file keeps its first %d MB and its last %s …]\n",
			textfmt.Size(o.spillCut), o.spillCut, textfmt.Size(o.spilled), SpillHead>>20, textfmt.Size(kept))
		if _, err := io.WriteString(o.file, note[:min(len(note), spillNote)]); err != nil {
			return err
		}
	}
	if _, err := io.Copy(o.file, io.NewSectionReader(o.ring, start, kept-start)); err != nil {
		return err
	}
	_, err := io.Copy(o.file, io.NewSectionReader(o.ring, 0, start))
	return err
}

// String renders the output for the model: all of it when short; else the
// head and the tail on line boundaries, and between them a line saying what
// was cut and where the whole output is.
func (o *Output) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.total == 0 {
		return "(no output)"
	}
	if o.total <= OutputHead+OutputTail {
		return Clean(string(o.head) + string(o.tail))
	}
	head := o.head
	if i := bytes.LastIndexByte(head, '\n'); i >= 0 {
		head = head[:i+1]
	}
	tail := o.tail[max(0, len(o.tail)-OutputTail):]
	if i := bytes.IndexByte(tail, '\n'); i >= 0 && i < len(tail)-1 {
		tail = tail[i+1:]
	}
	cutBytes := o.total - int64(len(head)) - int64(len(tail))
	cutLines := o.lines - int64(bytes.Count(head, []byte{'\n'})) - int64(bytes.Count(tail, []byte{'\n'}))
	var b strings.Builder
	b.WriteString(Clean(string(head)))
	b.WriteByte('\n')
	// CutOf reads this note back: the two change together.
	fmt.Fprintf(&b, "[… %s cut (%s of %s in all, %s) …", textfmt.Size(cutBytes), textfmt.Plural(int(cutLines), "line"), textfmt.Size(o.total), textfmt.Plural(int(o.lines), "line"))
	switch {
	case o.fileErr != nil:
		fmt.Fprintf(&b, " %s %s]\n", notSaved, reason(o.fileErr))
	case o.spillCut > 0:
		fmt.Fprintf(&b, " its first %d MB and last %d MB %s %s]\n", SpillHead>>20, (SpillMax-SpillHead)>>20, savedIn, o.savedPath)
	default:
		fmt.Fprintf(&b, " full output %s %s]\n", savedIn, o.savedPath)
	}
	if note := emptiedNote(o.emptied, o.spills.limit()); note != "" {
		b.WriteString(note + "\n")
	}
	b.WriteString(Clean(string(tail)))
	return b.String()
}

// clean makes command output safe to send: valid UTF-8, no final newline.
func Clean(s string) string {
	return strings.TrimRight(strings.ToValidUTF8(s, "\uFFFD"), "\n")
}

// reason is why saving failed, without the path the note names already.
func reason(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return err.Error()
}

// The words of the note String writes where it cut an output.
const (
	savedIn  = "saved in"
	notSaved = "the full output could not be saved:"
)

// Cut is what the model did not see of a long command output: String
// keeps its head and its tail, and says between them what it left out
// and where the whole output is.
type Cut struct {
	Note  string // the note's line, as the output holds it
	Lines int    // lines left out between the head and the tail
	Size  string // their size, as the note says it: "52.3 KB"
	// Path is the file the whole output was saved in; "" when it could
	// not be saved.
	Path string
}

// cutNote matches the note String writes: its size, its count of lines,
// and what follows the second ellipsis.
var cutNote = regexp.MustCompile(`(?m)^\[… ([0-9.]+ [A-Za-z]+) cut \(([0-9]+) lines? of [^)]* in all, [0-9]+ lines?\) … (.*)\]$`)

// CutOf reads back the note of an output that was cut for the model (a
// result's output, or one read back from the history); ok is false when
// the output was not cut.
func CutOf(output string) (c Cut, ok bool) {
	m := cutNote.FindStringSubmatch(output)
	if m == nil {
		return Cut{}, false
	}
	c.Note, c.Size = m[0], m[1]
	c.Lines, _ = strconv.Atoi(m[2])
	if rest := m[3]; !strings.HasPrefix(rest, notSaved) {
		if i := strings.Index(rest, savedIn+" "); i >= 0 {
			c.Path = rest[i+len(savedIn)+1:]
		}
	}
	return c, true
}
