package tools

import (
	"path/filepath"
	"strings"
)

// splitFirstLine splits input at its first non-empty line, returning that line
// trimmed and everything after it.
func splitFirstLine(input string) (line, rest string) {
	for input != "" {
		var l string
		l, input, _ = strings.Cut(input, "\n")
		if t := strings.TrimSpace(l); t != "" {
			return t, input
		}
	}
	return "", ""
}

// unquote strips one pair of surrounding quotes or backticks, the way models
// write paths: "a.go", 'a.go', `a.go`.
func unquote(s string) string {
	s = strings.TrimSpace(s)
	if len(s) >= 2 && isQuote(s[0]) && s[len(s)-1] == s[0] {
		return strings.TrimSpace(s[1 : len(s)-1])
	}
	return s
}

func isQuote(c byte) bool { return c == '"' || c == '\'' || c == '`' }

// isFence reports whether line opens a fenced code block.
func isFence(line string) bool {
	return strings.HasPrefix(line, "```") || strings.HasPrefix(line, "~~~")
}

// pathInput reads the path a file tool's input starts with. ok is false when
// the first non-empty line is missing or is a code fence.
func pathInput(input string) (path, rest string, ok bool) {
	line, rest := splitFirstLine(input)
	if line == "" || isFence(line) {
		return "", input, false
	}
	p := unquote(line)
	return p, rest, p != ""
}

// resolve makes p absolute against dir; absolute paths are kept.
func resolve(dir, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	if dir == "" {
		dir = "."
	}
	abs, err := filepath.Abs(filepath.Join(dir, p))
	if err != nil {
		return filepath.Join(dir, p)
	}
	return abs
}

// display names abs for the model: relative to dir with forward slashes when
// inside it, absolute otherwise.
func display(dir, abs string) string {
	base, err := filepath.Abs(dir)
	if err != nil {
		return abs
	}
	rel, err := filepath.Rel(base, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return abs
	}
	return filepath.ToSlash(rel)
}
