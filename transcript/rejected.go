package transcript

import (
	"time"

	"github.com/devagent/dev/checkpoints"
	"github.com/devagent/dev/llm"
	"github.com/devagent/dev/sessions"
)

// compressedAway is the key of rejectedBefore for the replies rejected in
// the part of the conversation a compression summarised.
const compressedAway = -1

// rejectedBefore places the replies dev could not use, and those the user
// interrupted, which are kept in the request records and never in the
// history, among the history's messages: by the number of assistant messages before which each came
// (the key len(assistant messages) holds those after the last one,
// compressedAway those a compression summarised). The worker's accepted
// replies are the anchors, paired with the history's assistant messages
// from the end: a compression removes the earliest messages, not the
// latest. The records of requests a rewind undid stay in the session (they
// were spent): they are left out (see live).
func rejectedBefore(sess *sessions.Session) map[int][]sessions.Request {
	replies := 0
	for _, m := range sess.History {
		if m.Role == llm.RoleAssistant {
			replies++
		}
	}
	var records []sessions.Request
	for _, r := range sess.Requests {
		if live(sess, r.Timestamp, time.Time{}) {
			records = append(records, r)
		}
	}
	var accepted []int // indexes in records of the worker's accepted replies
	for i, r := range records {
		if r.Purpose == sessions.PurposeWorker && r.Rejected == nil && !r.FormatError && !r.Interrupted {
			accepted = append(accepted, i)
		}
	}
	out := map[int][]sessions.Request{}
	skip := max(0, len(accepted)-replies)  // anchors whose messages a compression took
	extra := max(0, replies-len(accepted)) // messages older than the records
	anchor := 0                            // the next anchor's place in accepted
	for i, r := range records {
		for anchor < len(accepted) && accepted[anchor] < i {
			anchor++
		}
		if r.Rejected == nil && !interrupted(r) {
			continue
		}
		before := min(max(0, anchor-skip)+extra, replies)
		if anchor < skip {
			before = compressedAway
		}
		out[before] = append(out[before], r)
	}
	return out
}

// interrupted reports whether r is a worker's reply the user interrupted
// while it streamed: it has its place among the history's messages as
// the rejected replies do, and its step shows it.
func interrupted(r sessions.Request) bool {
	return r.Purpose == sessions.PurposeWorker && r.Interrupted
}

// live reports whether what the session recorded at made is still in its
// history at until (zero: now), as far as the rewinds say: a rewind puts
// back the history as it was when its target checkpoint was taken, so
// what was recorded before that checkpoint lives on as it was then, and
// what came after it was undone. A record without a time, or a rewind to
// a checkpoint the session does not list, undoes nothing.
func live(sess *sessions.Session, made, until time.Time) bool {
	for i := len(sess.Rewinds) - 1; i >= 0; i-- {
		r := sess.Rewinds[i]
		if r.FilesOnly || !r.Time.After(made) || !until.IsZero() && r.Time.After(until) {
			continue
		}
		c, err := checkpoints.Find(sess.Checkpoints, r.To)
		if err != nil || made.IsZero() {
			return true
		}
		return c.Time.After(made) && live(sess, made, c.Time)
	}
	return true
}
