package parser

import "strings"

// resolveTool maps what the model wrote under Tool Choice to an entry of
// toolNames. lenient is true when the spelling was not exact: `WRITE_FILE`,
// **WRITE_FILE**, write_file, Write File, write-file, WRITE_FILE. or a name
// followed by other words ("READ_FILE to check main.go").
func resolveTool(raw string, toolNames []string) (name string, lenient, ok bool) {
	raw = strings.TrimSpace(raw)
	for _, n := range toolNames {
		if raw == n {
			return n, false, true
		}
	}
	if n, ok := lookupTool(raw, toolNames); ok {
		return n, true, true
	}
	// The longest run of leading words that names a tool; no tool name has
	// more than a handful of words.
	fields := strings.Fields(raw)
	for k := min(len(fields)-1, maxToolWords); k >= 1; k-- {
		if n, ok := lookupTool(strings.Join(fields[:k], " "), toolNames); ok {
			return n, true, true
		}
	}
	return "", false, false
}

const maxToolWords = 8

func lookupTool(s string, toolNames []string) (string, bool) {
	key := toolKey(s)
	if key == "" {
		return "", false
	}
	for _, n := range toolNames {
		if toolKey(n) == key {
			return n, true
		}
	}
	return "", false
}

// toolKey folds the spellings of a tool name together: markup and trailing
// punctuation dropped, upper case, runs of spaces, hyphens and underscores as
// one underscore.
func toolKey(s string) string {
	s = strings.Trim(s, "`*_\"' \t.,;:!?()[]{}<>")
	var b strings.Builder
	sep := false
	for _, r := range strings.ToUpper(s) {
		if r == ' ' || r == '-' || r == '_' || r == '\t' {
			sep = true
			continue
		}
		if sep && b.Len() > 0 {
			b.WriteByte('_')
		}
		sep = false
		b.WriteRune(r)
	}
	return b.String()
}
