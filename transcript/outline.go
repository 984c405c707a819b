package transcript

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/devagent/dev/sessions"
	"github.com/devagent/dev/textfmt"
)

// String is the transcript as an outline, one line per turn, step, call
// and record, texts cut to a line: what the reader made of a session, for
// the golden files and for a person debugging a renderer.
func (t Transcript) String() string {
	var b strings.Builder
	for _, turn := range t.Turns {
		turn.outline(&b)
	}
	for _, rw := range t.Rewinds {
		b.WriteString(rewindLine(rw))
	}
	return b.String()
}

var turnKinds = map[TurnKind]string{TurnRequest: "request", TurnSummary: "summary", TurnNone: "no request"}

var ends = map[End]string{EndUnknown: "not said", EndDone: "done", EndNoDone: "no DONE", EndFailed: "failed",
	EndInterrupted: "interrupted", EndActive: "active"}

var stepKinds = map[StepKind]string{StepReply: "reply", StepRaw: "raw reply", StepInterrupted: "interrupted reply",
	StepShell: "user's command", StepResults: "results", StepNote: "note", StepRejected: "rejected only"}

func (t Turn) outline(b *strings.Builder) {
	for _, rw := range t.Rewinds {
		b.WriteString(rewindLine(rw))
	}
	fmt.Fprintf(b, "turn %s", turnKinds[t.Kind])
	if t.Number > 0 {
		fmt.Fprintf(b, " %d", t.Number)
	}
	fmt.Fprintf(b, " @%d: %s → %s\n", t.From, quote(t.Request), ends[t.End])
	if t.Kind == TurnRequest && t.Text != t.Request {
		fmt.Fprintf(b, "  typed %s\n", quote(t.Text))
	}
	for _, a := range t.Attachments {
		fmt.Fprintf(b, "  attached %s: %d lines, binary %t\n", a.Path, a.Lines, a.Binary)
	}
	if t.Kind == TurnSummary {
		fmt.Fprintf(b, "  summary %s; tasks %s; original %s; current %s\n", quote(t.Summary.Summary), quote(t.Summary.Tasks),
			quote(t.Summary.Original), quote(t.Summary.Current))
	}
	if len(t.Compressions) > 0 { // their tokens depend on the working directory's path
		fmt.Fprintf(b, "  %d compressions\n", len(t.Compressions))
	}
	for _, a := range t.Audits {
		fmt.Fprintf(b, "  %s\n", auditLine(a))
	}
	for _, s := range t.Steps {
		s.outline(b)
	}
}

func (s Step) outline(b *strings.Builder) {
	for _, r := range s.Rejected {
		fmt.Fprintf(b, "  rejected %s reply: %s, %d lines, cut %t\n", r.Purpose, quote(r.Rejected.Problem), r.Rejected.Lines, r.Rejected.Cut)
	}
	if s.Kind == StepRejected {
		return
	}
	fmt.Fprintf(b, "  step %s @%d", stepKinds[s.Kind], s.At)
	if s.Kind == StepReply {
		fmt.Fprintf(b, ": thoughts %s", quote(s.Reply.Thoughts))
		if s.Reply.HasTaskList {
			fmt.Fprintf(b, ", %d tasks", len(s.Reply.Tasks))
		}
	}
	if s.Text != "" || s.Kind == StepShell {
		fmt.Fprintf(b, ": %s", quote(s.Text))
	}
	for _, flag := range []struct {
		on   bool
		name string
	}{{s.FormatError, "format error"}, {s.Interrupted, "interrupted"}, {s.Accepted, "accepted"}} {
		if flag.on {
			b.WriteString(", " + flag.name)
		}
	}
	b.WriteString("\n")
	if s.Partial != "" {
		fmt.Fprintf(b, "    partial %s\n", quote(s.Partial))
	}
	for _, c := range s.Calls {
		b.WriteString("    ")
		if c.Name != "" {
			fmt.Fprintf(b, "call %s %s", c.Name, quote(c.Input))
		} else {
			b.WriteString("no call")
		}
		if r := c.Result; r != nil {
			fmt.Fprintf(b, " → %s ok %t: %s", r.Tool, r.OK, quote(r.Output))
		}
		b.WriteString("\n")
	}
	for _, n := range s.Notes {
		fmt.Fprintf(b, "    note %s\n", quote(n))
	}
	if s.Audit != nil {
		fmt.Fprintf(b, "    %s\n", auditLine(*s.Audit))
	}
}

func auditLine(a sessions.Audit) string {
	return fmt.Sprintf("audit %s in %d steps: %s", a.Verdict, a.Steps, quote(a.Feedback))
}

func rewindLine(r sessions.Rewind) string {
	return fmt.Sprintf("rewind to checkpoint %d from %d: kept %d requests, undid %d, files only %t\n", r.To, r.From, r.Kept, r.Undone, r.FilesOnly)
}

// quote is a text on one line, cut, quoted.
func quote(s string) string {
	return strconv.Quote(textfmt.Clip(strings.TrimSpace(s), 60))
}
