package sessions

import (
	"reflect"
	"testing"

	"github.com/devagent/dev/llm"
)

func TestRejectedBefore(t *testing.T) {
	t.Parallel()
	no := func(p string) Request { return Request{Purpose: p, FormatError: true, Rejected: &Rejected{Problem: p}} }
	yes := Request{Purpose: PurposeWorker}
	msgs := func(assistants int) []llm.Message {
		out := []llm.Message{{Role: "user", Content: "[CONTEXT SUMMARY]"}}
		for range assistants {
			out = append(out, llm.Message{Role: "assistant"}, llm.Message{Role: "user"})
		}
		return out
	}
	count := func(m map[int][]Request) map[int]int {
		out := map[int]int{}
		for k, v := range m {
			out[k] = len(v)
		}
		return out
	}
	// Three accepted replies, but a compression left the last two in the
	// history: what came before the first of those two is shown before it.
	s := &Session{History: msgs(2), Requests: []Request{no("worker"), yes, no("worker"), yes, no("audit"), no("worker"), yes, no("worker")}}
	if got, want := count(RejectedBefore(s)), map[int]int{0: 2, 1: 2, 2: 1}; !reflect.DeepEqual(got, want) {
		t.Errorf("placed %v, want %v", got, want)
	}
	// A run that never got a usable reply: all at the end.
	s = &Session{History: msgs(0), Requests: []Request{no("worker"), no("worker")}}
	if got, want := count(RejectedBefore(s)), map[int]int{0: 2}; !reflect.DeepEqual(got, want) {
		t.Errorf("placed %v, want %v", got, want)
	}
}
