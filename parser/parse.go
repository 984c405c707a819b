package parser

import (
	"fmt"
	"slices"
	"strings"

	gmparser "github.com/yuin/goldmark/parser"
)

// Parse reads a reply (reasoning fields already separated by the client).
// toolNames are the tools valid in this conversation, used to resolve
// lenient spellings and to list the valid names in an unknown-tool error.
// The error, when not nil, is a *FormatError.
//
// The template starts at the last "# Agent Response" heading (earlier drafts
// are ignored). Sections are cut at headings outside fenced code blocks, as
// CodeBlocks matches fences; a Tool Input runs to the next Tool Choice
// heading, so the headings of a file written through WRITE_FILE are content.
// Unambiguous slips (heading level, case, bold, colon, no H1, tool name
// spelling, "- [ ]" tasks, a reply wrapped in a ```markdown fence) are
// accepted with one warning each.
//
// With an error the Response holds only the Reasoning, so that a caller can
// still show it.
func Parse(reply string, toolNames []string) (Response, error) {
	src := strings.TrimPrefix(normaliseNewlines(reply), "\ufeff")
	content, reasoning := StripThinking(src)
	p := &parse{toolNames: toolNames, md: newMarkdownParser()}
	p.resp.Reasoning = reasoning
	if isBlank(content) {
		return p.resp, &FormatError{Message: emptyMessage(reasoning != "")}
	}
	src, hs := p.locate(content)
	p.sections(src, hs)
	if len(p.problems) > 0 {
		tail := ""
		switch {
		case p.listTools && len(toolNames) == 0:
			tail = "No tools are available."
		case p.listTools:
			tail = "Valid tools: " + strings.Join(toolNames, ", ") + "."
		}
		return Response{Reasoning: p.resp.Reasoning}, formatError(p.problems, tail)
	}
	p.resp.Warnings = p.warnings
	return p.resp, nil
}

// parse holds the state of one Parse call.
type parse struct {
	toolNames []string
	md        gmparser.Parser // one per call, shared by its scans (no package globals)
	resp      Response
	warnings  []string
	problems  []string
	// listTools asks formatError to end with the valid tool names, once
	// however many problems need them.
	listTools bool
}

func (p *parse) warn(format string, args ...any) {
	w := fmt.Sprintf(format, args...)
	for _, have := range p.warnings {
		if have == w {
			return
		}
	}
	p.warnings = append(p.warnings, w)
}

func (p *parse) problem(format string, args ...any) {
	p.problems = append(p.problems, fmt.Sprintf(format, args...))
}

func normaliseNewlines(s string) string {
	if strings.IndexByte(s, '\r') < 0 {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
}

// locate returns the text holding the template and its headings. When the
// reply shows no Tool Choice heading, the template may be wrapped in a
// ```markdown fence: the whole reply, or one block of it.
func (p *parse) locate(content string) (string, []heading) {
	hs := scanHeadings(p.md, content)
	if has(hs, secToolChoice) {
		return content, hs
	}
	// Without a Tool Choice, prefer a wrapped template that has one; else one
	// with any template heading, for a precise error, when the reply has none.
	var best, bestThinking string
	var bestHs []heading
	for _, cand := range unwrapCandidates(content) {
		if !mayHoldTemplate(cand) {
			continue // cheap: a reply may hold thousands of code blocks
		}
		inner, thinking := StripThinking(cand)
		chs := scanHeadings(p.md, inner)
		if has(chs, secToolChoice) {
			best, bestThinking, bestHs = inner, thinking, chs
			break
		}
		if bestHs == nil && countTemplate(hs) == 0 && countTemplate(chs) > 0 {
			best, bestThinking, bestHs = inner, thinking, chs
		}
	}
	if bestHs == nil {
		return content, hs
	}
	p.resp.Reasoning = joinNonEmpty(p.resp.Reasoning, bestThinking)
	p.warn("The reply was wrapped in a ```markdown code block; write the template directly.")
	return best, bestHs
}

// unwrapCandidates lists texts that may hold a fenced template, best first:
// the reply between its first and last line when these are a markdown (or
// bare) fence and its closing fence (or the rest of a reply cut off before
// the closing fence), then the reply's markdown blocks, last first.
func unwrapCandidates(content string) []string {
	var cands []string
	lines := strings.Split(strings.Trim(content, " \t\n"), "\n")
	if open, ok := parseFence(lines[0]); ok && isMarkdownInfo(open.info) {
		last, ok := parseFence(lines[len(lines)-1])
		if len(lines) > 1 && ok && last.closes(open) {
			cands = append(cands, strings.Join(lines[1:len(lines)-1], "\n"))
		} else {
			cands = append(cands, strings.Join(lines[1:], "\n"))
		}
	}
	blocks := CodeBlocks(content)
	for i := len(blocks) - 1; i >= 0; i-- {
		if isMarkdownInfo(blocks[i].Info) {
			cands = append(cands, blocks[i].Content)
		}
	}
	return cands
}

// mayHoldTemplate reports whether s has a line that reads as a template
// heading, code blocks or not.
func mayHoldTemplate(s string) bool {
	for line := range strings.Lines(s) {
		if h, ok := atxHeading(strings.TrimSuffix(line, "\n")); ok && classify(h.text).kind != secOther {
			return true
		}
	}
	return false
}

func isMarkdownInfo(info string) bool {
	switch strings.ToLower(info) {
	case "", "markdown", "md":
		return true
	}
	return false
}

func has(hs []heading, kind section) bool {
	for _, h := range hs {
		if h.kind == kind {
			return true
		}
	}
	return false
}

func countTemplate(hs []heading) int {
	n := 0
	for _, h := range hs {
		if h.kind != secOther {
			n++
		}
	}
	return n
}

// toolDraft is a Tool Choice section waiting for its input and name check.
type toolDraft struct {
	nameLine string  // what names the tool: the heading's rest or the first line
	fenced   bool    // the name was written in a code block
	extra    string  // text under the heading after the name
	input    *string // the Tool Input section, if one followed
}

// sections cuts src at the template headings after the last Agent Response
// heading and fills p.resp, p.warnings and p.problems.
func (p *parse) sections(src string, hs []heading) {
	first, agentResponses := 0, 0
	for i, h := range hs {
		if h.kind == secAgentResponse {
			first = i + 1
			agentResponses++
		}
	}
	if agentResponses > 0 {
		p.warnHeading(hs[first-1])
	} else if countTemplate(hs) > 0 {
		p.warn("The reply had no \"# Agent Response\" heading; the sections were read without it.")
	}
	hs = hs[first:]

	var (
		found      []string
		thoughts   []string
		taskLists  int
		tools      []*toolDraft
		inputFirst bool
	)
	for i := 0; i < len(hs); {
		h := hs[i]
		if h.kind == secOther {
			i++
			continue
		}
		if !slices.Contains(found, canonical[h.kind]) {
			found = append(found, canonical[h.kind])
		}
		p.warnHeading(h)
		// A Tool Input runs to the next Tool Choice: a README written through
		// WRITE_FILE may well have "## Usage" or even "## Thoughts" headings.
		j := i + 1
		for j < len(hs) && !(h.kind == secToolInput && hs[j].kind == secToolChoice ||
			h.kind != secToolInput && hs[j].kind != secOther) {
			j++
		}
		end := len(src)
		if j < len(hs) {
			end = hs[j].start
		}
		body := src[min(h.end, end):end]
		switch h.kind {
		case secThoughts:
			body = withRest(h, body)
			if t := trimBlock(body); t != "" {
				thoughts = append(thoughts, t)
			}
		case secTaskList:
			body = withRest(h, body)
			taskLists++
			p.resp.HasTaskList = true
			p.resp.Tasks = p.tasks(body)
		case secToolChoice:
			tools = append(tools, toolChoice(h, body))
		case secToolInput:
			body = withRest(h, body)
			in := trimBlock(body)
			if len(tools) == 0 {
				inputFirst = true
				break
			}
			tools[len(tools)-1].input = &in
		}
		i = j
	}

	if len(tools) == 0 {
		p.problem("%s", missingToolChoice(src, found, agentResponses))
		return
	}
	if inputFirst {
		p.problem("`## Tool Input` comes before any `## Tool Choice`: put `## Tool Choice` and the tool name first, then `## Tool Input`.")
	}
	if taskLists > 1 {
		p.warn("The reply had %d Task List sections; the last one was used.", taskLists)
	}
	p.resp.Thoughts = closeFences(trimBlock(escapeThinkingTags(strings.Join(thoughts, "\n\n"))))
	if p.resp.Thoughts == "" {
		p.warn("The reply had no Thoughts.")
	}
	for n, t := range tools {
		p.tool(n, len(tools), t)
	}
}

// withRest puts the text after "Thoughts:" (or "Task List:", "Tool Input:")
// on the heading line at the start of the section's body, unless that text
// would read as a heading or a fence on a line of its own.
func withRest(h heading, body string) string {
	if !h.colon || h.rest == "" {
		return body
	}
	if _, ok := atxHeading(h.rest); ok {
		return body
	}
	if _, ok := parseFence(h.rest); ok {
		return body
	}
	return h.rest + "\n" + body
}

// warnHeading notes a template heading not written as Template writes it.
func (p *parse) warnHeading(h heading) {
	want := canonical[h.kind]
	got := shorten(strings.TrimSpace(h.line))
	if got == want {
		return
	}
	if h.kind == secToolChoice && h.rest != "" {
		p.warn("Read the heading %q as %q with the tool name on the next line.", got, want)
		return
	}
	p.warn("Read the heading %q as %q.", got, want)
}

// toolChoice reads the body of a Tool Choice section: the name is its first
// line, or the heading's rest; a name alone in a code block is accepted too.
func toolChoice(h heading, body string) *toolDraft {
	if h.rest != "" {
		return &toolDraft{nameLine: h.rest, extra: trimBlock(body)}
	}
	rest := trimBlock(body)
	if rest == "" {
		return &toolDraft{}
	}
	line, after, _ := strings.Cut(rest, "\n")
	if f, ok := parseFence(line); ok {
		name, after2, _ := strings.Cut(after, "\n")
		closing, after3, _ := strings.Cut(after2, "\n")
		if c, ok := parseFence(closing); ok && c.closes(f) && !isBlank(name) {
			return &toolDraft{nameLine: strings.TrimSpace(name), fenced: true, extra: trimBlock(after3)}
		}
	}
	return &toolDraft{nameLine: strings.TrimSpace(line), extra: trimBlock(after)}
}

// tool resolves the n-th of count tool drafts into resp.Tools.
func (p *parse) tool(n, count int, t *toolDraft) {
	which := "`## Tool Choice`"
	if count > 1 {
		which = fmt.Sprintf("`## Tool Choice` number %d", n+1)
	}
	if t.nameLine == "" {
		p.problem("%s is empty: write one tool name on the line after it.", which)
		p.listTools = true
		return
	}
	name, lenient, ok, ambiguous := resolveTool(t.nameLine, p.toolNames)
	if len(ambiguous) > 0 {
		p.problem("The tool name %q under %s fits several tools (%s): write the name exactly.", shorten(t.nameLine), which, strings.Join(ambiguous, ", "))
		return
	}
	if !ok {
		p.problem("Unknown tool %q under %s: write exactly one of the valid tool names.", shorten(t.nameLine), which)
		p.listTools = true
		return
	}
	if lenient {
		p.warn("Read the tool name %q as %s.", shorten(t.nameLine), name)
	}
	if t.fenced {
		p.warn("Read the tool name %s from a code block under %s; write the name alone.", name, which)
	}
	input := ""
	switch {
	case t.input != nil:
		input = *t.input
		if t.extra != "" {
			p.warn("Ignored the text after the tool name under %s: %q.", which, shorten(t.extra))
		}
	case t.extra != "":
		input = t.extra
		p.warn("Read the text after the tool name under %s as its input; it belongs under \"## Tool Input\".", which)
	}
	p.resp.Tools = append(p.resp.Tools, ToolCall{Name: name, Input: input})
}

// tasks reads the Task List lines.
func (p *parse) tasks(body string) []Task {
	var tasks []Task
	var listed, ignored []string
	for line := range strings.Lines(body) {
		t := strings.TrimSpace(line)
		if t == "" {
			continue
		}
		u, marker := cutListMarker(t)
		status, text, ok := cutCheckbox(u)
		if !ok {
			ignored = append(ignored, t)
			continue
		}
		text = escapeTagsInLine(strings.TrimSpace(text))
		if text == "" {
			continue
		}
		if marker {
			listed = append(listed, t)
		}
		tasks = append(tasks, Task{Status: status, Text: text})
	}
	if len(listed) > 0 {
		p.warn("Read list items such as %q as task lines; write them as \"[ ] text\".", shorten(listed[0]))
	}
	if len(ignored) > 0 {
		p.warn("Ignored %d Task List line(s) without a [ ], [~] or [x] status, such as %q.", len(ignored), shorten(ignored[0]))
	}
	return tasks
}

// cutListMarker removes a "- ", "* ", "+ " or "1. " / "1) " list marker.
func cutListMarker(t string) (string, bool) {
	if len(t) >= 2 && strings.IndexByte("-*+", t[0]) >= 0 && (t[1] == ' ' || t[1] == '\t') {
		return strings.TrimLeft(t[2:], " \t"), true
	}
	d := 0
	for d < len(t) && d < 9 && '0' <= t[d] && t[d] <= '9' {
		d++
	}
	if d > 0 && d+1 < len(t) && (t[d] == '.' || t[d] == ')') && (t[d+1] == ' ' || t[d+1] == '\t') {
		return strings.TrimLeft(t[d+2:], " \t"), true
	}
	return t, false
}

// cutCheckbox reads "[x] text", "[X] text", "[~] text", "[ ] text" (and "[] text").
func cutCheckbox(t string) (Status, string, bool) {
	if strings.HasPrefix(t, "[]") {
		return Pending, t[2:], true
	}
	if len(t) < 3 || t[0] != '[' || t[2] != ']' {
		return "", "", false
	}
	switch t[1] {
	case 'x', 'X':
		return Complete, t[3:], true
	case '~':
		return InProgress, t[3:], true
	case ' ':
		return Pending, t[3:], true
	}
	return "", "", false
}

// trimBlock drops the blank lines around a section's text and the trailing
// white space, keeping the first line's indentation.
func trimBlock(s string) string {
	for s != "" {
		line, rest, found := strings.Cut(s, "\n")
		if !isBlankLine(line) {
			break
		}
		if !found {
			return ""
		}
		s = rest
	}
	return strings.TrimRight(s, " \t\n")
}

func isBlankLine(s string) bool { return strings.Trim(s, " \t") == "" }

// closeFences closes a fenced block left open at the end of s. The reply may
// end inside a code block of Thoughts (say, Thoughts after the tools of a
// cut-off reply); in the template Thoughts come first, and the open block
// would swallow every section after it.
func closeFences(s string) string {
	var fences fenceTracker
	for line := range strings.Lines(s) {
		fences.step(strings.TrimSuffix(line, "\n"))
	}
	if fences.depth == 0 {
		return s
	}
	closer := "\n" + strings.Repeat(string(fences.open.char), fences.open.size)
	return s + strings.Repeat(closer, fences.depth)
}

// escapeThinkingTags writes the "<" of each thinking tag StripThinking would
// act on as "&lt;" (which markdown shows as "<"). A tag left in Thoughts or a
// task (say a stray </think>) would otherwise cut the stored template when it
// is parsed again. Escaping, unlike deleting, cannot join the text around a
// tag into a new one.
func escapeThinkingTags(s string) string {
	if !strings.Contains(s, "<") {
		return s
	}
	var out strings.Builder
	var fences fenceTracker
	for line := range strings.Lines(s) {
		if fences.step(strings.TrimSuffix(line, "\n")) != roleOutside {
			out.WriteString(line)
			continue
		}
		out.WriteString(escapeTagsInLine(line))
	}
	return out.String()
}

// escapeTagsInLine escapes the thinking tags of one line of markdown text.
func escapeTagsInLine(line string) string {
	var out strings.Builder
	for {
		pos, _, _ := findTag(line)
		if pos < 0 {
			break
		}
		out.WriteString(line[:pos])
		out.WriteString("&lt;")
		line = line[pos+1:]
	}
	if out.Len() == 0 {
		return line
	}
	out.WriteString(line)
	return out.String()
}

// missingToolChoice explains a reply without a Tool Choice section.
func missingToolChoice(src string, found []string, agentResponses int) string {
	if len(found) == 0 && agentResponses == 0 {
		msg := "Your reply does not follow the template: it has no `## Tool Choice` heading, nor any other section heading."
		if hint := pseudoHeading(src); hint != "" {
			msg += " Write each section as a markdown heading line, e.g. `## Tool Choice`, not " + hint + "."
		}
		return msg + " Start with `# Agent Response`, then `## Thoughts`, `## Task List`, `## Tool Choice` (one tool name on the next line) and `## Tool Input`."
	}
	have := "found only `# Agent Response`"
	if len(found) > 0 {
		have = "found: `" + strings.Join(found, "`, `") + "`"
	}
	msg := fmt.Sprintf("Your reply has no `## Tool Choice` section (%s). Add `## Tool Choice` with one tool name on the next line, then `## Tool Input`.", have)
	if hint := pseudoHeading(src); hint != "" {
		msg += " Write it as a markdown heading line, not " + hint + "."
	}
	if agentResponses > 1 {
		msg += " Only the last `# Agent Response` counts: put the whole template after it."
	}
	return msg
}

// pseudoHeading finds a line outside code blocks that names Tool Choice
// without being a heading, such as "**Tool Choice:** COMMAND", and quotes it.
func pseudoHeading(src string) string {
	var fences fenceTracker
	for line := range strings.Lines(src) {
		line = strings.TrimSuffix(line, "\n")
		if fences.step(line) != roleOutside {
			continue
		}
		if _, ok := atxHeading(line); ok {
			continue
		}
		t := strings.TrimLeft(line, " \t")
		if u, ok := cutListMarker(t); ok {
			t = u
		}
		if classify(t).kind == secToolChoice {
			return fmt.Sprintf("%q", shorten(strings.TrimSpace(line)))
		}
	}
	return ""
}

// emptyMessage explains an empty reply. The client may already have taken
// the reasoning out of the content, so a long reasoning is the likely cause
// even when Parse saw none.
func emptyMessage(hadReasoning bool) string {
	const answer = " Keep the reasoning short and answer with the template: `# Agent Response`, then `## Thoughts`, `## Task List`, `## Tool Choice` (one tool name on the next line) and `## Tool Input`."
	if hadReasoning {
		return "Your reply held only reasoning and no answer: the reasoning may have used the whole token budget." + answer
	}
	return "Your reply was empty: the reasoning may have used the whole token budget." + answer
}

// maxProblems keeps an error short when a reply has many broken tool calls.
const maxProblems = 5

// formatError joins the problems, numbered when there are several (at most
// maxProblems shown), and ends with tail (the valid tool names) if not empty.
func formatError(problems []string, tail string) *FormatError {
	var b strings.Builder
	if len(problems) == 1 {
		b.WriteString(problems[0])
	} else {
		fmt.Fprintf(&b, "Your reply has %d format problems:", len(problems))
		for i, pr := range problems[:min(len(problems), maxProblems)] {
			fmt.Fprintf(&b, "\n%d. %s", i+1, pr)
		}
		if len(problems) > maxProblems {
			fmt.Fprintf(&b, "\n… and %d more.", len(problems)-maxProblems)
		}
	}
	if tail != "" {
		b.WriteString("\n")
		b.WriteString(tail)
	}
	return &FormatError{Message: b.String()}
}

// shorten keeps quotations in messages short.
func shorten(s string) string {
	const max = 60
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !isRuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

func joinNonEmpty(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "\n\n" + b
}
