package parser

import "strings"

// InventionWatch reads a reply's content as it streams and finds where the
// model begins to invent the result of the tool it just chose (SPEC §14):
// once the content holds a complete template (a Tool Choice heading, then a
// Tool Input heading), a line outside fenced code that starts with
// <tool_result, or a heading named Result, Tool Result, Observation or
// Output. Text inside <think> blocks never counts, and neither does the
// input of DONE, which has no result to invent: its summary may well have a
// "## Result" heading. Lines are judged once
// complete, and only their start is kept, so a reply of any length costs
// linear time and constant memory. The zero value is ready.
type InventionWatch struct {
	fed       int    // bytes of content fed so far
	lineStart int    // offset of the line being read
	line      []byte // its first probeBytes bytes
	fences    fenceTracker
	thinking  bool // inside a <think> block
	choice    bool // a Tool Choice heading came (since the last reasoning)
	input     bool // and a Tool Input heading after it
	naming    bool // the line naming the chosen tool is still to come
	done      bool // the tool chosen is DONE
}

// probeBytes of a line are enough to judge it: a heading, a fence, a tag.
const probeBytes = 256

// inventedHeadings are the result headings, lower case.
var inventedHeadings = []string{"result", "tool result", "observation", "output"}

// Feed reads the next piece of content. found reports an invented result,
// and at its offset in the whole content: the start of the line that
// begins it, where the content should be cut.
func (w *InventionWatch) Feed(chunk string) (at int, found bool) {
	for chunk != "" {
		nl := strings.IndexByte(chunk, '\n')
		part := chunk
		if nl >= 0 {
			part = chunk[:nl]
		}
		if room := probeBytes - len(w.line); room > 0 {
			w.line = append(w.line, part[:min(room, len(part))]...)
		}
		w.fed += len(part)
		if nl < 0 {
			return 0, false
		}
		w.fed++ // the newline
		chunk = chunk[nl+1:]
		if w.invented(string(w.line)) {
			return w.lineStart, true
		}
		w.line, w.lineStart = w.line[:0], w.fed
	}
	return 0, false
}

// invented judges one complete line (its first probeBytes bytes).
func (w *InventionWatch) invented(line string) bool {
	if w.thinking {
		if strings.Contains(line, "</think>") {
			w.thinking = false
		}
		return false
	}
	if w.fences.step(line) != roleOutside {
		return false
	}
	if open := strings.Index(line, "<think>"); open >= 0 {
		w.thinking = !strings.Contains(line[open:], "</think>")
		return false
	}
	if strings.Contains(line, "</think>") {
		// An orphan closing tag: what came before was reasoning.
		w.choice, w.input = false, false
		return false
	}
	complete := w.choice && w.input && !w.done
	if h, ok := atxHeading(line); ok {
		switch c := classify(h.text); c.kind {
		case secToolChoice:
			w.choice, w.input, w.done = true, false, false
			w.naming = c.rest == ""
			if !w.naming {
				w.done = isDone(c.rest)
			}
			return false
		case secToolInput:
			w.input, w.naming = w.choice, false
			return false
		}
		name := strings.ToLower(strings.Trim(h.text, "*_` \t:"))
		for _, n := range inventedHeadings {
			if complete && name == n {
				return true
			}
		}
		return false
	}
	if w.naming && strings.TrimSpace(line) != "" {
		w.naming, w.done = false, isDone(line)
	}
	return complete && strings.HasPrefix(strings.TrimLeft(line, " \t"), "<tool_result")
}

// isDone reports whether a Tool Choice names DONE, however it is marked up.
func isDone(name string) bool {
	return strings.EqualFold(strings.Trim(strings.TrimSpace(name), "*_`'\""), "DONE")
}
