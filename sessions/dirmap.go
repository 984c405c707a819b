package sessions

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"

	"github.com/gofrs/flock"
)

const (
	mapFile     = "directory-map.json"
	mapLockFile = "directory-map.lock"
)

func mapKey(dir string) (string, error) {
	if dir == "" {
		return "", errors.New("empty directory")
	}
	return filepath.Abs(dir)
}

// Last returns the last session used in the absolute directory dir
// (ErrNoSession, also when that session's file is gone).
func (s *Store) Last(dir string) (string, error) {
	key, err := mapKey(dir)
	if err != nil {
		return "", fmt.Errorf("last session: %w", err)
	}
	// Writers replace the map by rename, so reading needs no lock.
	m, err := s.readMap()
	if errors.Is(err, errMapCorrupt) {
		m, err = s.healMap()
	}
	if err != nil {
		return "", err
	}
	id, ok := m[key]
	if !ok || !ValidID(id) {
		return "", fmt.Errorf("%w: %s", ErrNoSession, key)
	}
	if _, err := os.Stat(s.path(id)); errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("%w: %s (its last session %s no longer exists)", ErrNoSession, key, id)
	} else if err != nil {
		return "", fmt.Errorf("last session: %w", err)
	}
	return id, nil
}

// Remember records id as the last session of dir in directory-map.json,
// without losing entries written concurrently by other processes. The map
// names a session only once its file exists: for a session not saved yet,
// its first Save (by this Store) records it, so that a dev that dies
// before saving leaves no entry to a session that does not exist.
func (s *Store) Remember(dir, id string) error {
	if !ValidID(id) {
		return badID(id)
	}
	key, err := mapKey(dir)
	if err != nil {
		return fmt.Errorf("remember session: %w", err)
	}
	if _, err := os.Stat(s.path(id)); errors.Is(err, fs.ErrNotExist) {
		s.rememberMu.Lock()
		defer s.rememberMu.Unlock()
		if s.remember == nil {
			s.remember = map[string]string{}
		}
		s.remember[id] = key
		return nil
	}
	return s.remember1(key, id)
}

// rememberSaved maps the session just saved, if Remember was asked to
// before it existed. A failure leaves it for the next save: the map only
// holds hints for --resume, and a save must not fail for it.
func (s *Store) rememberSaved(id string) {
	s.rememberMu.Lock()
	defer s.rememberMu.Unlock()
	key, ok := s.remember[id]
	if ok && s.remember1(key, id) == nil {
		delete(s.remember, id)
	}
}

// remember1 records id as dir key's last session.
func (s *Store) remember1(key, id string) error {
	return s.updateMap(func(m map[string]string) bool {
		if m[key] == id {
			return false
		}
		m[key] = id
		return true
	})
}

// OnWarning makes warn receive what the store repairs by itself (a
// corrupt directory map set aside and rebuilt), for the user to see.
func (s *Store) OnWarning(warn func(string)) { s.warn = warn }

// errMapCorrupt is a directory map that is not a JSON object of strings.
var errMapCorrupt = errors.New("directory map is corrupt")

// readMap returns the directory map; a missing file is an empty map.
func (s *Store) readMap() (map[string]string, error) {
	path := filepath.Join(s.dir, mapFile)
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]string{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read directory map: %w", err)
	}
	m := map[string]string{}
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("%w: %s: %w", errMapCorrupt, path, err)
	}
	return m, nil
}

// healMap repairs a corrupt directory map under the map's lock (another
// process may be repairing it too) and returns it.
func (s *Store) healMap() (map[string]string, error) {
	var healed map[string]string
	err := s.updateMap(func(m map[string]string) bool {
		healed = maps.Clone(m)
		return false
	})
	return healed, err
}

// rebuildMap sets the corrupt map aside and rebuilds it from the session
// files, each of which records its working directory: the newest session
// of each directory. Replacing it with an empty map would make every
// other directory lose --resume at the next save. The caller holds the
// map's lock.
func (s *Store) rebuildMap(cause error) (map[string]string, error) {
	path := filepath.Join(s.dir, mapFile)
	aside := filepath.Join(s.dir, "directory-map.json.corrupt-"+s.now().UTC().Format("20060102T150405Z"))
	if err := os.Rename(path, aside); err != nil {
		return nil, fmt.Errorf("set the corrupt directory map aside: %w", err)
	}
	entries, err := s.Entries()
	if err != nil {
		return nil, fmt.Errorf("rebuild the directory map: %w", err)
	}
	m := map[string]string{}
	for _, e := range entries { // newest first: the first of a directory is its last
		if e.Session == nil {
			continue
		}
		if key, err := mapKey(e.Session.WorkingDirectory); err == nil && m[key] == "" {
			m[key] = e.ID
		}
	}
	if s.warn != nil {
		s.warn(fmt.Sprintf("%v; set aside as %s and rebuilt from the session files (%d directories)", cause, aside, len(m)))
	}
	return m, nil
}

// updateMap applies change to the directory map under an exclusive lock
// held across read, change and write, so concurrent processes serialise
// instead of overwriting each other's entries. change reports whether it
// changed anything.
func (s *Store) updateMap(change func(map[string]string) bool) error {
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return fmt.Errorf("update directory map: %w", err)
	}
	fl := flock.New(filepath.Join(s.dir, mapLockFile))
	if err := fl.Lock(); err != nil {
		return fmt.Errorf("lock directory map: %w", err)
	}
	defer func() { _ = fl.Unlock() }()
	m, err := s.readMap()
	rebuilt := false
	if errors.Is(err, errMapCorrupt) {
		// The map is written atomically, so corruption means a hand edit
		// gone wrong or a disk's fault; the session files still know.
		m, err = s.rebuildMap(err)
		rebuilt = true
	}
	if err != nil {
		return err
	}
	if !change(m) && !rebuilt {
		return nil
	}
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return fmt.Errorf("update directory map: %w", err)
	}
	if err := writeFileAtomic(s.dir, mapFile, append(data, '\n')); err != nil {
		return fmt.Errorf("update directory map: %w", err)
	}
	return nil
}
