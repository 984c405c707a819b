package ui

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"
)

// Profiles writes the model profiles, one a line in name order, the active
// one marked with a star; each with what it sets: profiles maps a name to
// one phrase per setting ("model qwen", "with an API key"; never the API
// key's value).
func Profiles(w io.Writer, profiles map[string][]string, active string) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, name := range slices.Sorted(maps.Keys(profiles)) {
		mark := " "
		if name == active {
			mark = "*"
		}
		sets := strings.Join(profiles[name], ", ")
		if sets == "" {
			sets = "(sets nothing)"
		}
		fmt.Fprintf(tw, "%s %s\t%s\n", mark, name, sets)
	}
	_ = tw.Flush()
}
