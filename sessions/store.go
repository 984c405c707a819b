package sessions

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/devagent/dev/llm"
	"github.com/google/uuid"
)

// Errors callers distinguish (with errors.Is).
var (
	ErrNotFound  = errors.New("session not found")
	ErrInUse     = errors.New("session is in use by another dev process")
	ErrNoSession = errors.New("no session for this directory")
	ErrBadID     = errors.New("not a session id (expected a lowercase UUID)")
)

// Store is the sessions directory (<config dir>/sessions). Its methods are
// safe for concurrent use, by goroutines and by processes.
type Store struct {
	dir string
	now func() time.Time
}

// NewStore opens the store at dir (created on first write); now is the
// clock (nil: time.Now).
func NewStore(dir string, now func() time.Time) *Store {
	if now == nil {
		now = time.Now
	}
	return &Store{dir: dir, now: now}
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
		TaskList:         []Task{},
		History:          []llm.Message{},
		Compressions:     []Compression{},
		Audits:           []Audit{},
	}, nil
}

// Load reads a session by id (ErrNotFound, ErrBadID, or an error naming the
// file when it cannot be decoded).
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
	var sess Session
	if err := json.Unmarshal(data, &sess); err != nil {
		return nil, fmt.Errorf("session file %s is corrupt: %w", path, err)
	}
	if sess.ID != id {
		return nil, fmt.Errorf("session file %s is corrupt: it holds session %q", path, sess.ID)
	}
	fillEmpty(&sess)
	return &sess, nil
}

// fillEmpty replaces nil lists with empty ones: the file format promises
// arrays, never null.
func fillEmpty(sess *Session) {
	if sess.TaskList == nil {
		sess.TaskList = []Task{}
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
	data, err := encode(sess)
	if err != nil {
		return fmt.Errorf("save session %s: %w", sess.ID, err)
	}
	if err := writeFileAtomic(s.dir, sess.ID+".json", data); err != nil {
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

// List returns all sessions, newest UpdatedAt first. Unreadable files are
// skipped.
func (s *Store) List() ([]*Session, error) {
	entries, err := os.ReadDir(s.dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	var ids []string
	for _, e := range entries {
		id, ok := strings.CutSuffix(e.Name(), ".json")
		if ok && ValidID(id) && e.Type().IsRegular() {
			ids = append(ids, id)
		}
	}
	// Decoding dominates with hundreds of long sessions; spread it over
	// the CPUs.
	loaded := make([]*Session, len(ids))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(ids)) {
		wg.Go(func() {
			for i := range next {
				loaded[i], _ = s.Load(ids[i])
			}
		})
	}
	for i := range ids {
		next <- i
	}
	close(next)
	wg.Wait()
	list := slices.DeleteFunc(loaded, func(sess *Session) bool { return sess == nil })
	slices.SortFunc(list, func(a, b *Session) int {
		if c := b.UpdatedAt.Compare(a.UpdatedAt); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return list, nil
}
