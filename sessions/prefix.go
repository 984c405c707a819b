package sessions

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"
)

// MinPrefix is the shortest session-id prefix Resolve accepts: short
// enough to type, long enough to stay unique among thousands of sessions.
const MinPrefix = 6

// ErrAmbiguous: a prefix matches several sessions (an *AmbiguousError).
var ErrAmbiguous = errors.New("the prefix matches several sessions")

// AmbiguousError names the sessions a prefix matches.
type AmbiguousError struct {
	Prefix  string
	Matches []string // sorted
}

func (e *AmbiguousError) Error() string {
	return fmt.Sprintf("%q matches %d sessions: %s; type more of the id", e.Prefix, len(e.Matches), strings.Join(e.Matches, ", "))
}

// Unwrap makes errors.Is(err, ErrAmbiguous) true.
func (e *AmbiguousError) Unwrap() error { return ErrAmbiguous }

// Resolve turns what a user typed for a session id into the id: a whole id
// as it is (whether or not the session exists), or a unique prefix of at
// least MinPrefix characters of a stored session's id. Otherwise ErrBadID,
// ErrNotFound, or an *AmbiguousError.
func (s *Store) Resolve(typed string) (string, error) {
	typed = strings.ToLower(strings.TrimSpace(typed))
	if ValidID(typed) {
		return typed, nil
	}
	if len(typed) < MinPrefix || strings.Trim(typed, "0123456789abcdef-") != "" {
		return "", fmt.Errorf("%w: %q (or a unique prefix of one, at least %d characters)", ErrBadID, typed, MinPrefix)
	}
	entries, err := os.ReadDir(s.dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("list sessions: %w", err)
	}
	var matches []string
	for _, e := range entries {
		id, ok := strings.CutSuffix(e.Name(), ".json")
		if ok && ValidID(id) && strings.HasPrefix(id, typed) && e.Type().IsRegular() {
			matches = append(matches, id)
		}
	}
	switch len(matches) {
	case 0:
		return "", fmt.Errorf("%w: no session id starts with %s", ErrNotFound, typed)
	case 1:
		return matches[0], nil
	}
	slices.Sort(matches)
	return "", &AmbiguousError{Prefix: typed, Matches: matches}
}
