package transcript

import (
	"cmp"
	"slices"
	"strings"

	"github.com/devagent/dev/history"
	"github.com/devagent/dev/mention"
	"github.com/devagent/dev/sessions"
)

// reader builds a Transcript from a history's entries, then places what
// the session's records add.
type reader struct {
	history []history.Entry
	out     Transcript
	// requests counts the turns of TurnRequest read; unknown is set once
	// a summary has hidden the requests before it: their number is lost.
	requests int
	unknown  bool
}

// read reads the entries in order; offset is the index in the history of
// the first.
func (r *reader) read(offset int) {
	for i, e := range r.history {
		at := offset + i
		switch e.Kind {
		case history.KindRequest:
			r.requests++
			t := Turn{Kind: TurnRequest, From: at, Request: e.Text}
			if !r.unknown {
				t.Number = r.requests
			}
			t.Text, t.Attachments = mention.Split(e.Text)
			r.out.Turns = append(r.out.Turns, t)
		case history.KindSummary:
			r.unknown = true
			r.out.Turns = append(r.out.Turns, Turn{Kind: TurnSummary, From: at,
				Request: cmp.Or(e.Compressed.Current, e.Compressed.Original), Summary: e.Compressed})
		case history.KindReply:
			if e.Err != nil {
				r.step(at, Step{Kind: StepRaw, Text: e.Message.Content})
				continue
			}
			s := Step{Kind: StepReply, Reply: e.Reply, Calls: make([]Call, len(e.Reply.Tools))}
			for j, c := range e.Reply.Tools {
				s.Calls[j].ToolCall = c
			}
			r.step(at, s)
		case history.KindResults:
			if s := r.awaiting(); s != nil {
				r.results(s, e)
				continue
			}
			s := Step{Kind: StepResults}
			r.results(&s, e)
			r.step(at, s)
		case history.KindInterruption:
			// Right after a reply: the user interrupted its tools before
			// any result, or the audit of its DONE. Anywhere else: the
			// reply being written.
			if s := r.awaiting(); s != nil {
				s.Interrupted, s.Notes = true, append(s.Notes, e.Notes...)
				continue
			}
			r.step(at, Step{Kind: StepInterrupted, Text: e.Message.Content})
		case history.KindShell:
			s := Step{Kind: StepShell, Text: e.Command, Notes: e.Notes}
			for _, res := range e.Results {
				s.Calls = append(s.Calls, Call{Result: &res})
			}
			r.step(at, s)
		case history.KindFormatError:
			r.step(at, Step{Kind: StepNote, Text: e.Text, FormatError: true})
		default:
			r.step(at, Step{Kind: StepNote, Text: e.Message.Content})
		}
	}
	r.accept()
}

// step adds a step to the last turn; steps before any turn start one of
// TurnNone.
func (r *reader) step(at int, s Step) {
	if len(r.out.Turns) == 0 {
		r.out.Turns = append(r.out.Turns, Turn{Kind: TurnNone, From: at})
	}
	s.At = at
	t := &r.out.Turns[len(r.out.Turns)-1]
	t.Steps = append(t.Steps, s)
}

// awaiting is the step the next results or interruption close: the last
// message read was a reply in the template, with its calls.
func (r *reader) awaiting() *Step {
	if len(r.out.Turns) == 0 {
		return nil
	}
	t := &r.out.Turns[len(r.out.Turns)-1]
	if len(t.Steps) == 0 {
		return nil
	}
	s := &t.Steps[len(t.Steps)-1]
	if s.Kind != StepReply || s.HasResults() || s.Interrupted {
		return nil
	}
	return s
}

// results gives a step's calls their results, in order: a result past the
// calls (a history written by hand) has no call.
func (r *reader) results(s *Step, e history.Entry) {
	for j := range e.Results {
		res := &e.Results[j]
		if j < len(s.Calls) {
			s.Calls[j].Result = res
			continue
		}
		s.Calls = append(s.Calls, Call{Result: res})
	}
	s.Notes = append(s.Notes, e.Notes...)
	s.Interrupted = e.Interrupted
}

// accept marks the DONEs that ended their request: a DONE no results and
// no interruption followed (the end of the history, a request, a command
// the user ran).
func (r *reader) accept() {
	for ti := range r.out.Turns {
		for si := range r.out.Turns[ti].Steps {
			s := &r.out.Turns[ti].Steps[si]
			if _, ok := s.Done(); ok && !s.HasResults() && !s.Interrupted {
				s.Accepted = true
			}
		}
	}
}

// placeRejected gives each step the replies dev rejected before it, by
// the number of replies the history holds before them; those after the
// last reply end the last turn.
func (r *reader) placeRejected(before map[int][]sessions.Request) {
	if len(before) == 0 || len(r.out.Turns) == 0 {
		return
	}
	replies := 0
	for ti := range r.out.Turns {
		for si := range r.out.Turns[ti].Steps {
			s := &r.out.Turns[ti].Steps[si]
			switch s.Kind {
			case StepReply, StepRaw:
				s.Rejected = rejectedOnly(before[replies])
				delete(before, replies)
				replies++
			case StepInterrupted:
				// The records up to the interrupted reply's own: another
				// interruption before the next reply takes the rest.
				records := before[replies]
				n := slices.IndexFunc(records, interrupted) + 1
				if n == 0 {
					n = len(records)
				} else {
					s.Partial = records[n-1].Partial
				}
				s.Rejected = rejectedOnly(records[:n])
				before[replies] = records[n:]
			}
		}
	}
	if rest := rejectedOnly(before[replies]); len(rest) > 0 {
		t := &r.out.Turns[len(r.out.Turns)-1]
		t.Steps = append(t.Steps, Step{Kind: StepRejected, At: -1, Rejected: rest})
	}
	if away := rejectedOnly(before[compressedAway]); len(away) > 0 {
		// Before the summary's steps; with no summary (records older
		// than the history), before the first step.
		t := r.summary()
		if t == nil {
			t = &r.out.Turns[0]
		}
		t.Steps = append([]Step{{Kind: StepRejected, At: -1, Rejected: away}}, t.Steps...)
	}
}

// rejectedOnly are the records of rejected replies among records: an
// interrupted reply with no interruption in the history to show it (a
// rewind took it, or a hand-written history) is left out.
func rejectedOnly(records []sessions.Request) []sessions.Request {
	var out []sessions.Request
	for _, r := range records {
		if r.Rejected != nil {
			out = append(out, r)
		}
	}
	return out
}

// placeCompressions gives the summary the compressions that led to it:
// the history holds the last summary only, the session records them all.
func (r *reader) placeCompressions(cs []sessions.Compression) {
	if t := r.summary(); t != nil {
		t.Compressions = cs
	}
}

// summary is the first turn of TurnSummary, nil when there is none.
func (r *reader) summary() *Turn {
	for i := range r.out.Turns {
		if r.out.Turns[i].Kind == TurnSummary {
			return &r.out.Turns[i]
		}
	}
	return nil
}

// placeRewinds puts each rewind before the request that followed it: the
// first whose number (counting every request the history holds) is past
// the requests the rewind kept. The rest come after every turn.
func (r *reader) placeRewinds(rewinds []sessions.Rewind) {
	requests := 0
	for i := range r.out.Turns {
		t := &r.out.Turns[i]
		if t.Kind != TurnRequest {
			continue
		}
		for len(rewinds) > 0 && rewinds[0].Kept <= requests {
			t.Rewinds = append(t.Rewinds, rewinds[0])
			rewinds = rewinds[1:]
		}
		requests++
	}
	r.out.Rewinds = rewinds
}

// end says how each turn ended: with an accepted DONE, without one when a
// later turn followed, and the last as the session's status says.
func (r *reader) end(status sessions.Status) {
	for i := range r.out.Turns {
		t := &r.out.Turns[i]
		last := i == len(r.out.Turns)-1
		switch {
		case t.done():
			t.End = EndDone
		case t.Kind != TurnRequest && t.Replies() == 0:
			t.End = EndUnknown
		case !last:
			t.End = EndNoDone
		case status == sessions.Failed:
			t.End = EndFailed
		case status == sessions.Interrupted:
			t.End = EndInterrupted
		case status == sessions.Active:
			t.End = EndActive
		}
	}
}

// done reports whether a DONE ended the turn.
func (t Turn) done() bool {
	for _, s := range t.Steps {
		if s.Accepted {
			return true
		}
	}
	return false
}

// feedbackOf is the auditor's report a DONE's result holds when the audit
// did not accept it.
func feedbackOf(c Call) (string, bool) {
	if c.Result == nil {
		return "", false
	}
	f, ok := c.Result.AuditFeedback()
	return strings.TrimSpace(f), ok
}
