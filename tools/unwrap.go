package tools

import (
	"html"
	"regexp"
	"strings"
)

// openTag matches the opening tag Wrap writes, at the start of a string.
var (
	openTag   = regexp.MustCompile(`^<tool_result tool="([^"]*)" ok="(true|false)"((?: [A-Za-z0-9_-]+="[^"]*")*)>\n`)
	attribute = regexp.MustCompile(`([A-Za-z0-9_-]+)="([^"]*)"`)
)

const closeTag = "\n</tool_result>"

// Unwrap reads back the results a message holds (ResultsMessage's, or one
// Wrap), in order, and the texts before, between and after them (the notes
// ResultsMessage adds after them), trimmed, empty ones left out. A result
// has the Tool, OK, Attrs and Output that Wrap wrote (and Done for an
// accepted DONE), except an Output's
// final newline. Output that itself held "&lt;tool_result" reads back as
// "<tool_result": Wrap writes both alike.
func Unwrap(message string) (results []Result, notes []string) {
	note := func(s string) {
		if s = strings.TrimSpace(s); s != "" {
			notes = append(notes, s)
		}
	}
	text := 0 // where the text not yet noted starts
	for at := 0; ; {
		i := strings.Index(message[at:], "<tool_result ")
		if i < 0 {
			break
		}
		start := at + i
		m := openTag.FindStringSubmatchIndex(message[start:])
		// A body cannot hold the closing tag: Wrap neutralises it. The
		// search starts at the opening tag's newline, so an empty body is
		// found; a closing tag that shares that newline (end 0) is not
		// what Wrap writes, and would be a body that ends before it starts.
		end := -1
		if m != nil {
			end = strings.Index(message[start+m[1]-1:], closeTag)
		}
		if end < 1 {
			at = start + 1
			continue
		}
		tag := message[start : start+m[1]]
		r := Result{Tool: html.UnescapeString(tag[m[2]:m[3]]), OK: tag[m[4]:m[5]] == "true",
			Output: restoreTags(message[start+m[1] : start+m[1]-1+end])}
		for _, a := range attribute.FindAllStringSubmatch(tag[m[6]:m[7]], -1) {
			r.Attrs = append(r.Attrs, [2]string{a[1], html.UnescapeString(a[2])})
		}
		r.Done = r.Tool == Done && r.OK
		note(message[text:start])
		results = append(results, r)
		at = start + m[1] - 1 + end + len(closeTag)
		text = at
	}
	note(message[text:])
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
