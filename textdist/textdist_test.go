package textdist

import (
	"strings"
	"testing"
)

func TestDistance(t *testing.T) {
	t.Parallel()
	tests := []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"model", "model", 0},
		{"modle", "model", 1}, // a swap of neighbours is one slip
		{"sbu", "sub", 1},
		{"maxLoop", "maxLoops", 1},
		{"kitten", "sitting", 3},
		{"", "abc", 3},
		{"héllo", "hello", 1}, // runes, not bytes
	}
	for _, tt := range tests {
		if got := Distance(tt.a, tt.b); got != tt.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
		if got := Distance(tt.b, tt.a); got != tt.want {
			t.Errorf("Distance(%q, %q) = %d, want %d (symmetric)", tt.b, tt.a, got, tt.want)
		}
	}
}

func TestClosest(t *testing.T) {
	t.Parallel()
	commands := []string{"/help", "/exit", "/tasks", "/new", "/clear", "/model", "/resume", "/sessions"}
	for _, tt := range []struct {
		typed string
		want  string
	}{
		{"/hlep", "/help"},
		{"/mod", "/model"},
		{"/sesions", "/sessions"},
		{"/resum", "/resume"},
		{"/xyzzy", ""},
		{"lst", "list"},
	} {
		cands := commands
		if tt.typed == "lst" {
			cands = []string{"list", "show"}
		}
		got := strings.Join(Closest(cands, tt.typed, 3), " ")
		if got != tt.want {
			t.Errorf("Closest(%q) = %q, want %q", tt.typed, got, tt.want)
		}
	}
}
