package tools

import (
	"html"
	"regexp"
	"strings"
)

// resultElement matches one <tool_result …>…</tool_result> element as Wrap
// writes it.
var (
	resultElement = regexp.MustCompile(`(?s)<tool_result tool="([^"]*)" ok="(true|false)"([^>]*)>\n(.*?)\n</tool_result>`)
	attribute     = regexp.MustCompile(`([a-zA-Z_-]+)="([^"]*)"`)
)

// Unwrap reads back the tool results a ResultsMessage holds, in order, for
// showing a stored session; the text outside them (notes to the model) is
// dropped. Only what the message keeps comes back: the tool, whether it
// worked, its attributes and its output.
func Unwrap(message string) []Result {
	var out []Result
	for _, m := range resultElement.FindAllStringSubmatch(message, -1) {
		r := Result{Tool: html.UnescapeString(m[1]), OK: m[2] == "true"}
		for _, a := range attribute.FindAllStringSubmatch(m[3], -1) {
			r.Attrs = append(r.Attrs, [2]string{a[1], html.UnescapeString(a[2])})
		}
		r.Output = restoreTags(m[4])
		r.Done = r.Tool == Done && r.OK
		out = append(out, r)
	}
	return out
}

// restoreTags undoes neutraliseTags: "&lt;tool_result" back to "<tool_result".
func restoreTags(s string) string {
	if !strings.Contains(s, "&lt;") {
		return s
	}
	var b strings.Builder
	for {
		i := strings.Index(s, "&lt;")
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		rest := s[i+len("&lt;"):]
		j := 0
		if strings.HasPrefix(rest, "/") {
			j = 1
		}
		b.WriteString(s[:i])
		if len(rest)-j >= len(tagName) && strings.EqualFold(rest[j:j+len(tagName)], tagName) {
			b.WriteString("<")
		} else {
			b.WriteString("&lt;")
		}
		s = rest
	}
}
