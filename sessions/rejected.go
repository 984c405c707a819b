package sessions

// RejectedBefore places the replies dev could not use, which are kept in
// the request records and never in the history, among the history's
// messages: by the number of assistant messages before which each came
// (the key len(assistant messages) holds those after the last one). The
// worker's accepted replies are the anchors, paired with the history's
// assistant messages from the end: a compression or a rewind removes the
// earliest messages, not the latest. Renderers of transcripts (dev
// sessions show, the session browser) share it.
func RejectedBefore(sess *Session) map[int][]Request {
	replies := 0
	for _, m := range sess.History {
		if m.Role == "assistant" {
			replies++
		}
	}
	var accepted []int // indexes in sess.Requests of the worker's accepted replies
	for i, r := range sess.Requests {
		if r.Purpose == PurposeWorker && r.Rejected == nil && !r.FormatError && !r.Interrupted {
			accepted = append(accepted, i)
		}
	}
	out := map[int][]Request{}
	skip := max(0, len(accepted)-replies)  // anchors whose messages left the history
	extra := max(0, replies-len(accepted)) // messages older than the records
	anchor := 0                            // the next anchor's place in accepted
	for i, r := range sess.Requests {
		for anchor < len(accepted) && accepted[anchor] < i {
			anchor++
		}
		if r.Rejected == nil {
			continue
		}
		before := min(max(0, anchor-skip)+extra, replies)
		out[before] = append(out[before], r)
	}
	return out
}
