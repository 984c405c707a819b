package commands

import (
	"strings"
	"testing"
)

func TestFlagsFirst(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ in, want string }{
		{"dev rewind 3 --yes", "dev rewind --yes 3"},
		{"dev rewind 3 --session abc --files-only", "dev rewind --session abc --files-only 3"},
		{"dev diff 1 2", "dev diff 1 2"},
		{"dev -p rewind", "dev -p rewind"},
		{"dev sessions show x --json", "dev sessions show x --json"},
	} {
		if got := strings.Join(flagsFirst(strings.Fields(tt.in)), " "); got != tt.want {
			t.Errorf("flagsFirst(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
