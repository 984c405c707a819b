package transcript

import (
	"reflect"
	"strconv"
	"testing"
	"time"

	"github.com/devagent/dev/checkpoints"
	"github.com/devagent/dev/llm"
	"github.com/devagent/dev/sessions"
)

func TestRejectedPlaces(t *testing.T) {
	t.Parallel()
	no := func(p string) sessions.Request {
		return sessions.Request{Purpose: p, FormatError: true, Rejected: &sessions.Rejected{Problem: p}}
	}
	yes := sessions.Request{Purpose: sessions.PurposeWorker}
	msgs := func(assistants int) []llm.Message {
		out := []llm.Message{{Role: "user", Content: "[CONTEXT SUMMARY]"}}
		for range assistants {
			out = append(out, llm.Message{Role: "assistant"}, llm.Message{Role: "user"})
		}
		return out
	}
	count := func(m map[int][]sessions.Request) map[int]int {
		out := map[int]int{}
		for k, v := range m {
			out[k] = len(v)
		}
		return out
	}
	// Three accepted replies, but a compression left the last two in the
	// history: what came before the first of them went with it.
	s := &sessions.Session{History: msgs(2), Requests: []sessions.Request{no("worker"), yes, no("worker"), yes, no("audit"), no("worker"), yes, no("worker")}}
	if got, want := count(rejectedBefore(s)), map[int]int{compressedAway: 1, 0: 1, 1: 2, 2: 1}; !reflect.DeepEqual(got, want) {
		t.Errorf("placed %v, want %v", got, want)
	}
	// A run that never got a usable reply: all at the end.
	s = &sessions.Session{History: msgs(0), Requests: []sessions.Request{no("worker"), no("worker")}}
	if got, want := count(rejectedBefore(s)), map[int]int{0: 2}; !reflect.DeepEqual(got, want) {
		t.Errorf("placed %v, want %v", got, want)
	}
}

// The records of what a rewind undid are left out, and an undo of an
// undo brings them back: the history is as it was when the rewind's
// target checkpoint was taken.
func TestRejectedAfterRewinds(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	at := func(minutes int) time.Time { return t0.Add(time.Duration(minutes) * time.Minute) }
	rejected := func(minute int) sessions.Request {
		return sessions.Request{Timestamp: at(minute), Purpose: sessions.PurposeWorker, FormatError: true, Rejected: &sessions.Rejected{Problem: strconv.Itoa(minute)}}
	}
	accepted := func(minute int) sessions.Request {
		return sessions.Request{Timestamp: at(minute), Purpose: sessions.PurposeWorker}
	}
	reply := llm.Message{Role: llm.RoleAssistant}
	sess := &sessions.Session{
		// Request 1 at minute 0 (a reply rejected, one accepted), request
		// 2 at minute 10 (the same), undone at minute 20 (the present
		// checkpointed first).
		Checkpoints: []checkpoints.Checkpoint{{Number: 0, Time: at(0), Reason: checkpoints.BeforeRequest},
			{Number: 1, Time: at(10), Reason: checkpoints.BeforeRequest}, {Number: 2, Time: at(19), Reason: checkpoints.BeforeRewind}},
		Rewinds:  []sessions.Rewind{{Time: at(20), To: 1, From: 2}},
		Requests: []sessions.Request{rejected(1), accepted(2), rejected(11), accepted(12)},
		History:  []llm.Message{{Role: llm.RoleUser}, reply},
	}
	problems := func() map[int][]string {
		out := map[int][]string{}
		for k, rs := range rejectedBefore(sess) {
			for _, r := range rs {
				out[k] = append(out[k], r.Rejected.Problem)
			}
		}
		return out
	}
	if got, want := problems(), map[int][]string{0: {"1"}}; !reflect.DeepEqual(got, want) {
		t.Errorf("after /undo: placed %v, want %v (request 2's reply is undone)", got, want)
	}
	// dev rewind 2 at minute 30: back to before the undo.
	sess.Rewinds = append(sess.Rewinds, sessions.Rewind{Time: at(30), To: 2, From: 3})
	sess.Checkpoints = append(sess.Checkpoints, checkpoints.Checkpoint{Number: 3, Time: at(29), Reason: checkpoints.BeforeRewind})
	sess.History = append(sess.History, llm.Message{Role: llm.RoleUser}, reply)
	if got, want := problems(), map[int][]string{0: {"1"}, 1: {"11"}}; !reflect.DeepEqual(got, want) {
		t.Errorf("after undoing the undo: placed %v, want %v", got, want)
	}
}
