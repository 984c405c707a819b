package ui

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/devagent/dev/config"
	"github.com/devagent/dev/textfmt"
)

// Profiles writes the model profiles, one a line in name order, the active
// one marked with a star; each with what it sets (never the API key's value).
func Profiles(w io.Writer, profiles map[string]config.Profile, active string) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, name := range slices.Sorted(maps.Keys(profiles)) {
		mark := " "
		if name == active {
			mark = "*"
		}
		fmt.Fprintf(tw, "%s %s\t%s\n", mark, name, profileSummary(profiles[name]))
	}
	_ = tw.Flush()
}

func profileSummary(p config.Profile) string {
	var parts []string
	add := func(key string, v *string) {
		if v != nil {
			parts = append(parts, key+" "+*v)
		}
	}
	add("model", p.Model)
	add("at", p.APIURL)
	if p.APIKey != nil && *p.APIKey != "" {
		parts = append(parts, "with an API key")
	}
	add("auditModel", p.AuditModel)
	add("compressModel", p.CompressModel)
	if p.MaxContextTokens != nil {
		parts = append(parts, textfmt.Thousands(int64(*p.MaxContextTokens))+"-token window")
	}
	add("thinking", p.Thinking)
	if p.Temperature != nil {
		parts = append(parts, fmt.Sprintf("temperature %v", *p.Temperature))
	}
	if p.MaxTokens != nil {
		parts = append(parts, fmt.Sprintf("maxTokens %d", *p.MaxTokens))
	}
	if len(p.ExtraBody) > 0 {
		parts = append(parts, "extraBody "+strings.Join(slices.Sorted(maps.Keys(p.ExtraBody)), ", "))
	}
	if len(parts) == 0 {
		return "(sets nothing)"
	}
	return strings.Join(parts, ", ")
}
