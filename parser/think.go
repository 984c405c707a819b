package parser

import "strings"

// StripThinking removes <think>…</think> blocks, an unclosed leading <think>
// and everything before an orphan </think>, returning the remaining content
// and the removed thinking text. <thinking> tags count the same, tags match in
// any case, and the thinking parts are trimmed and joined by a blank line.
//
// Only tags in markdown text are thinking: a tag inside a fenced code block or
// an inline code span is content (a model may write a file that mentions
// <think>). Inside a thinking block fences mean nothing, so an unbalanced fence
// in the reasoning cannot hide its closing tag.
//
// An orphan </think> (the server swallowed the opening tag, so the reply
// starts with reasoning) is recognised only as the first tag of the reply, and
// not after a template heading unless an Agent Response heading follows it
// (the reasoning drafted the answer): a </think> mentioned in Thoughts or a
// tool input must not cut the template away.
func StripThinking(s string) (content, thinking string) {
	var out strings.Builder // content up to from; s[from:] is not yet decided
	from := 0
	var parts []string
	var fences fenceTracker
	seenTag := false     // only the first tag can be an orphan closing tag
	sawTemplate := false // a template heading came before
	lineStart := true    // whether s[i:] starts a line (fences only open there)
	i, next := 0, 0      // s[i:next] is the rest of the current line
	for i < len(s) {
		if lineStart || i >= next {
			next = len(s)
			if nl := strings.IndexByte(s[i:], '\n'); nl >= 0 {
				next = i + nl + 1
			}
		}
		segment := strings.TrimSuffix(s[i:next], "\n")
		if lineStart {
			if fences.step(segment) != roleOutside {
				i = next
				continue
			}
			if h, ok := atxHeading(segment); ok && classify(h.text).kind != secOther {
				sawTemplate = true
			}
		}
		pos, closing, n := findTag(segment)
		if pos < 0 {
			i, lineStart = next, true
			continue
		}
		at := i + pos
		if !closing {
			seenTag = true
			end, endLen := findClosingTag(s, at+n)
			if end < 0 {
				if isBlank(out.String()) && isBlank(s[from:at]) {
					parts = append(parts, s[at+n:])
					out.Reset()
					from = len(s)
				}
				// Otherwise the tag is content, and so is any later opening
				// tag: none can be closed.
				break
			}
			out.WriteString(s[from:at])
			parts = append(parts, s[at+n:end])
			from = end + endLen
			i, lineStart = from, false
			continue
		}
		if !seenTag && (!sawTemplate || agentResponseAfter(s[next:])) {
			parts = append(parts, s[:at])
			out.Reset()
			from = at + n
		}
		seenTag = true
		i, lineStart = at+n, false
	}
	if from == 0 {
		return s, ""
	}
	out.WriteString(s[from:])
	var kept []string
	for _, p := range parts {
		if p = strings.TrimSpace(p); p != "" {
			kept = append(kept, p)
		}
	}
	return out.String(), strings.Join(kept, "\n\n")
}

// findTag returns the position and length of the first thinking tag of a
// line segment that is not inside an inline code span, and whether it closes.
func findTag(seg string) (pos int, closing bool, n int) {
	if strings.IndexByte(seg, '<') < 0 {
		return -1, false, 0
	}
	inCode := false
	for j := 0; j < len(seg); j++ {
		switch seg[j] {
		case '`':
			inCode = !inCode
		case '<':
			if inCode {
				continue
			}
			if c, n := matchTag(seg[j:]); n > 0 {
				return j, c, n
			}
		}
	}
	return -1, false, 0
}

// matchTag reports whether s starts with <think>, <thinking>, </think> or
// </thinking> in any case.
func matchTag(s string) (closing bool, n int) {
	rest := s[1:]
	if strings.HasPrefix(rest, "/") {
		closing, rest = true, rest[1:]
	}
	if len(rest) < 6 || !strings.EqualFold(rest[:5], "think") {
		return false, 0
	}
	rest = rest[5:]
	if len(rest) >= 4 && strings.EqualFold(rest[:3], "ing") {
		rest = rest[3:]
	}
	if rest[0] != '>' {
		return false, 0
	}
	return closing, len(s) - len(rest) + 1
}

// findClosingTag finds the first closing tag at or after from, ignoring
// markdown structure: reasoning is opaque text.
func findClosingTag(s string, from int) (pos, n int) {
	for i := from; i < len(s); {
		j := strings.IndexByte(s[i:], '<')
		if j < 0 {
			return -1, 0
		}
		i += j
		if closing, n := matchTag(s[i:]); n > 0 && closing {
			return i, n
		}
		i++
	}
	return -1, 0
}

// agentResponseAfter reports whether s (starting at a line start outside any
// fence) holds an Agent Response heading outside fenced blocks.
func agentResponseAfter(s string) bool {
	var fences fenceTracker
	for len(s) > 0 {
		line, rest, _ := strings.Cut(s, "\n")
		s = rest
		if fences.step(line) != roleOutside {
			continue
		}
		if h, ok := atxHeading(line); ok && classify(h.text).kind == secAgentResponse {
			return true
		}
	}
	return false
}

func isBlank(s string) bool { return strings.TrimSpace(s) == "" }
