package ui

import (
	"io"
	"maps"
	"slices"
	"strings"
)

// Profiles writes the model profiles, one a line in name order, the active
// one marked with a star; each with what it sets, in f's width: profiles
// maps a name to one phrase per setting ("model qwen", "with an API key";
// never the API key's value).
func Profiles(w io.Writer, profiles map[string][]string, active string, f Fit) error {
	// The name is what --profile takes: whole; what it sets gives way.
	t := Table{Columns: []Column{{}, {Cut: CutEnd, Min: 16}}}
	for _, name := range slices.Sorted(maps.Keys(profiles)) {
		mark := " "
		if name == active {
			mark = "*"
		}
		sets := strings.Join(profiles[name], ", ")
		if sets == "" {
			sets = "(sets nothing)"
		}
		t.Rows = append(t.Rows, []string{mark + " " + name, sets})
	}
	return t.Write(w, f)
}
