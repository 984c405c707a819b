package compress

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/devagent/dev/history"
	"github.com/devagent/dev/llm"
)

// Limits of shortening: what is left of a tool result or a message at
// least, before whole messages are left out.
const (
	toolFloor    = 240
	messageFloor = 480
	// cutMarkLen bounds the length of the marker that replaces a cut.
	cutMarkLen = 40
)

// part is a piece of a message: plain text, or the body of a tool result.
type part struct {
	text string
	tool bool
}

type entry struct {
	role  string
	parts []part
}

func (e entry) content() string {
	var b strings.Builder
	for _, p := range e.parts {
		b.WriteString(p.text)
	}
	return b.String()
}

func (e entry) render() string {
	return `<message role="` + e.role + `">` + "\n" + e.content() + "\n</message>"
}

// messageSep separates rendered messages in a transcript.
const messageSep = "\n\n"

// split cuts a message at the bodies of its tool results, the first
// thing shortened.
func split(m llm.Message) entry {
	e := entry{role: m.Role}
	for _, s := range history.Spans(m.Content) {
		e.parts = append(e.parts, part{text: s.Text, tool: s.Body})
	}
	return e
}

func size(entries []entry) int {
	n := 0
	for i, e := range entries {
		if i > 0 {
			n += len(messageSep)
		}
		n += len(e.render())
	}
	return n
}

func join(entries []entry) string {
	out := make([]string, len(entries))
	for i, e := range entries {
		out[i] = e.render()
	}
	return strings.Join(out, messageSep)
}

// Transcript renders a history for the summarisation request, each message
// in a <message role="…"> element.
func Transcript(history []llm.Message) string {
	entries := make([]entry, len(history))
	for i, m := range history {
		entries[i] = split(m)
	}
	return join(entries)
}

// Fit renders history as Transcript does, in at most budget bytes (a budget
// of 0 or less means no limit). What does not fit goes in this order: the
// middles of the longest tool results first, down to a few hundred bytes
// each; then the middles of the longest messages; then whole messages,
// oldest first, except the first one (it holds the request). cuts counts
// what was shortened or left out.
func Fit(history []llm.Message, budget int) (text string, cuts int) {
	entries := make([]entry, len(history))
	for i, m := range history {
		entries[i] = split(m)
	}
	if budget <= 0 || size(entries) <= budget {
		return join(entries), 0
	}

	// 1. The longest tool results, in the middle.
	var bodies []*part
	for i := range entries {
		for j := range entries[i].parts {
			if entries[i].parts[j].tool {
				bodies = append(bodies, &entries[i].parts[j])
			}
		}
	}
	cuts += shortenLongest(bodies, size(entries)-budget, toolFloor)

	// 2. The longest messages, in the middle.
	if over := size(entries) - budget; over > 0 {
		whole := make([]*part, len(entries))
		for i := range entries {
			entries[i].parts = []part{{text: entries[i].content()}}
			whole[i] = &entries[i].parts[0]
		}
		cuts += shortenLongest(whole, over, messageFloor)
	}

	// 3. Whole messages, oldest first, keeping the first.
	if size(entries) > budget && len(entries) > 2 {
		left := 0
		for size(entries) > budget && len(entries) > 2 {
			entries = append(entries[:1], entries[2:]...)
			left++
		}
		note := entry{role: "note", parts: []part{{text: fmt.Sprintf("(%d earlier messages left out)", left)}}}
		entries = append(entries[:1], append([]entry{note}, entries[1:]...)...)
		cuts += left
	}

	text = join(entries)
	if len(text) > budget {
		// Two messages that each hold their floor can still be too long
		// for a tiny window: cut the transcript itself.
		text = cutMiddle(text, max(budget-cutMarkLen, 0))
		cuts++
	}
	return text, cuts
}

// shortenLongest cuts the middles of the longest parts to one common length
// (no shorter than floor) so that together they lose at least excess bytes,
// or as much as the floor allows. It returns how many parts it cut.
func shortenLongest(parts []*part, excess, floor int) int {
	if excess <= 0 || len(parts) == 0 {
		return 0
	}
	longest := 0
	for _, p := range parts {
		longest = max(longest, len(p.text))
	}
	saved := func(keep int) int {
		n := 0
		for _, p := range parts {
			if len(p.text) > keep+cutMarkLen {
				n += len(p.text) - keep - cutMarkLen
			}
		}
		return n
	}
	// The largest keep whose savings cover excess; saved falls as keep grows.
	keep := floor
	if saved(floor) >= excess {
		lo, hi := floor, longest
		for lo < hi {
			mid := lo + (hi-lo+1)/2
			if saved(mid) >= excess {
				lo = mid
			} else {
				hi = mid - 1
			}
		}
		keep = lo
	}
	n := 0
	for _, p := range parts {
		if len(p.text) > keep+cutMarkLen {
			p.text = cutMiddle(p.text, keep)
			n++
		}
	}
	return n
}

// cutMiddle keeps about keep bytes of s, its head and its tail, with a
// marker saying how much was cut between them. It never splits a UTF-8
// character.
func cutMiddle(s string, keep int) string {
	if len(s) <= keep+cutMarkLen {
		return s
	}
	head := keep / 2
	for head > 0 && !utf8.RuneStart(s[head]) {
		head--
	}
	tail := len(s) - (keep - keep/2)
	for tail < len(s) && !utf8.RuneStart(s[tail]) {
		tail++
	}
	return s[:head] + fmt.Sprintf("\n[… %d bytes cut …]\n", tail-head) + s[tail:]
}
