package tools

import (
	"html"
	"regexp"
	"strings"
)

// wrapped matches one result as Wrap writes it: the body cannot hold the
// closing tag, which Wrap neutralises.
var (
	wrapped   = regexp.MustCompile(`(?s)<tool_result tool="([^"]*)" ok="(true|false)"((?: [A-Za-z0-9_-]+="[^"]*")*)>\n(.*?)\n</tool_result>`)
	attribute = regexp.MustCompile(`([A-Za-z0-9_-]+)="([^"]*)"`)
)

// Unwrap reads back the results a message holds (ResultsMessage's, or one
// Wrap), in order, and the texts before, between and after them (the notes
// ResultsMessage adds after them), trimmed, empty ones left out. A result has the Tool, OK, Attrs and
// Output that Wrap wrote, except an Output's final newline. Output that
// itself held "&lt;tool_result" reads back as "<tool_result": Wrap writes
// both alike.
func Unwrap(message string) (results []Result, notes []string) {
	last := 0
	note := func(s string) {
		if s = strings.TrimSpace(s); s != "" {
			notes = append(notes, s)
		}
	}
	for _, m := range wrapped.FindAllStringSubmatchIndex(message, -1) {
		note(message[last:m[0]])
		last = m[1]
		r := Result{Tool: html.UnescapeString(message[m[2]:m[3]]), OK: message[m[4]:m[5]] == "true",
			Output: restoreTags(message[m[8]:m[9]])}
		for _, a := range attribute.FindAllStringSubmatch(message[m[6]:m[7]], -1) {
			r.Attrs = append(r.Attrs, [2]string{a[1], html.UnescapeString(a[2])})
		}
		results = append(results, r)
	}
	note(message[last:])
	return results, notes
}

// restoreTags undoes neutraliseTags.
func restoreTags(s string) string {
	const lt = "&lt;"
	if !strings.Contains(s, lt) {
		return s
	}
	var b strings.Builder
	for {
		i := strings.Index(s, lt)
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		rest := strings.TrimPrefix(s[i+len(lt):], "/")
		b.WriteString(s[:i])
		if len(rest) >= len(tagName) && strings.EqualFold(rest[:len(tagName)], tagName) {
			b.WriteByte('<')
		} else {
			b.WriteString(lt)
		}
		s = s[i+len(lt):]
	}
}
