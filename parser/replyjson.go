package parser

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/bmatcuk/doublestar/v4"
)

// The JSON form of a reply (SPEC §18) is the template mirrored as one JSON
// object, for the servers that shape a reply with a JSON schema and take no
// grammar (Ollama, LM Studio; any server with constrain json):
//
//	{"thoughts": "…",
//	 "tasks": [{"status": "pending"|"in-progress"|"complete", "text": "…"}],
//	 "calls": [{"tool": "READ_FILE", "path": "a.go", "lines": "40-80"}, …]}
//
// calls holds one to MaxToolCalls objects, each one offered tool's with that
// tool's fields (jsonFields). The schema uses only what llama.cpp's schema
// converter enforces, as Ollama and LM Studio hand the schema to it: const
// and enum, anyOf of whole objects, minLength and maxLength, minItems and
// maxItems, additionalProperties false, required. It has no pattern: one
// with a newline in it makes raw newlines inside a JSON string. Every bound
// stays within what llama.cpp expands (maxRepeat); a file's content, a find
// or replace block and a command have none.
//
// A reply in the JSON form is turned into the template (Template) before
// anything else sees it, so the history holds one form.

// maxRepeat is the most repetitions llama.cpp expands for one bound
// (MAX_REPETITION_THRESHOLD in llama-grammar.cpp): a maxLength of 4,000
// made its grammar parser refuse the schema, and Ollama's model runner died
// of it.
const maxRepeat = 2000

// Bounds of the JSON form's strings, from the grammar's.
const (
	// MaxThoughtChars bounds thoughts: the grammar's most lines of
	// Thoughts. Unlike the grammar's (ThoughtLines), it does not shrink
	// with the reply cap: the JSON form is built once per run, before the
	// cap is known.
	MaxThoughtChars = MaxThoughtLines * MaxLineChars
	// MaxTextChars bounds a free-text input (DONE's summary, ASK_USER's
	// question, a custom tool's input).
	MaxTextChars = maxRepeat
	// maxRangeChars bounds READ_FILE's lines ("40-80").
	maxRangeChars = 24
)

// Field names of the JSON form.
const (
	jsonThoughts = "thoughts"
	jsonTasks    = "tasks"
	jsonCalls    = "calls"
	jsonTool     = "tool"
	jsonStatus   = "status"
	jsonText     = "text"
)

// commandTool is the name of the tool whose field is "command", whatever
// its input shape (the worker's COMMAND, the auditor's one-line one).
const commandTool = "COMMAND"

// fieldKind is how a field's value becomes part of a tool input.
type fieldKind int

const (
	kindText     fieldKind = iota // free text, lines and code blocks
	kindLine                      // one line
	kindPath                      // a path (quoted when it must be)
	kindGlob                      // a path or a glob
	kindRange                     // READ_FILE's line range
	kindContent                   // a file's whole content
	kindFind                      // the find block
	kindReplace                   // the replace block
	kindCommand                   // a shell command
	kindObject                    // a JSON object (an MCP tool's arguments)
	kindToolName                  // one of the offered tools' names
)

// jsonField is one field of a tool's object in the JSON form.
type jsonField struct {
	name     string
	kind     fieldKind
	optional bool
}

// jsonFields are the fields of tool t's object (SPEC §18): READ_FILE path
// and an optional lines, WRITE_FILE path and content, FIND_AND_REPLACE
// path, find, replace, COMMAND command, DONE summary, an MCP tool its
// arguments object, the others input (optional where the tool takes none).
func jsonFields(t GrammarTool) []jsonField {
	if t.Name == commandTool {
		return []jsonField{{"command", kindCommand, false}}
	}
	switch t.Input {
	case InputText:
		if t.Name == doneTool {
			return []jsonField{{"summary", kindText, false}}
		}
		return []jsonField{{"input", kindText, false}}
	case InputOptionalText:
		return []jsonField{{"input", kindText, true}}
	case InputCommand:
		return []jsonField{{"command", kindCommand, false}}
	case InputLine:
		return []jsonField{{"input", kindLine, false}}
	case InputPathOrGlob:
		return []jsonField{{"input", kindGlob, true}}
	case InputFileRange:
		return []jsonField{{"path", kindPath, false}, {"lines", kindRange, true}}
	case InputFileBlock:
		return []jsonField{{"path", kindPath, false}, {"content", kindContent, false}}
	case InputFindReplace:
		return []jsonField{{"path", kindPath, false}, {"find", kindFind, false}, {"replace", kindReplace, false}}
	case InputJSON:
		return []jsonField{{"arguments", kindObject, false}}
	case InputToolName:
		return []jsonField{{"input", kindToolName, false}}
	}
	return nil // InputNone
}

// JSONForm is the JSON form of the replies that offer tools, in that
// order: its schema, what the model is told of it, and the conversion of a
// reply in it to the template. Build it once per run, like the grammar.
type JSONForm struct {
	tools []GrammarTool
	root  *schema
}

// ReplyJSON is the JSON form of the replies that offer tools.
func ReplyJSON(tools []GrammarTool) *JSONForm {
	f := &JSONForm{tools: slices.Clone(tools)}
	names := make([]string, len(tools))
	for i, t := range tools {
		names[i] = t.Name
	}
	var calls []*schema
	for _, t := range tools {
		call := &schema{typ: "object", closed: true, props: []property{{name: jsonTool, s: &schema{typ: "string", constant: t.Name}}}}
		for _, fd := range jsonFields(t) {
			call.props = append(call.props, property{name: fd.name, s: fieldSchema(fd.kind, names), optional: fd.optional})
		}
		calls = append(calls, call)
	}
	if len(calls) == 0 {
		// No tools: nothing can parse; still a valid schema.
		calls = append(calls, &schema{typ: "object", closed: true, props: []property{{name: jsonTool, s: &schema{typ: "string", constant: doneTool}}}})
	}
	item := calls[0]
	if len(calls) > 1 {
		item = &schema{anyOf: calls}
	}
	task := &schema{typ: "object", closed: true, props: []property{
		{name: jsonStatus, s: &schema{typ: "string", enum: []string{string(Pending), string(InProgress), string(Complete)}}},
		{name: jsonText, s: str(1, MaxTaskChars)},
	}}
	f.root = &schema{typ: "object", closed: true, props: []property{
		{name: jsonThoughts, s: str(1, MaxThoughtChars)},
		{name: jsonTasks, s: &schema{typ: "array", items: task, maxItems: MaxTasks, minItems: -1}},
		{name: jsonCalls, s: &schema{typ: "array", items: item, minItems: 1, maxItems: MaxToolCalls}},
	}}
	return f
}

// fieldSchema is the schema of a field of kind.
func fieldSchema(k fieldKind, names []string) *schema {
	switch k {
	case kindText:
		return str(1, MaxTextChars)
	case kindLine, kindPath:
		return str(1, MaxLineChars)
	case kindGlob:
		return str(-1, MaxLineChars)
	case kindRange:
		return str(1, maxRangeChars)
	case kindContent, kindReplace:
		return str(-1, -1)
	case kindFind, kindCommand:
		return str(1, -1)
	case kindObject:
		return &schema{typ: "object"}
	case kindToolName:
		return &schema{typ: "string", enum: slices.Clone(names)}
	}
	return str(-1, -1)
}

func str(minLen, maxLen int) *schema {
	return &schema{typ: "string", minLen: minLen, maxLen: maxLen}
}

// Schema is the JSON schema of the replies, as sent in response_format.
// The same tools give the same bytes.
func (f *JSONForm) Schema() []byte {
	var b bytes.Buffer
	f.root.write(&b)
	return b.Bytes()
}

// JSONTool is a tool as the model is told of it in the JSON form: its name
// and its fields in order, optional ones marked.
type JSONTool struct {
	Name   string
	Fields []JSONToolField
}

// JSONToolField is one field of a JSONTool.
type JSONToolField struct {
	Name     string
	Optional bool
}

// Tools are the tools of the form with their fields, for what the model is
// told.
func (f *JSONForm) Tools() []JSONTool {
	out := make([]JSONTool, len(f.tools))
	for i, t := range f.tools {
		out[i].Name = t.Name
		for _, fd := range jsonFields(t) {
			out[i].Fields = append(out[i].Fields, JSONToolField{fd.name, fd.optional})
		}
	}
	return out
}

// ErrNotJSONForm: a reply is not an object of the JSON form. A server that
// applied the schema never sends one.
var ErrNotJSONForm = errors.New("the reply is not in the JSON form")

// Template turns a reply in the JSON form into the template's text (what
// Parse reads back as the same thoughts, tasks and calls), or returns an
// error wrapping ErrNotJSONForm. A <think> block before the object is
// dropped. Text that the template would misread (a heading, a fence left
// open, a thinking tag, an HTML block) is written so that it reads as
// text; a file's content, the find and replace blocks and a command go in
// fences longer than any inside them.
//
// A value the schema allows but the tool cannot use (a blank path or
// summary, an unreadable glob) converts as it is: Parse or the tool's check
// tells the model, as for the template.
func (f *JSONForm) Template(reply string) (string, error) {
	body := strings.TrimSpace(normaliseNewlines(reply))
	if len(body) >= 7 && strings.EqualFold(body[:7], "<think>") {
		if end := strings.Index(strings.ToLower(body), "</think>"); end >= 0 {
			body = strings.TrimSpace(body[end+len("</think>"):])
		}
	}
	var top map[string]json.RawMessage
	if err := decodeOne(body, &top); err != nil {
		return "", err
	}
	if err := only(top, []string{jsonThoughts, jsonTasks, jsonCalls}, nil); err != nil {
		return "", err
	}
	var resp Response
	var thoughts string
	if err := json.Unmarshal(top[jsonThoughts], &thoughts); err != nil {
		return "", notForm("thoughts is not a string")
	}
	resp.Thoughts = safeText(thoughts)
	var tasks []map[string]json.RawMessage
	if err := json.Unmarshal(top[jsonTasks], &tasks); err != nil {
		return "", notForm("tasks is not a list of objects")
	}
	resp.HasTaskList = true
	for _, t := range tasks {
		task, err := decodeTask(t)
		if err != nil {
			return "", err
		}
		if task.Text != "" {
			resp.Tasks = append(resp.Tasks, task)
		}
	}
	var calls []map[string]json.RawMessage
	if err := json.Unmarshal(top[jsonCalls], &calls); err != nil || len(calls) == 0 || len(calls) > MaxToolCalls {
		return "", notForm(fmt.Sprintf("calls is not a list of 1 to %d objects", MaxToolCalls))
	}
	for _, c := range calls {
		call, err := f.call(c)
		if err != nil {
			return "", err
		}
		resp.Tools = append(resp.Tools, call)
	}
	return resp.Template(), nil
}

func notForm(why string) error { return fmt.Errorf("%w: %s", ErrNotJSONForm, why) }

// decodeOne decodes the one JSON value s holds.
func decodeOne(s string, v any) error {
	dec := json.NewDecoder(strings.NewReader(s))
	if err := dec.Decode(v); err != nil {
		return notForm(err.Error())
	}
	if strings.TrimSpace(s[dec.InputOffset():]) != "" {
		return notForm("text after the object")
	}
	return nil
}

// only checks that obj has the required keys and no others than required
// and optional.
func only(obj map[string]json.RawMessage, required, optional []string) error {
	if obj == nil {
		return notForm("not an object")
	}
	for _, k := range required {
		if _, ok := obj[k]; !ok {
			return notForm("no " + k)
		}
	}
	for k := range obj {
		if !slices.Contains(required, k) && !slices.Contains(optional, k) {
			return notForm("an unknown field " + strconv.Quote(k))
		}
	}
	return nil
}

func decodeTask(obj map[string]json.RawMessage) (Task, error) {
	if err := only(obj, []string{jsonStatus, jsonText}, nil); err != nil {
		return Task{}, err
	}
	var status, text string
	if json.Unmarshal(obj[jsonStatus], &status) != nil || json.Unmarshal(obj[jsonText], &text) != nil {
		return Task{}, notForm("a task's status and text are not strings")
	}
	switch s := Status(status); s {
	case Pending, InProgress, Complete:
		return Task{Status: s, Text: oneLine(text)}, nil
	}
	return Task{}, notForm("a task's status is " + strconv.Quote(status))
}

// call turns one object of calls into the tool call it stands for.
func (f *JSONForm) call(obj map[string]json.RawMessage) (ToolCall, error) {
	var name string
	if raw, ok := obj[jsonTool]; !ok || json.Unmarshal(raw, &name) != nil {
		return ToolCall{}, notForm("a call names no tool")
	}
	i := slices.IndexFunc(f.tools, func(t GrammarTool) bool { return t.Name == name })
	if i < 0 {
		return ToolCall{}, notForm("a call names the tool " + strconv.Quote(name) + ", which is not offered")
	}
	fields := jsonFields(f.tools[i])
	required, optional := []string{jsonTool}, []string(nil)
	for _, fd := range fields {
		if fd.optional {
			optional = append(optional, fd.name)
		} else {
			required = append(required, fd.name)
		}
	}
	if err := only(obj, required, optional); err != nil {
		return ToolCall{}, fmt.Errorf("%w (%s)", err, name)
	}
	values := map[string]string{}
	for _, fd := range fields {
		raw, ok := obj[fd.name]
		if !ok {
			continue
		}
		if fd.kind == kindObject {
			var args map[string]any
			if json.Unmarshal(raw, &args) != nil || args == nil {
				return ToolCall{}, notForm(name + "'s " + fd.name + " is not an object")
			}
			line, _ := json.Marshal(args) // escapes <, > and &: no tag, one line
			values[fd.name] = string(line)
			continue
		}
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return ToolCall{}, notForm(name + "'s " + fd.name + " is not a string")
		}
		if fd.kind == kindToolName && !slices.ContainsFunc(f.tools, func(t GrammarTool) bool { return t.Name == s }) {
			return ToolCall{}, notForm(name + "'s " + fd.name + " names no offered tool")
		}
		values[fd.name] = s
	}
	return ToolCall{Name: name, Input: toolInput(fields, values)}, nil
}

// toolInput writes a call's values as the tool's input in the template.
func toolInput(fields []jsonField, values map[string]string) string {
	var b strings.Builder
	path := ""
	for _, fd := range fields {
		v, ok := values[fd.name]
		if !ok {
			continue
		}
		switch fd.kind {
		case kindText:
			b.WriteString(safeText(v))
		case kindLine:
			b.WriteString(safeLine(v))
		case kindToolName:
			b.WriteString(v)
		case kindObject:
			b.WriteString(v)
		case kindGlob:
			b.WriteString(quotePath(globOf(oneLine(v))))
		case kindPath:
			path = quotePath(oneLine(v))
			b.WriteString(path)
		case kindRange:
			if r, ok := lineRange(v); ok {
				b.WriteString(" " + r)
			}
		case kindContent:
			content := normaliseNewlines(v)
			fence := fenceFor(content)
			b.WriteString("\n" + fence + "\n" + content)
			if content != "" && !strings.HasSuffix(content, "\n") {
				b.WriteString("\n")
			}
			b.WriteString(fence)
		case kindFind, kindReplace:
			// The block's last newline is not part of the text: one more
			// keeps a text that ends in a newline whole.
			t := normaliseNewlines(v)
			fence := fenceFor(t)
			b.WriteString("\n" + fence + fd.name + "\n" + t + "\n" + fence)
		case kindCommand:
			b.WriteString(commandInput(v))
		}
	}
	return b.String()
}

// rangeForm is a line range as a model writes it in lines: "40-80",
// "40:80", "40 - 80", or one line "40".
var rangeForm = regexp.MustCompile(`^(\d{1,9})(?:\s*[-:–]\s*(\d{1,9}))?$`)

// lineRange is READ_FILE's range from lines; ok is false when lines holds
// none (the file is read from its start).
func lineRange(lines string) (string, bool) {
	m := rangeForm.FindStringSubmatch(strings.TrimSpace(lines))
	if m == nil {
		return "", false
	}
	if m[2] == "" {
		m[2] = m[1]
	}
	return m[1] + "-" + m[2], true
}

// quotePath writes a path so that the file tools read it back: bare when
// it has no blank, quote, colon or angle bracket and cannot start a
// heading or a fence, else in quotes it does not contain. A path holding
// all three quotes is written bare, after "./" when it does not start with
// a slash (the same file, and a start no tool reads as a quote).
func quotePath(p string) string {
	bare := p == "" || !strings.ContainsFunc(p, func(r rune) bool {
		return unicode.IsSpace(r) || strings.ContainsRune("\"'`:<\\", r)
	}) && !strings.HasPrefix(p, "#") && !strings.HasPrefix(p, "~~")
	if bare {
		return p
	}
	for _, q := range []string{`"`, `'`, "`"} {
		if !strings.Contains(p, q) {
			return q + p + q
		}
	}
	if strings.HasPrefix(p, "/") {
		return p
	}
	return "./" + p
}

// globOf is a path or glob as LIST_DIRECTORY reads it: a glob it cannot
// read (unbalanced brackets or braces) names its characters literally.
func globOf(p string) string {
	if !strings.ContainsAny(p, "*?[{") || doublestar.ValidatePattern(p) {
		return p
	}
	var b strings.Builder
	for _, r := range p {
		if strings.ContainsRune(`*?[]{}\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// commandInput writes a command: as it is when it is one plain line, else
// in a fence longer than any inside it.
func commandInput(command string) string {
	c := strings.TrimSpace(normaliseNewlines(command))
	if !strings.ContainsAny(c, "\n<") && safeLine(c) == c {
		return c
	}
	fence := fenceFor(c)
	return fence + "\n" + c + "\n" + fence
}

// fenceFor is a backtick fence longer than any run of backticks that
// starts a line of text, and at least three.
func fenceFor(text string) string {
	n := 3
	for line := range strings.SplitSeq(text, "\n") {
		t := strings.TrimLeft(line, " \t")
		n = max(n, len(t)-len(strings.TrimLeft(t, "`"))+1)
	}
	return strings.Repeat("`", n)
}

// oneLine is text on one line: line ends become spaces, and thinking
// tags are neutralised.
func oneLine(s string) string {
	return neutralTags(strings.TrimSpace(strings.ReplaceAll(normaliseNewlines(s), "\n", " ")))
}

// safeLine is a line of its own that the template reads as it is: a start
// that would open a heading, a fence or an HTML block is escaped.
func safeLine(s string) string { return escapeStart(oneLine(s)) }

// safeText is free text that the template reads as it is: outside fenced
// blocks no line opens a heading or an HTML block and no thinking tag
// stays, and a block left open is closed.
func safeText(s string) string {
	lines := strings.Split(strings.TrimSpace(normaliseNewlines(s)), "\n")
	var t fenceTracker
	for i, line := range lines {
		if t.step(line) == roleOutside {
			lines[i] = escapeStart(neutralTags(line))
		}
	}
	for ; t.depth > 0; t.depth-- {
		lines = append(lines, strings.Repeat(string(t.open.char), t.open.size))
	}
	return strings.Join(lines, "\n")
}

// escapeStart escapes a line that would start a heading, a fence or an
// HTML block (up to three spaces in): a backslash makes its first
// character text.
func escapeStart(line string) string {
	rest := strings.TrimLeft(line, " ")
	indent := len(line) - len(rest)
	if indent > 3 || rest == "" {
		return line
	}
	if rest[0] == '#' || rest[0] == '<' || strings.HasPrefix(rest, "```") || strings.HasPrefix(rest, "~~~") {
		return line[:indent] + `\` + rest
	}
	return line
}

// neutralTags writes the '<' of a thinking tag as "&lt;": StripThinking
// would take the tag for reasoning.
func neutralTags(s string) string {
	if !strings.Contains(s, "<") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '<' {
			rest := strings.TrimPrefix(s[i+1:], "/")
			if len(rest) >= 5 && strings.EqualFold(rest[:5], "think") {
				b.WriteString("&lt;")
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// schema is a JSON schema of the keywords llama.cpp's converter enforces,
// written with its keys in a fixed order: llama.cpp keeps the order in
// which properties are written, which is the order the model writes them
// in (thoughts first, then the tasks, then the calls).
type schema struct {
	typ                string
	constant           string // "" for none
	enum               []string
	props              []property
	closed             bool // additionalProperties: false
	items              *schema
	minItems, maxItems int // -1 or 0 for none (minItems 0 is not written)
	minLen, maxLen     int // 0 or -1 for none
	anyOf              []*schema
}

type property struct {
	name     string
	s        *schema
	optional bool
}

func (s *schema) write(b *bytes.Buffer) {
	b.WriteByte('{')
	first := true
	key := func(k string) {
		if !first {
			b.WriteByte(',')
		}
		first = false
		writeJSON(b, k)
		b.WriteByte(':')
	}
	if s.anyOf != nil {
		key("anyOf")
		b.WriteByte('[')
		for i, a := range s.anyOf {
			if i > 0 {
				b.WriteByte(',')
			}
			a.write(b)
		}
		b.WriteString("]}")
		return
	}
	key("type")
	writeJSON(b, s.typ)
	if s.constant != "" {
		key("const")
		writeJSON(b, s.constant)
	}
	if s.enum != nil {
		key("enum")
		writeJSON(b, s.enum)
	}
	if s.typ == "object" && s.props != nil {
		key("properties")
		b.WriteByte('{')
		var required []string
		for i, p := range s.props {
			if i > 0 {
				b.WriteByte(',')
			}
			writeJSON(b, p.name)
			b.WriteByte(':')
			p.s.write(b)
			if !p.optional {
				required = append(required, p.name)
			}
		}
		b.WriteByte('}')
		key("required")
		writeJSON(b, required)
	}
	if s.closed {
		key("additionalProperties")
		b.WriteString("false")
	}
	if s.items != nil {
		key("items")
		s.items.write(b)
	}
	if s.minItems > 0 {
		key("minItems")
		b.WriteString(strconv.Itoa(s.minItems))
	}
	if s.maxItems > 0 {
		key("maxItems")
		b.WriteString(strconv.Itoa(s.maxItems))
	}
	if s.minLen > 0 {
		key("minLength")
		b.WriteString(strconv.Itoa(s.minLen))
	}
	if s.maxLen > 0 {
		key("maxLength")
		b.WriteString(strconv.Itoa(s.maxLen))
	}
	b.WriteByte('}')
}

func writeJSON(b *bytes.Buffer, v any) {
	data, _ := json.Marshal(v) // strings and lists of strings: no error
	b.Write(data)
}

// Generate draws one reply of the JSON form at random, for property tests:
// strings are made of pieces of pool (a string with a minimum length starts
// with a piece that is not blank, for the schema cannot say "not blank"),
// lists are short, and optional fields come or not.
func (f *JSONForm) Generate(r *rand.Rand, pool []string) string {
	var solid []string
	for _, p := range pool {
		if r, _ := utf8.DecodeRuneInString(p); p != "" && !unicode.IsSpace(r) {
			solid = append(solid, p)
		}
	}
	var b bytes.Buffer
	gen := jsonGenerator{r: r, pool: pool, solid: solid}
	gen.value(&b, f.root)
	return b.String()
}

type jsonGenerator struct {
	r           *rand.Rand
	pool, solid []string
}

func (g *jsonGenerator) value(b *bytes.Buffer, s *schema) {
	switch {
	case s.anyOf != nil:
		g.value(b, s.anyOf[g.r.IntN(len(s.anyOf))])
	case s.constant != "":
		writeJSON(b, s.constant)
	case s.enum != nil:
		writeJSON(b, s.enum[g.r.IntN(len(s.enum))])
	case s.typ == "string":
		writeJSON(b, g.text(s.minLen, s.maxLen))
	case s.typ == "array":
		n := max(s.minItems, 0)
		for n < s.maxItems && g.r.IntN(3) > 0 {
			n++
		}
		b.WriteByte('[')
		for i := range n {
			if i > 0 {
				b.WriteString(", ")
			}
			g.value(b, s.items)
		}
		b.WriteByte(']')
	case s.typ == "object" && s.props == nil:
		writeJSON(b, map[string]any{"title": g.text(0, 40), "n": g.r.IntN(100)})
	case s.typ == "object":
		b.WriteByte('{')
		first := true
		for _, p := range s.props {
			if p.optional && g.r.IntN(2) == 0 {
				continue
			}
			if !first {
				b.WriteString(",\n ")
			}
			first = false
			writeJSON(b, p.name)
			b.WriteString(": ")
			g.value(b, p.s)
		}
		b.WriteByte('}')
	}
}

// text is a string of pieces, at least minLen characters (starting with a
// solid piece) and at most maxLen (-1: no bound).
func (g *jsonGenerator) text(minLen, maxLen int) string {
	var b strings.Builder
	if minLen > 0 {
		b.WriteString(g.solid[g.r.IntN(len(g.solid))])
	}
	for g.r.IntN(4) > 0 {
		b.WriteString(g.pool[g.r.IntN(len(g.pool))])
	}
	s := b.String()
	if maxLen >= 0 && utf8.RuneCountInString(s) > maxLen {
		s = string([]rune(s)[:maxLen])
	}
	return s
}
