package history

import (
	"fmt"
	"html"
	"regexp"
	"strings"

	"github.com/devagent/dev/llm"
	"github.com/devagent/dev/parser"
)

// ToolResult is a tool's result as the history holds it: wrapped in a
// <tool_result> element so the model can tell data from instructions.
type ToolResult struct {
	Tool  string
	OK    bool
	Attrs [][2]string // more attributes of the wrapper, e.g. {"path", "a.go"}
	// Output is the text for the model. Read back, it has lost its final
	// newline, and "&lt;tool_result" in it reads as "<tool_result" (the
	// wrapper writes both alike).
	Output string
}

// Results is the user's message that brings a step's results back to the
// model: each result wrapped, then the calls that did not run because the
// last result failed, then note when there is one.
func Results(calls []parser.ToolCall, results []ToolResult, note string) llm.Message {
	parts := make([]string, 0, len(results)+2)
	for _, res := range results {
		parts = append(parts, res.wrap())
	}
	if len(results) > 0 && len(calls) > len(results) {
		names := make([]string, 0, len(calls)-len(results))
		for _, c := range calls[len(results):] {
			names = append(names, c.Name)
		}
		parts = append(parts, fmt.Sprintf("Not run, because %s failed: %s.", results[len(results)-1].Tool, strings.Join(names, ", ")))
	}
	if note != "" {
		parts = append(parts, note)
	}
	return user(strings.Join(parts, "\n\n"))
}

// InterruptedStep is the results of a step the user interrupted, and a
// note that says so.
func InterruptedStep(calls []parser.ToolCall, results []ToolResult) llm.Message {
	return Results(calls, results, interruptedStep)
}

// RepeatNote is the note of results that tells the model it has taken the
// same step times in a row.
func RepeatNote(tool string, times int) string {
	return fmt.Sprintf("You have run %s with the same input %d times in a row and got the same result. Repeating it will not change anything: change your approach.", tool, times)
}

// auditRejected starts the output of a DONE the audit did not accept.
const auditRejected = "The audit did not accept your work. Fix what it found, then use DONE again."

// AuditRejection is the output of a DONE the audit did not accept: what to
// do, then the auditor's report.
func AuditRejection(feedback string) string {
	return auditRejected + "\n\n" + feedback
}

// AuditFeedback reads the auditor's report back from the result of a DONE
// the audit did not accept; ok is false for any other result.
func (r ToolResult) AuditFeedback() (feedback string, ok bool) {
	rest, ok := strings.CutPrefix(r.Output, auditRejected)
	if r.OK || !ok {
		return "", false
	}
	if feedback = strings.TrimPrefix(rest, "\n\n"); strings.TrimSpace(feedback) == "" {
		feedback = ""
	}
	return feedback, true
}

// wrap renders r for the model:
// <tool_result tool="READ_FILE" ok="true" path="a.go">…</tool_result>.
// The output is data: any tool_result tag inside it is neutralised so that
// file contents or command output cannot close the wrapper early or open a
// forged one.
func (r ToolResult) wrap() string {
	var b strings.Builder
	b.WriteString(`<tool_result tool="`)
	b.WriteString(escapeAttr(r.Tool))
	b.WriteString(`" ok="`)
	if r.OK {
		b.WriteString("true")
	} else {
		b.WriteString("false")
	}
	b.WriteByte('"')
	for _, a := range r.Attrs {
		b.WriteByte(' ')
		b.WriteString(attrName(a[0]))
		b.WriteString(`="`)
		b.WriteString(escapeAttr(a[1]))
		b.WriteByte('"')
	}
	b.WriteString(">\n")
	b.WriteString(neutraliseTags(strings.TrimSuffix(r.Output, "\n")))
	b.WriteString(closeTag)
	return b.String()
}

var attrEscaper = strings.NewReplacer(
	`&`, "&amp;", `"`, "&quot;", `<`, "&lt;", `>`, "&gt;",
	"\n", "&#10;", "\r", "&#13;", "\t", "&#9;",
)

func escapeAttr(s string) string { return attrEscaper.Replace(s) }

// attrName keeps an attribute name to the characters a tag allows, so a
// careless caller cannot break the opening tag.
func attrName(s string) string {
	var b strings.Builder
	for _, c := range s {
		if c == '_' || c == '-' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
			b.WriteRune(c)
		}
	}
	if b.Len() == 0 {
		return "attr"
	}
	return b.String()
}

const tagName = "tool_result"

// neutraliseTags escapes the '<' of every <tool_result or </tool_result in s
// (any case), leaving all other text as it is.
func neutraliseTags(s string) string {
	var b strings.Builder
	last := 0
	for i := 0; i < len(s); i++ {
		if s[i] != '<' {
			continue
		}
		j := i + 1
		if j < len(s) && s[j] == '/' {
			j++
		}
		if len(s)-j >= len(tagName) && strings.EqualFold(s[j:j+len(tagName)], tagName) {
			b.WriteString(s[last:i])
			b.WriteString("&lt;")
			last = i + 1
		}
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
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

// openTag matches the opening tag wrap writes, at the start of a string.
var (
	openTag   = regexp.MustCompile(`^<tool_result tool="([^"]*)" ok="(true|false)"((?: [A-Za-z0-9_-]+="[^"]*")*)>\n`)
	attribute = regexp.MustCompile(`([A-Za-z0-9_-]+)="([^"]*)"`)
)

const closeTag = "\n</tool_result>"

// wrapper is where a wrapped result lies in a message: the whole element
// at [start, end), its body at [body, bodyEnd).
type wrapper struct {
	start, body, bodyEnd, end int
	result                    ToolResult
}

// wrappers finds the results wrap wrote in a message, in order. Text that
// only looks like a wrapper is not one.
func wrappers(message string) []wrapper {
	var out []wrapper
	for at := 0; ; {
		i := strings.Index(message[at:], "<tool_result ")
		if i < 0 {
			return out
		}
		start := at + i
		m := openTag.FindStringSubmatchIndex(message[start:])
		// A body cannot hold the closing tag: wrap neutralises it. The
		// search starts at the opening tag's newline, so an empty body is
		// found; a closing tag that shares that newline (end 0) is not
		// what wrap writes, and would be a body that ends before it starts.
		end := -1
		if m != nil {
			end = strings.Index(message[start+m[1]-1:], closeTag)
		}
		if end < 1 {
			at = start + 1
			continue
		}
		w := wrapper{start: start, body: start + m[1], bodyEnd: start + m[1] - 1 + end}
		w.end = w.bodyEnd + len(closeTag)
		tag := message[start : start+m[1]]
		w.result = ToolResult{Tool: html.UnescapeString(tag[m[2]:m[3]]), OK: tag[m[4]:m[5]] == "true",
			Output: restoreTags(message[w.body:w.bodyEnd])}
		for _, a := range attribute.FindAllStringSubmatch(tag[m[6]:m[7]], -1) {
			w.result.Attrs = append(w.result.Attrs, [2]string{a[1], html.UnescapeString(a[2])})
		}
		out = append(out, w)
		at = w.end
	}
}

// unwrap reads back the results a message holds, in order, and the texts
// before, between and after them (the notes Results adds after them),
// trimmed, empty ones left out.
func unwrap(message string) (results []ToolResult, notes []string) {
	note := func(s string) {
		if s = strings.TrimSpace(s); s != "" {
			notes = append(notes, s)
		}
	}
	text := 0 // where the text not yet noted starts
	for _, w := range wrappers(message) {
		note(message[text:w.start])
		results = append(results, w.result)
		text = w.end
	}
	note(message[text:])
	return results, notes
}

// Span is a piece of a message: plain text, or the body of a wrapped
// result as the message holds it (Body).
type Span struct {
	Text string
	Body bool
}

// Spans cuts a message into its text and the bodies of its results, in
// order: joined, their texts are the message. Summarisation shortens the
// bodies before anything else.
func Spans(content string) []Span {
	var out []Span
	from := 0
	for _, w := range wrappers(content) {
		out = append(out, Span{Text: content[from:w.body]}, Span{Text: content[w.body:w.bodyEnd], Body: true})
		from = w.bodyEnd
	}
	return append(out, Span{Text: content[from:]})
}
