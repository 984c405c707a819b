package sessions

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestResolve(t *testing.T) {
	t.Parallel()
	s := NewStore(t.TempDir(), nil)
	ids := []string{
		"0123abcd-0000-4000-8000-000000000001",
		"0123abce-0000-4000-8000-000000000002",
		"9f00aaaa-0000-4000-8000-000000000003",
	}
	for _, id := range ids {
		sess, err := s.New(id, t.TempDir(), "p", "m")
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Save(sess); err != nil {
			t.Fatal(err)
		}
	}
	// A directory named like a session (its artefacts) is not a session.
	if err := os.Mkdir(filepath.Join(s.dir, "77777777-0000-4000-8000-000000000000"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		typed, want string
		err         error
	}{
		{ids[0], ids[0], nil},
		{"9f00aa", ids[2], nil},
		{" 9F00AAAA-0 ", ids[2], nil},
		{"0123abcd", ids[0], nil},
		{"0123ab", "", ErrAmbiguous},
		{"9f00a", "", ErrBadID},     // too short
		{"session", "", ErrBadID},   // not hex
		{"777777", "", ErrNotFound}, // only a directory
		{"aaaaaa", "", ErrNotFound},
		{"ffffffff-0000-4000-8000-000000000000", "ffffffff-0000-4000-8000-000000000000", nil}, // whole ids pass: --session creates
	} {
		got, err := s.Resolve(tt.typed)
		if got != tt.want || !errors.Is(err, tt.err) {
			t.Errorf("Resolve(%q) = %q, %v; want %q, %v", tt.typed, got, err, tt.want, tt.err)
		}
	}
	_, err := s.Resolve("0123ab")
	var amb *AmbiguousError
	if !errors.As(err, &amb) || len(amb.Matches) != 2 || amb.Matches[0] != ids[0] || amb.Matches[1] != ids[1] {
		t.Errorf("ambiguous: %v", err)
	}
}
