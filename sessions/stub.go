package sessions

import (
	"errors"
	"time"
)

// Errors callers distinguish (with errors.Is).
var (
	ErrNotFound  = errors.New("session not found")
	ErrInUse     = errors.New("session is in use by another dev process")
	ErrNoSession = errors.New("no session for this directory")
	ErrBadID     = errors.New("not a session id (expected a lowercase UUID)")
)

// Store is the sessions directory (<config dir>/sessions).
type Store struct{}

// NewStore opens the store at dir (created on first write); now is the clock.
func NewStore(dir string, now func() time.Time) *Store { panic("stub") }

// New returns a new active session in memory (not saved). An empty id
// generates a UUID v4; a given id must be a valid lowercase UUID (ErrBadID).
func (s *Store) New(id, workingDirectory, prompt, model string) (*Session, error) { panic("stub") }

// Load reads a session by id (ErrNotFound, ErrBadID, or a decode error).
func (s *Store) Load(id string) (*Session, error) { panic("stub") }

// Save sets UpdatedAt and writes the session atomically (temp file, fsync, rename).
func (s *Store) Save(sess *Session) error { panic("stub") }

// Lock marks the session as in use by this process until release is called
// (or the process dies). ErrInUse when another process holds it.
func (s *Store) Lock(id string) (release func(), err error) { panic("stub") }

// Last returns the last session used in the absolute directory dir (ErrNoSession).
func (s *Store) Last(dir string) (string, error) { panic("stub") }

// Remember records id as the last session of dir in directory-map.json,
// without losing entries written concurrently by other processes.
func (s *Store) Remember(dir, id string) error { panic("stub") }

// Prune removes sessions (and their directories) whose UpdatedAt is older
// than maxAge, skipping locked ones. maxAge 0 keeps everything.
func (s *Store) Prune(maxAge time.Duration) (removed int, err error) { panic("stub") }

// List returns all sessions, newest UpdatedAt first. Unreadable files are skipped.
func (s *Store) List() ([]*Session, error) { panic("stub") }

// Dir is the per-session directory for large artefacts (full command outputs).
func (s *Store) Dir(id string) string { panic("stub") }
