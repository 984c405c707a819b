package history

import (
	"strings"

	"github.com/devagent/dev/llm"
	"github.com/devagent/dev/parser"
)

// Kind is what a message of the history is.
type Kind int

// The kinds of messages, as the constructors write them.
const (
	KindOther        Kind = iota // none of these: a history written by hand, or by a version that knew other kinds
	KindRequest                  // the user's request (Request)
	KindReply                    // the model's reply: an accepted template (Reply), or a failed attempt (Attempt)
	KindResults                  // the results of a step's tools (Results, InterruptedStep)
	KindSummary                  // the summary that replaced a compressed history (Compressed)
	KindInterruption             // the user interrupted a reply or an audit (InterruptedReply, InterruptedAudit)
	KindShell                    // a command the user ran (Shell)
	KindFormatError              // why a reply could not be used (FormatError)
)

// Entry is one message of a history read back: its kind and its parts.
type Entry struct {
	Kind    Kind
	Message llm.Message // as the history holds it
	// Text is the request (KindRequest, without what plan mode added), what the model was told after
	// "Your reply could not be used: " (KindFormatError), or the whole
	// message (the other kinds).
	Text string
	// Reply is the template of a KindReply, parsed with the tool names it
	// calls; Err says why it is none (a failed attempt, a hand-written
	// reply).
	Reply parser.Response
	Err   error
	// Results are the tools' results of KindResults and KindShell, in
	// order. Notes are the texts around them (which calls did not run, a
	// note to the model); a KindInterruption or KindOther message is its
	// own note.
	Results []ToolResult
	Notes   []string
	// Interrupted: the user interrupted the step these results end
	// (KindResults).
	Interrupted bool
	// Command is the command the user ran (KindShell); "" in histories of
	// versions that did not keep it.
	Command string
	// Plan: the request was worked on in plan mode (KindRequest).
	Plan bool
	// Compressed is the parts of a KindSummary.
	Compressed Compressed
}

// Read reads a history back, one entry per message.
func Read(msgs []llm.Message) []Entry {
	out := make([]Entry, len(msgs))
	for i, m := range msgs {
		out[i] = ReadMessage(m)
	}
	return out
}

// ReadMessage reads one message back: Read of a history of one.
func ReadMessage(m llm.Message) Entry {
	e := Entry{Message: m, Text: m.Content}
	c := m.Content
	if m.Role == llm.RoleAssistant {
		e.Kind = KindReply
		e.Reply, e.Err = parser.Parse(c, toolNames(c))
		return e
	}
	if m.Role != llm.RoleUser {
		return e
	}
	switch {
	case strings.HasPrefix(c, requestTag):
		e.Kind = KindRequest
		body := strings.TrimPrefix(c, requestTag)
		if i := strings.LastIndex(body, requestEnd); i >= 0 && strings.HasPrefix(strings.TrimSpace(body[i+len(requestEnd):]), planTag) {
			body, e.Plan = body[:i], true
		}
		e.Text = strings.TrimSpace(strings.TrimSuffix(body, requestEnd))
	case strings.HasPrefix(c, summaryMark):
		e.Kind, e.Compressed = KindSummary, readCompressed(c)
	case strings.HasPrefix(c, formatError):
		e.Kind, e.Text = KindFormatError, strings.TrimPrefix(c, formatError)
	case strings.HasPrefix(c, shellNote):
		e.Kind = KindShell
		e.Results, e.Notes = unwrap(strings.TrimPrefix(c, shellNote))
		if len(e.Results) > 0 {
			if a := e.Results[0].Attrs; len(a) > 0 && a[0][0] == shellCommand {
				e.Command, e.Results[0].Attrs = a[0][1], a[1:]
			}
		}
	case c == interruptedReply || c == interruptedAudit || c == interruptedStep:
		e.Kind, e.Notes = KindInterruption, []string{c}
	default:
		e.Results, e.Notes = unwrap(c)
		if len(e.Results) > 0 {
			// A result's output cannot end the message: its closing tag
			// follows it.
			e.Kind, e.Interrupted = KindResults, strings.HasSuffix(c, "\n\n"+interruptedStep)
		}
	}
	return e
}

// ReadTurnStart reads m when it starts a turn: a request (KindRequest)
// or a compression's summary (KindSummary), read as ReadMessage reads
// them; ok is false for any other message, which is not read further.
// Counting a history's requests needs no more, and reading the results
// of every step would cost more than decoding them (sessions' lists of
// files of earlier versions).
func ReadTurnStart(m llm.Message) (e Entry, ok bool) {
	if m.Role != llm.RoleUser || !strings.HasPrefix(m.Content, requestTag) && !strings.HasPrefix(m.Content, summaryMark) {
		return Entry{}, false
	}
	return ReadMessage(m), true
}

// toolNames are the tool names a stored reply calls: the line after each
// Tool Choice heading of its normalised template. The tools a session
// could call (custom and MCP tools among them) are not stored, and a
// stored template names its tools exactly.
func toolNames(content string) []string {
	var names []string
	lines := strings.Split(content, "\n")
	for i, l := range lines {
		if strings.TrimSpace(l) == "## Tool Choice" && i+1 < len(lines) {
			if name := strings.TrimSpace(lines[i+1]); name != "" {
				names = append(names, name)
			}
		}
	}
	return names
}
