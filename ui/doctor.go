package ui

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/fatih/color"

	"github.com/devagent/dev/doctor"
)

// Doctor writes a dev doctor report to s.Out: a heading, then one aligned
// line per check (status, name, what was found) with what to change on the
// line below, then the counts. Statuses are coloured when stdout is a
// terminal.
func Doctor(s *Streams, r doctor.Report) error {
	paint := func(attrs ...color.Attribute) *color.Color { return colour(s.OutColor, attrs...) }
	statusColor := map[doctor.Status]*color.Color{
		doctor.OK:   paint(color.FgGreen),
		doctor.Warn: paint(color.FgYellow),
		doctor.Fail: paint(color.FgRed, color.Bold),
		doctor.Skip: paint(color.Faint),
	}
	dim := paint(color.Faint)
	nameWidth := 0
	for _, c := range r.Checks {
		nameWidth = max(nameWidth, len(c.Name))
	}
	var b strings.Builder
	b.WriteString("dev doctor")
	if r.APIURL != "" {
		b.WriteString(": " + r.APIURL)
		if r.Model != "" {
			b.WriteString(", model " + r.Model)
		}
	}
	b.WriteString("\n\n")
	indent := strings.Repeat(" ", 2+4+2+nameWidth+2)
	for _, c := range r.Checks {
		status := fmt.Sprintf("%-4s", c.Status)
		if col := statusColor[c.Status]; col != nil {
			status = col.Sprint(status)
		}
		fmt.Fprintf(&b, "  %s  %-*s  %s\n", status, nameWidth, c.Name, c.Detail)
		if c.Fix != "" {
			fmt.Fprintf(&b, "%s%s\n", indent, dim.Sprint("fix: ")+c.Fix)
		}
	}
	b.WriteString("\n" + doctorSummary(r) + "\n")
	if p := r.Profile; p != nil {
		b.WriteString("\nA profile with what was measured, for \"profiles\" in " + r.ConfigFile + " (then: dev --profile " + p.Name + "):\n\n")
		b.WriteString(profileJSON(p))
		for _, n := range p.Notes {
			b.WriteString(dim.Sprint("  # "+n) + "\n")
		}
	}
	_, err := io.WriteString(s.Out, b.String())
	return err
}

func doctorSummary(r doctor.Report) string {
	count := func(n int, one, many string) string {
		if n == 1 {
			return "1 " + one
		}
		return fmt.Sprintf("%d %s", n, many)
	}
	parts := []string{count(r.Count(doctor.OK), "ok", "ok"), count(r.Count(doctor.Warn), "warning", "warnings")}
	if n := r.Count(doctor.Skip); n > 0 {
		parts = append(parts, count(n, "not checked", "not checked"))
	}
	if n := r.Count(doctor.Fail); n > 0 {
		parts = append(parts, count(n, "failed", "failed"))
	} else {
		parts = append(parts, "nothing failed")
	}
	return strings.Join(parts, ", ")
}

// DoctorJSON writes the report as one indented JSON object.
func DoctorJSON(w io.Writer, r doctor.Report) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// profileJSON is the suggested profile as a config.json entry.
func profileJSON(p *doctor.Profile) string {
	entry := map[string]any{"apiUrl": p.APIURL, "model": p.Model}
	if p.MaxContextTokens > 0 {
		entry["maxContextTokens"] = p.MaxContextTokens
	}
	if p.Thinking != "" {
		entry["thinking"] = p.Thinking
	}
	body, _ := json.Marshal(entry)
	var out bytes.Buffer
	_ = json.Indent(&out, []byte(fmt.Sprintf("{%q: %s}", p.Name, body)), "  ", "  ")
	return "  " + out.String() + "\n"
}
