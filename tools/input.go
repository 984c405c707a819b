package tools

import (
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"
)

// firstLine splits input at its first non-empty line, returning that line
// trimmed and everything after it.
func firstLine(input string) (line, rest string) {
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
	line, rest := firstLine(input)
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

// oneLine shortens s to its first line, at most n runes, for Result.Summary.
func oneLine(s string, n int) string {
	s = strings.TrimSpace(s)
	first, _, more := strings.Cut(s, "\n")
	first = strings.TrimSpace(first)
	if utf8.RuneCountInString(first) > n {
		r := []rune(first)
		return string(r[:n-1]) + "…"
	}
	if more {
		return first + " …"
	}
	return first
}

// plural writes "1 line" / "2 lines", "1 entry" / "2 entries".
func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	if strings.HasSuffix(word, "y") && !strings.HasSuffix(word, "ey") {
		word = strings.TrimSuffix(word, "y") + "ie"
	}
	return strconv.Itoa(n) + " " + word + "s"
}
