package mcp

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// FirstSentence is the first sentence of a tool's description (or its
// first line), cut to at most n characters, on a whole word when one ends
// near the limit; "" when n leaves no room.
func FirstSentence(desc string, n int) string {
	s := strings.TrimSpace(desc)
	if line, _, _ := strings.Cut(s, "\n"); line != "" {
		s = strings.TrimSpace(line)
	}
	for i := 0; i < len(s); i++ {
		if strings.IndexByte(".!?", s[i]) >= 0 && (i+1 == len(s) || s[i+1] == ' ') {
			s = s[:i+1]
			break
		}
	}
	if n <= 1 {
		return ""
	}
	if utf8.RuneCountInString(s) > n {
		cut := string([]rune(s)[:n-1])
		if i := strings.LastIndexByte(cut, ' '); i >= len(cut)-20 && i > 0 {
			cut = cut[:i]
		}
		s = strings.TrimRight(cut, " ,;:") + "…"
	}
	return s
}

// reportWidth bounds a tool's line in WriteReport.
const reportWidth = 100

// WriteReport writes what `dev mcp` shows: each server with its transport,
// what it runs or reaches, its state, and the tools of a connected server
// with the first sentence of their descriptions; with verbose, the end of a
// stdio server's stderr too.
func WriteReport(w io.Writer, servers []*Server, verbose bool) error {
	var b strings.Builder
	if len(servers) == 0 {
		b.WriteString("No MCP servers are configured (key \"mcpServers\" of config.json).\n")
	}
	for i, s := range servers {
		if i > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "%s (%s: %s)\n", s.Name, s.Transport, s.Target)
		switch s.State() {
		case Disabled:
			b.WriteString("  disabled\n")
		case Failed:
			fmt.Fprintf(&b, "  failed: %s\n", indent(s.Err().Error(), "    "))
		default:
			fmt.Fprintf(&b, "  connected")
			if s.Info() != "" {
				fmt.Fprintf(&b, " to %s", s.Info())
			}
			fmt.Fprintf(&b, ", %d tool%s\n", len(s.Tools()), map[bool]string{true: "", false: "s"}[len(s.Tools()) == 1])
			width := 0
			for _, t := range s.Tools() {
				width = max(width, utf8.RuneCountInString(s.Name+"."+t.Name))
			}
			for _, t := range s.Tools() {
				name := s.Name + "." + t.Name
				pad := strings.Repeat(" ", width-utf8.RuneCountInString(name))
				fmt.Fprintf(&b, "    %s%s  %s\n", name, pad, FirstSentence(t.Description, max(20, reportWidth-6-width)))
			}
			for _, warning := range s.skipped {
				fmt.Fprintf(&b, "  %s\n", warning)
			}
		}
		if verbose && s.Stderr() != "" {
			fmt.Fprintf(&b, "  stderr:\n    %s\n", indent(strings.TrimRight(s.Stderr(), "\n"), "    "))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func indent(s, prefix string) string { return strings.ReplaceAll(s, "\n", "\n"+prefix) }
