package parser

import "strings"

// resolveTool maps what the model wrote under Tool Choice to an entry of
// toolNames. lenient is true when the spelling was not exact: `WRITE_FILE`,
// **WRITE_FILE**, write_file, Write File, write-file, WRITE_FILE. or a name
// followed by other words ("READ_FILE to check main.go"). Names of MCP
// tools (github.create_issue) resolve the same way; they are case-sensitive
// and may differ from each other only by case or by '-' and '_', so a
// spelling that is not exact and fits several names resolves to none:
// ambiguous lists them.
func resolveTool(raw string, toolNames []string) (name string, lenient, ok bool, ambiguous []string) {
	raw = strings.TrimSpace(raw)
	for _, n := range toolNames {
		if raw == n {
			return n, false, true, nil
		}
	}
	if found := lookupTool(raw, toolNames); len(found) > 0 {
		if len(found) > 1 {
			return "", false, false, found
		}
		return found[0], true, true, nil
	}
	// The longest run of leading words that names a tool; no tool name has
	// more than a handful of words.
	fields := strings.Fields(raw)
	for k := min(len(fields)-1, maxToolWords); k >= 1; k-- {
		if found := lookupTool(strings.Join(fields[:k], " "), toolNames); len(found) > 0 {
			if len(found) > 1 {
				return "", false, false, found
			}
			return found[0], true, true, nil
		}
	}
	return "", false, false, nil
}

const maxToolWords = 8

// lookupTool lists the names whose key is s's.
func lookupTool(s string, toolNames []string) []string {
	key := toolKey(s)
	if key == "" {
		return nil
	}
	var found []string
	for _, n := range toolNames {
		if toolKey(n) == key {
			found = append(found, n)
		}
	}
	return found
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
