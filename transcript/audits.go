package transcript

import (
	"strings"

	"github.com/devagent/dev/sessions"
)

// The audit policy accepts some DONEs without an audit, so the audits, in
// order, cannot be dealt to the DONEs in order: each audit records the
// reply whose DONE it checked (sessions.Audit.Reply) and goes there. A
// rewind cuts the audits with the history, so an undone request's audit
// is gone with it; one whose reply the history no longer holds shows under
// nothing.

// placeAudits gives each DONE the audit that checked it, and the summary
// the audits of the DONEs it replaced. compressions is the session's
// compression count: an audit made before the last compression names a
// reply of a history that is gone.
func (r *reader) placeAudits(audits []sessions.Audit, compressions int) {
	dones := map[int]*Step{} // by the index of their reply in the history
	var order []*Step        // the same, in order
	for ti := range r.out.Turns {
		for si := range r.out.Turns[ti].Steps {
			s := &r.out.Turns[ti].Steps[si]
			if _, ok := s.Done(); ok {
				dones[s.At] = s
				order = append(order, s)
			}
		}
	}
	var compressed, unlinked []int // indexes in audits
	for i := range audits {
		a := &audits[i]
		switch {
		case a.Reply == 0:
			unlinked = append(unlinked, i)
		case a.CompressionCount < compressions:
			compressed = append(compressed, i)
		case a.CompressionCount == compressions && dones[a.Reply] != nil && dones[a.Reply].Audit == nil:
			dones[a.Reply].Audit = a
		}
	}
	compressed = append(r.guess(audits, unlinked, order), compressed...)
	if t := r.summary(); t != nil {
		for _, i := range compressed {
			t.Audits = append(t.Audits, audits[i])
		}
	}
}

// guess places the audits of sessions written before audits named their
// reply, and returns those it could not place. A failed audit goes with
// the DONE whose result holds its report; a passed one with an accepted
// DONE. They are dealt from the end: a compression takes the earliest
// DONEs out of the history, never the latest. Only DONEs before the first
// audit that names its reply are candidates (that audit came later).
func (r *reader) guess(audits []sessions.Audit, unlinked []int, dones []*Step) (left []int) {
	cut := len(dones)
	for i, s := range dones {
		if s.Audit != nil {
			cut = i
			break
		}
	}
	dones = dones[:cut]
	for k := len(unlinked) - 1; k >= 0; k-- {
		a := &audits[unlinked[k]]
		found := -1
		for j := len(dones) - 1; j >= 0 && found < 0; j-- {
			done, _ := dones[j].Done()
			feedback, rejected := feedbackOf(done)
			switch {
			case a.Passed() && dones[j].Accepted,
				!a.Passed() && rejected && feedback == strings.TrimSpace(a.Feedback):
				found = j
			}
		}
		if found < 0 {
			left = append([]int{unlinked[k]}, left...)
			continue
		}
		dones[found].Audit = a
		dones = dones[:found]
	}
	return left
}
