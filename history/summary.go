package history

import (
	"strings"

	"github.com/devagent/dev/llm"
)

// The marks of the message that replaces a compressed history (SPEC §5).
const (
	summaryMark   = "[CONTEXT SUMMARY]"
	summaryHead   = summaryMark + "\n\n"
	summaryTasks  = "\n\nTask list when the conversation was compressed:\n"
	summaryOrigin = "\n\n[ORIGINAL REQUEST]\n\n"
	summaryNow    = "\n\n[CURRENT REQUEST]\n\n"
)

// Compressed is the one user message that replaces a compressed history
// (SPEC §5): `[CONTEXT SUMMARY]\n\n{summary}\n\n[ORIGINAL REQUEST]\n\n{original}`.
type Compressed struct {
	Summary string
	// Tasks is the task list when the history was compressed, one
	// "[x] text" line each ("" when there is none). It is stated after the
	// summary so the model sees it whatever the summary says.
	Tasks    string
	Original string // the session's first request, verbatim
	// Current is the request being worked on when it is not the original
	// one (a later message in the same session); "" otherwise.
	Current string
}

// Message is the message, each part trimmed.
func (c Compressed) Message() llm.Message {
	var b strings.Builder
	b.WriteString(summaryHead)
	b.WriteString(strings.TrimSpace(c.Summary))
	if tasks := strings.TrimSpace(c.Tasks); tasks != "" {
		b.WriteString(summaryTasks + tasks)
	}
	b.WriteString(summaryOrigin)
	b.WriteString(strings.TrimSpace(c.Original))
	if cur := strings.TrimSpace(c.Current); cur != "" && cur != strings.TrimSpace(c.Original) {
		b.WriteString(summaryNow + cur)
	}
	return user(b.String())
}

// NoSummary stands in for a summary the model did not give (an empty reply,
// or a summarisation request that could not be made to fit): the last step
// of the conversation, shortened, so the work can go on.
func NoSummary(lastStep string) string {
	return "No summary could be made of the earlier conversation. Its last step was:\n\n" + strings.TrimSpace(lastStep)
}

// readCompressed reads the parts of a summary message back. The summary
// is the model's text and the requests the user's: either may hold a
// mark, so the first [ORIGINAL REQUEST] ends the summary, and the task
// list is the last one before it.
func readCompressed(content string) Compressed {
	body := strings.TrimPrefix(content, summaryMark)
	summary, rest, found := strings.Cut(body, summaryOrigin)
	var c Compressed
	if found {
		c.Original, c.Current, _ = strings.Cut(rest, summaryNow)
	}
	if i := strings.LastIndex(summary, summaryTasks); i >= 0 {
		summary, c.Tasks = summary[:i], summary[i+len(summaryTasks):]
	}
	c.Summary = summary
	for _, s := range []*string{&c.Summary, &c.Tasks, &c.Original, &c.Current} {
		*s = strings.TrimSpace(*s)
	}
	return c
}
