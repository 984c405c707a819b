package sessions

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/devagent/dev/checkpoints"
	"github.com/devagent/dev/llm"
	"github.com/devagent/dev/parser"
	"github.com/google/uuid"
)

// Errors callers distinguish (with errors.Is).
var (
	ErrNotFound  = errors.New("session not found")
	ErrInUse     = errors.New("session is in use by another dev process")
	ErrNoSession = errors.New("no session for this directory")
	ErrBadID     = errors.New("not a session id (expected a lowercase UUID)")
	// ErrCorrupt: the session file cannot be read as a session (see
	// CorruptError for which file and what in it).
	ErrCorrupt = errors.New("session file is corrupt")
)

// CorruptError names a session file that cannot be read as a session, and
// what in it is wrong: a field, or the place of a JSON syntax error.
type CorruptError struct {
	Path  string
	Field string // e.g. "status", "history[3]"; "" when the JSON itself is broken
	// Line and Column of a syntax error, from 1; 0 otherwise.
	Line, Column int
	Err          error
}

func (e *CorruptError) Error() string {
	switch {
	case e.Field != "":
		return fmt.Sprintf("session file %s is corrupt: field %s: %v", e.Path, e.Field, e.Err)
	case e.Line > 0:
		return fmt.Sprintf("session file %s is corrupt: line %d, column %d: %v", e.Path, e.Line, e.Column, e.Err)
	}
	return fmt.Sprintf("session file %s is corrupt: %v", e.Path, e.Err)
}

// Is makes errors.Is(err, ErrCorrupt) hold.
func (e *CorruptError) Is(target error) bool { return target == ErrCorrupt }

func (e *CorruptError) Unwrap() error { return e.Err }

// Store is the sessions directory (<config dir>/sessions). Its methods are
// safe for concurrent use, by goroutines and by processes.
type Store struct {
	dir string
	now func() time.Time
	// last holds the lists of the session saved last, encoded, for its
	// next save.
	last encodedLists

	// remember holds the directories of sessions Remember was asked to
	// map before their file existed, by id: their first Save maps them.
	rememberMu sync.Mutex
	remember   map[string]string

	warn func(string) // see OnWarning
}

// NewStore opens the store at dir (created on first write); now is the
// clock (nil: time.Now).
func NewStore(dir string, now func() time.Time) *Store {
	if now == nil {
		now = time.Now
	}
	return &Store{dir: dir, now: now}
}

// Open is the store of a configuration directory: its sessions directory.
func Open(configDir string, now func() time.Time) *Store {
	return NewStore(filepath.Join(configDir, "sessions"), now)
}

// ValidID reports whether id is a session id: a UUID in its canonical
// lowercase form. Ids become file names, so this is also what keeps them
// inside the store.
func ValidID(id string) bool {
	if len(id) != 36 {
		return false
	}
	for i := range len(id) {
		c := id[i]
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
				return false
			}
		}
	}
	return true
}

func badID(id string) error { return fmt.Errorf("%w: %q", ErrBadID, id) }

func (s *Store) path(id string) string { return filepath.Join(s.dir, id+".json") }

// Dir is the per-session directory for large artefacts (full command
// outputs). id must be valid (it comes from New or Load).
func (s *Store) Dir(id string) string { return filepath.Join(s.dir, id) }

// New returns a new active session in memory (not saved). An empty id
// generates a UUID v4; a given id must be a valid lowercase UUID (ErrBadID).
// Any UUID version is accepted for a given id, so users may bring their own.
func (s *Store) New(id, workingDirectory, prompt, model string) (*Session, error) {
	if id == "" {
		u, err := uuid.NewRandom()
		if err != nil {
			return nil, fmt.Errorf("new session id: %w", err)
		}
		id = u.String()
	} else if !ValidID(id) {
		return nil, badID(id)
	}
	wd, err := filepath.Abs(workingDirectory)
	if err != nil {
		return nil, fmt.Errorf("session working directory: %w", err)
	}
	now := s.now().UTC()
	return &Session{
		ID:               id,
		CreatedAt:        now,
		UpdatedAt:        now,
		WorkingDirectory: wd,
		OriginalPrompt:   prompt,
		Model:            model,
		Status:           Active,
		TaskList:         []parser.Task{},
		History:          []llm.Message{},
		Compressions:     []Compression{},
		Audits:           []Audit{},
		Requests:         []Request{},
		Checkpoints:      []checkpoints.Checkpoint{},
	}, nil
}

// Load reads a session by id (ErrNotFound, ErrBadID, or a *CorruptError
// naming the file and the field). A session saved as active whose lock no
// dev holds is one whose dev died: Load reports it interrupted.
func (s *Store) Load(id string) (*Session, error) {
	if !ValidID(id) {
		return nil, badID(id)
	}
	path := s.path(id)
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w: %s", ErrNotFound, id)
	}
	if err != nil {
		return nil, fmt.Errorf("read session: %w", err)
	}
	sess, err := decode(path, id, data)
	if err != nil {
		return nil, err
	}
	sess.Status = s.liveStatus(id, sess.Status)
	return sess, nil
}

// liveStatus is the status of session id as a reader should see it: a
// session saved as active whose lock no dev holds is one whose dev died,
// interrupted.
func (s *Store) liveStatus(id string, saved Status) Status {
	if saved == Active && !s.held(id) {
		return Interrupted
	}
	return saved
}

// decode reads a session file's content, checking what the format
// promises: the id of its name, a known status, fields of their types.
func decode(path, id string, data []byte) (*Session, error) {
	var sess Session
	if err := json.Unmarshal(data, &sess); err != nil {
		e := &CorruptError{Path: path, Err: err}
		var syntax *json.SyntaxError
		switch {
		case len(bytes.TrimSpace(data)) == 0:
			e.Err = errors.New("the file is empty")
		case errors.As(err, &syntax):
			// Offset counts the bytes read, the offending one included.
			e.Line, e.Column = position(data, syntax.Offset-1)
		default:
			e.Field = badField(data)
		}
		return nil, e
	}
	if sess.ID != id {
		return nil, &CorruptError{Path: path, Field: "id", Err: fmt.Errorf("%q, but the file is named after %s", sess.ID, id)}
	}
	if !stored(sess.Status) {
		return nil, &CorruptError{Path: path, Field: "status", Err: fmt.Errorf("%q is not active, complete, failed or interrupted", sess.Status)}
	}
	fillEmpty(&sess)
	fillPrompts(&sess)
	return &sess, nil
}

// stored reports whether a session file may hold status: "" is a file
// written by hand, or before statuses.
func stored(status Status) bool {
	switch status {
	case Active, Complete, Failed, Interrupted, "":
		return true
	}
	return false
}

// position is the line and column (from 1, in bytes) of offset in data.
func position(data []byte, offset int64) (line, col int) {
	offset = min(max(offset, 0), int64(len(data)))
	before := data[:offset]
	line = bytes.Count(before, []byte{'\n'}) + 1
	return line, len(before) - bytes.LastIndexByte(before, '\n')
}

// badField finds the field of a session file that does not decode, down to
// the element of a list: "history[3]". json's own errors name no field
// for some values (a time that does not parse).
func badField(data []byte) string {
	var fields map[string]json.RawMessage
	if json.Unmarshal(data, &fields) != nil {
		return ""
	}
	t := reflect.TypeFor[Session]()
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		raw, ok := fields[name]
		if !ok || json.Unmarshal(raw, reflect.New(f.Type).Interface()) == nil {
			continue
		}
		if f.Type.Kind() == reflect.Slice {
			var items []json.RawMessage
			if json.Unmarshal(raw, &items) == nil {
				for j, item := range items {
					if json.Unmarshal(item, reflect.New(f.Type.Elem()).Interface()) != nil {
						return fmt.Sprintf("%s[%d]", name, j)
					}
				}
			}
		}
		return name
	}
	return ""
}

// fillEmpty replaces nil lists with empty ones: the file format promises
// arrays, never null.
func fillEmpty(sess *Session) {
	if sess.TaskList == nil {
		sess.TaskList = []parser.Task{}
	}
	if sess.History == nil {
		sess.History = []llm.Message{}
	}
	if sess.Compressions == nil {
		sess.Compressions = []Compression{}
	}
	if sess.Audits == nil {
		sess.Audits = []Audit{}
	}
	if sess.Requests == nil {
		sess.Requests = []Request{}
	}
	if sess.Checkpoints == nil {
		sess.Checkpoints = []checkpoints.Checkpoint{}
	}
}

// Save sets UpdatedAt and writes the session atomically (temp file, fsync,
// rename): a crash at any point leaves the previous file or the new one.
// It runs after every step of a run, so it does one encode and one write.
func (s *Store) Save(sess *Session) error {
	if sess == nil {
		return errors.New("save session: nil session")
	}
	if !ValidID(sess.ID) {
		return badID(sess.ID)
	}
	sess.UpdatedAt = s.now().UTC()
	if sess.CreatedAt.IsZero() {
		sess.CreatedAt = sess.UpdatedAt
	}
	data, err := s.last.encode(sess)
	if err != nil {
		return fmt.Errorf("save session %s: %w", sess.ID, err)
	}
	if err := writeFileAtomic(s.dir, sess.ID+".json", data); err != nil {
		return fmt.Errorf("save session %s: %w", sess.ID, err)
	}
	s.rememberSaved(sess.ID)
	return nil
}

// SaveSynced is Save, and once it returns the new file is on disk: its
// directory entry is synced too. What must survive a crash of the machine
// uses it (the checkpoint a rewind takes before it touches a file); a
// run's saves after every step need not pay for it.
func (s *Store) SaveSynced(sess *Session) error {
	if err := s.Save(sess); err != nil {
		return err
	}
	if err := syncDir(s.dir); err != nil {
		return fmt.Errorf("save session %s: %w", sess.ID, err)
	}
	return nil
}

// encode marshals a copy of sess with every time in UTC and every list an
// array. HTML escaping is off: histories are full of <tool_result> tags that
// would otherwise be stored as \u003c.
func encode(sess *Session) ([]byte, error) {
	out := *sess
	fillEmpty(&out)
	out.CreatedAt = out.CreatedAt.UTC()
	out.UpdatedAt = out.UpdatedAt.UTC()
	if slices.ContainsFunc(out.Compressions, func(c Compression) bool { return c.Timestamp.Location() != time.UTC }) {
		out.Compressions = slices.Clone(out.Compressions)
		for i := range out.Compressions {
			out.Compressions[i].Timestamp = out.Compressions[i].Timestamp.UTC()
		}
	}
	if slices.ContainsFunc(out.Audits, func(a Audit) bool { return a.Timestamp.Location() != time.UTC }) {
		out.Audits = slices.Clone(out.Audits)
		for i := range out.Audits {
			out.Audits[i].Timestamp = out.Audits[i].Timestamp.UTC()
		}
	}
	if slices.ContainsFunc(out.Requests, func(r Request) bool { return r.Timestamp.Location() != time.UTC }) {
		out.Requests = slices.Clone(out.Requests)
		for i := range out.Requests {
			out.Requests[i].Timestamp = out.Requests[i].Timestamp.UTC()
		}
	}
	if slices.ContainsFunc(out.Checkpoints, func(c checkpoints.Checkpoint) bool { return c.Time.Location() != time.UTC }) {
		out.Checkpoints = slices.Clone(out.Checkpoints)
		for i := range out.Checkpoints {
			out.Checkpoints[i].Time = out.Checkpoints[i].Time.UTC()
		}
	}
	size := 1024
	for _, m := range out.History {
		size += len(m.Content) + len(m.Role) + 32
	}
	buf := bytes.NewBuffer(make([]byte, 0, size+size/8))
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(&out); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Entry is one session file of the store: the session, or why it cannot
// be read.
type Entry struct {
	ID      string
	Path    string
	Session *Session  // nil when Err is set
	Err     error     // a *CorruptError, or the error reading the file
	ModTime time.Time // of the file: when an unreadable session changed last
}

// Entries returns every session file, newest first (by UpdatedAt, or the
// modification time of a file that cannot be read), unreadable ones
// included: dev sessions list shows them rather than hide them.
func (s *Store) Entries() ([]Entry, error) {
	dirEntries, err := os.ReadDir(s.dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	var entries []Entry
	for _, e := range dirEntries {
		id, ok := strings.CutSuffix(e.Name(), ".json")
		if ok && ValidID(id) && e.Type().IsRegular() {
			entries = append(entries, Entry{ID: id, Path: s.path(id)})
		}
	}
	// Decoding dominates with hundreds of long sessions; spread it over
	// the CPUs.
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(entries)) {
		wg.Go(func() {
			for i := range next {
				e := &entries[i]
				e.Session, e.Err = s.Load(e.ID)
				if fi, err := os.Stat(e.Path); err == nil {
					e.ModTime = fi.ModTime()
				}
			}
		})
	}
	for i := range entries {
		next <- i
	}
	close(next)
	wg.Wait()
	// A file removed meanwhile (pruned) is no entry.
	entries = slices.DeleteFunc(entries, func(e Entry) bool { return errors.Is(e.Err, ErrNotFound) })
	when := func(e Entry) time.Time {
		if e.Session != nil {
			return e.Session.UpdatedAt
		}
		return e.ModTime
	}
	slices.SortFunc(entries, func(a, b Entry) int {
		if c := when(b).Compare(when(a)); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return entries, nil
}

// List returns the sessions that can be read, newest UpdatedAt first
// (Entries has the others too).
func (s *Store) List() ([]*Session, error) {
	entries, err := s.Entries()
	if err != nil {
		return nil, err
	}
	var list []*Session
	for _, e := range entries {
		if e.Session != nil {
			list = append(list, e.Session)
		}
	}
	return list, nil
}

// encodedLists makes saving a session cost what its last step added,
// not its whole history: a save repeats the lists of the save before (the
// history, the requests, the checkpoints) plus a step, so the elements
// encoded last time are kept and those still at the same place reused
// (BenchmarkSave: a 300-step session saved in 0.9 ms instead of 1.8;
// BenchmarkEncodeLong: with 300 requests and 150 checkpoints, see
// there). The bytes are encode's (TestSaveEncodesOnce).
type encodedLists struct {
	mu          sync.Mutex
	id          string // the session
	history     listCache[llm.Message]
	requests    listCache[Request]
	checkpoints listCache[checkpoints.Checkpoint]
}

// listCache is a list as last saved, and the encoding of each element.
type listCache[T comparable] struct {
	items   []T
	encoded [][]byte
}

// update encodes items, reusing the encodings of the elements at the
// same place last time; utc puts an element's times in UTC, as encode
// does.
func (c *listCache[T]) update(items []T, utc func(T) T) error {
	encoded := make([][]byte, len(items))
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	for i, item := range items {
		// The same element at the same place: a list that grew. Equal
		// strings that share their bytes compare in constant time.
		if i < len(c.items) && item == c.items[i] {
			encoded[i] = c.encoded[i]
			continue
		}
		buf.Reset()
		if utc != nil {
			item = utc(item)
		}
		if err := enc.Encode(item); err != nil {
			return err
		}
		encoded[i] = bytes.Clone(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
	}
	c.items, c.encoded = slices.Clone(items), encoded
	return nil
}

func (c *listCache[T]) size() int {
	n := 0
	for _, e := range c.encoded {
		n += len(e) + 1
	}
	return n
}

// appendTo appends the encoded elements, comma-separated.
func (c *listCache[T]) appendTo(out []byte) []byte {
	for i, e := range c.encoded {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, e...)
	}
	return out
}

// The lists' fields in a session encoded with them empty, in the order
// of Session's fields. A string value holds no unescaped quote, so these
// bytes are the fields themselves.
var (
	historyField     = []byte(`"history":[]`)
	requestsField    = []byte(`"requests":[]`)
	checkpointsField = []byte(`"checkpoints":[]`)
)

// encode is encode(sess), made from the lists' elements of the last save.
func (h *encodedLists) encode(sess *Session) ([]byte, error) {
	rest := *sess
	rest.History, rest.Requests, rest.Checkpoints = []llm.Message{}, []Request{}, []checkpoints.Checkpoint{}
	data, err := encode(&rest)
	if err != nil {
		return nil, err
	}
	var at [3]int
	from := 0
	for i, field := range [][]byte{historyField, requestsField, checkpointsField} {
		j := bytes.Index(data[from:], field)
		if j < 0 {
			return nil, fmt.Errorf("encoding the session: no %s field", field)
		}
		at[i] = from + j + len(field) - 1 // at the list's closing bracket
		from = at[i]
	}

	h.mu.Lock()
	defer h.mu.Unlock()
	if h.id != sess.ID {
		h.id, h.history, h.requests, h.checkpoints = sess.ID, listCache[llm.Message]{}, listCache[Request]{}, listCache[checkpoints.Checkpoint]{}
	}
	if err := h.history.update(sess.History, nil); err != nil {
		return nil, err
	}
	if err := h.requests.update(sess.Requests, func(r Request) Request { r.Timestamp = r.Timestamp.UTC(); return r }); err != nil {
		return nil, err
	}
	if err := h.checkpoints.update(sess.Checkpoints, func(c checkpoints.Checkpoint) checkpoints.Checkpoint { c.Time = c.Time.UTC(); return c }); err != nil {
		return nil, err
	}
	out := make([]byte, 0, len(data)+h.history.size()+h.requests.size()+h.checkpoints.size())
	out = append(out, data[:at[0]]...)
	out = h.history.appendTo(out)
	out = append(out, data[at[0]:at[1]]...)
	out = h.requests.appendTo(out)
	out = append(out, data[at[1]:at[2]]...)
	out = h.checkpoints.appendTo(out)
	out = append(out, data[at[2]:]...)
	return out, nil
}
