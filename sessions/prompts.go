package sessions

import (
	"github.com/devagent/dev/history"
	"github.com/devagent/dev/llm"
)

// promptsOf counts the requests a history holds and gives the last one:
// Prompts and LastPrompt for a session file written before they were
// kept. A compression's summary counts for the requests it names (the
// original, and the one worked on when it was another), so a compressed
// history gives at least as many as it replaced, not more. The last
// request is as the history holds it, the files its @ mentions attached
// included: whoever shows it cuts them off (mention.Split).
//
// A session whose count is 0 has made no request, so its history holds
// none either: reading it again gives 0. Load and the lists call this for
// such sessions only, which is how files of earlier versions are told
// apart without a marker.
func promptsOf(msgs []llm.Message) (n int, last string) {
	for _, m := range msgs {
		e, ok := history.ReadTurnStart(m)
		if !ok {
			continue
		}
		switch e.Kind {
		case history.KindRequest:
			n++
			last = e.Text
		case history.KindSummary:
			n, last = 1, e.Compressed.Original
			if cur := e.Compressed.Current; cur != "" && cur != last {
				n, last = 2, cur
			}
		}
	}
	return n, last
}

// fillPrompts gives a session read from a file written before Prompts
// and LastPrompt were kept its counts from its history.
func fillPrompts(sess *Session) {
	if sess.Prompts == 0 && len(sess.History) > 0 {
		sess.Prompts, sess.LastPrompt = promptsOf(sess.History)
	}
}
