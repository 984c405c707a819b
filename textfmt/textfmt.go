// Package textfmt writes short texts for people: the first line of a text,
// an excerpt of it, a count with its noun, a number with thousands
// separators, a size in bytes. Every package that shows such text uses
// these, so that dev says the same thing the same way everywhere.
package textfmt

import (
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Ellipsis marks text that was cut.
const Ellipsis = "…"

// FirstLine is the first line of s, without surrounding space.
func FirstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return strings.TrimSpace(s[:i])
	}
	return s
}

// Clip keeps at most n runes of s, the last of them an ellipsis when s was
// longer.
func Clip(s string, n int) string {
	if n <= 0 {
		return ""
	}
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + Ellipsis
}

// Excerpt is s on one line (every run of white space one space), at most n
// runes.
func Excerpt(s string, n int) string {
	return Clip(strings.Join(strings.Fields(s), " "), n)
}

// WithoutFences drops the code-fence lines (``` or ~~~) of a tool input:
// markup for the parser, not content for a person reading the input.
func WithoutFences(input string) string {
	var kept []string
	for _, l := range strings.Split(strings.TrimSpace(input), "\n") {
		if t := strings.TrimSpace(l); !strings.HasPrefix(t, "```") && !strings.HasPrefix(t, "~~~") {
			kept = append(kept, l)
		}
	}
	return strings.Join(kept, "\n")
}

// Summary is the first line of s, at most n runes, followed by " …" when s
// has more lines: what a one-line display of a tool input shows.
func Summary(s string, n int) string {
	s = strings.TrimSpace(s)
	first, _, more := strings.Cut(s, "\n")
	first = strings.TrimSpace(first)
	if utf8.RuneCountInString(first) > n {
		return Clip(first, n)
	}
	if more {
		return first + " " + Ellipsis
	}
	return first
}

// Plural writes a count with its noun: "1 line", "2 lines", "3 entries".
// The count has no separators: tool results quote it to the model as is.
func Plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	if n := len(noun); n >= 2 && noun[n-1] == 'y' && !strings.ContainsRune("aeiou", rune(noun[n-2])) {
		noun = noun[:n-1] + "ie" // entry, entries; day, days
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

// Thousands writes n with a comma between groups of three digits: 1,247.
func Thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	start := 0
	if n < 0 {
		start = 1
	}
	for i := len(s) - 3; i > start; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// Count writes a count for people, with separators and its noun: "1 step",
// "1,247 tokens".
func Count(n int, noun string) string {
	word := strings.TrimPrefix(Plural(n, noun), strconv.Itoa(n))
	return Thousands(int64(n)) + word
}

// Size writes a byte count for people and models: 512 bytes, 12.3 KB,
// 4.0 MB.
func Size(n int64) string {
	switch {
	case n < 1<<10:
		return Plural(int(n), "byte")
	case n < 1<<20:
		return strconv.FormatFloat(float64(n)/(1<<10), 'f', 1, 64) + " KB"
	case n < 1<<30:
		return strconv.FormatFloat(float64(n)/(1<<20), 'f', 1, 64) + " MB"
	}
	return strconv.FormatFloat(float64(n)/(1<<30), 'f', 1, 64) + " GB"
}

// Short writes a large count in a few characters: 987, 12.3k, 1.2M.
func Short(n int) string {
	switch {
	case n < 10000 && n > -10000:
		return Thousands(int64(n))
	case n < 1000000 && n > -1000000:
		return strconv.FormatFloat(float64(n)/1000, 'f', 1, 64) + "k"
	}
	return strconv.FormatFloat(float64(n)/1000000, 'f', 1, 64) + "M"
}

// Duration writes an elapsed time to the second: 14s, 2m05s, 1h02m.
func Duration(d time.Duration) string {
	s := int(d.Round(time.Second).Seconds())
	switch {
	case s < 60:
		return strconv.Itoa(s) + "s"
	case s < 3600:
		return strconv.Itoa(s/60) + "m" + pad2(s%60) + "s"
	}
	return strconv.Itoa(s/3600) + "h" + pad2(s%3600/60) + "m"
}

func pad2(n int) string {
	if n < 10 {
		return "0" + strconv.Itoa(n)
	}
	return strconv.Itoa(n)
}
