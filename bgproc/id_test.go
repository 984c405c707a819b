package bgproc

import (
	"regexp"
	"strings"
	"testing"
)

func TestNewID(t *testing.T) {
	t.Parallel()
	valid := regexp.MustCompile(`^proc_[a-z0-9]{6}$`)
	seen := map[string]bool{}
	chars := map[rune]int{}
	for range 2000 {
		id := newID()
		if !valid.MatchString(id) {
			t.Fatalf("id %q does not match %s", id, valid)
		}
		seen[id] = true
		for _, c := range strings.TrimPrefix(id, IDPrefix) {
			chars[c]++
		}
	}
	if len(seen) < 1990 {
		t.Errorf("%d distinct ids of 2000", len(seen))
	}
	// 12000 characters over 36: each is expected 333 times.
	for _, c := range idChars {
		if n := chars[c]; n < 200 || n > 500 {
			t.Errorf("character %q drawn %d times of 12000", c, n)
		}
	}
}
