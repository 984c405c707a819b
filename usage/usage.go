// Package usage reads the sessions' request records (SPEC §16) for what
// people ask of them: what a request or a session cost at the configured
// prices, and, per model, how well the model works with dev (dev stats).
package usage

import (
	"maps"
	"slices"
	"time"

	"github.com/devagent/dev/sessions"
)

// Price is what a model's tokens cost, in USD per million (config.json's
// prices, converted by the caller: usage reads no configuration).
type Price struct {
	Input, Output float64
	// CachedInput prices prompt tokens the server's cache served; 0 uses
	// Input.
	CachedInput float64
}

// Cost is what r cost at price p, in USD.
func Cost(r sessions.Request, p Price) float64 {
	cached := 0
	if r.CachedTokens != nil {
		cached = min(*r.CachedTokens, r.PromptTokens)
	}
	cachedPrice := p.CachedInput
	if cachedPrice == 0 {
		cachedPrice = p.Input
	}
	return (float64(r.PromptTokens-cached)*p.Input + float64(cached)*cachedPrice + float64(r.CompletionTokens)*p.Output) / 1e6
}

// SessionCost is what every request of sess cost, nil when a model it used
// has no price (a partial figure would pass for the whole).
func SessionCost(sess *sessions.Session, prices map[string]Price) *float64 {
	if len(sess.Requests) == 0 {
		return nil
	}
	total := 0.0
	for _, r := range sess.Requests {
		p, ok := prices[r.Model]
		if !ok {
			return nil
		}
		total += Cost(r, p)
	}
	return &total
}

// Tokens counts a session's recorded tokens, prompt and completion.
func Tokens(sess *sessions.Session) (prompt, completion int) {
	for _, r := range sess.Requests {
		prompt += r.PromptTokens
		completion += r.CompletionTokens
	}
	return prompt, completion
}

// Model is how one model did over a set of sessions.
type Model struct {
	Model    string
	Sessions int // sessions whose work (worker requests) it did
	Requests int
	// PromptTokens and CompletionTokens are the recorded counts; Estimated
	// counts the requests whose counts are estimates.
	PromptTokens, CompletionTokens, Estimated int
	Cost                                      *float64 // nil without a price
	// Replies are its worker and audit replies; FormatErrors those that
	// could not be parsed and were sent back.
	Replies, FormatErrors int
	// Constrained counts the replies to requests the server shaped (SPEC
	// §18), and ConstrainedErrors their format errors; the other replies
	// are unconstrained. Grammar and JSON split them by the shape's form.
	Constrained, ConstrainedErrors int
	Grammar, GrammarErrors         int
	JSON, JSONErrors               int
	// AuditsPassed and AuditsFailed are the verdicts on the work of the
	// sessions it worked in.
	AuditsPassed, AuditsFailed int
	EarlyStops                 int
	// MedianFirstByte is the median time to the first piece of a reply.
	MedianFirstByte time.Duration
}

// WellFormed is the share of replies parsed on the first try, 0 to 1.
func (m Model) WellFormed() float64 {
	return share(m.Replies-m.FormatErrors, m.Replies)
}

// WellFormedConstrained is WellFormed of the constrained replies.
func (m Model) WellFormedConstrained() float64 {
	return share(m.Constrained-m.ConstrainedErrors, m.Constrained)
}

// WellFormedGrammar is WellFormed of the replies shaped by the grammar.
func (m Model) WellFormedGrammar() float64 { return share(m.Grammar-m.GrammarErrors, m.Grammar) }

// WellFormedJSON is WellFormed of the replies shaped by the JSON form.
func (m Model) WellFormedJSON() float64 { return share(m.JSON-m.JSONErrors, m.JSON) }

// Unconstrained counts the replies to requests without a shape.
func (m Model) Unconstrained() int { return m.Replies - m.Constrained }

// WellFormedUnconstrained is WellFormed of the unconstrained replies.
func (m Model) WellFormedUnconstrained() float64 {
	return share(m.Unconstrained()-(m.FormatErrors-m.ConstrainedErrors), m.Unconstrained())
}

func share(n, of int) float64 {
	if of == 0 {
		return 0
	}
	return float64(n) / float64(of)
}

// Stats is per model, over the sessions updated since since, most used
// first.
func Stats(list []*sessions.Session, since time.Time, prices map[string]Price) []Model {
	byModel := map[string]*Model{}
	firstBytes := map[string][]int64{}
	at := func(name string) *Model {
		m, ok := byModel[name]
		if !ok {
			m = &Model{Model: name}
			if _, priced := prices[name]; priced {
				m.Cost = new(float64)
			}
			byModel[name] = m
		}
		return m
	}
	for _, sess := range list {
		if sess.UpdatedAt.Before(since) {
			continue
		}
		workers := map[string]bool{}
		for _, r := range sess.Requests {
			m := at(r.Model)
			m.Requests++
			m.PromptTokens += r.PromptTokens
			m.CompletionTokens += r.CompletionTokens
			if r.Estimated {
				m.Estimated++
			}
			if m.Cost != nil {
				*m.Cost += Cost(r, prices[r.Model])
			}
			if r.Purpose == sessions.PurposeCompress || r.Interrupted {
				continue // a summary, or a reply the user cut short: not a reply to judge the format of
			}
			m.Replies++
			if r.FormatError {
				m.FormatErrors++
			}
			errors := 0
			if r.FormatError {
				errors = 1
			}
			switch r.Constrained {
			case sessions.ConstrainedGrammar:
				m.Grammar++
				m.GrammarErrors += errors
			case sessions.ConstrainedJSON:
				m.JSON++
				m.JSONErrors += errors
			}
			if r.Constrained != sessions.NotConstrained {
				m.Constrained++
				m.ConstrainedErrors += errors
			}
			if r.EarlyStop {
				m.EarlyStops++
			}
			firstBytes[r.Model] = append(firstBytes[r.Model], r.FirstByteMs)
			if r.Purpose == sessions.PurposeWorker && !workers[r.Model] {
				workers[r.Model] = true
				m.Sessions++
			}
		}
		for name := range workers {
			for _, a := range sess.Audits {
				if a.Verdict == "PASS" {
					byModel[name].AuditsPassed++
				} else {
					byModel[name].AuditsFailed++
				}
			}
		}
	}
	out := make([]Model, 0, len(byModel))
	for _, name := range slices.Sorted(maps.Keys(byModel)) {
		m := byModel[name]
		m.MedianFirstByte = median(firstBytes[name])
		out = append(out, *m)
	}
	slices.SortStableFunc(out, func(a, b Model) int { return b.Requests - a.Requests })
	return out
}

func median(ms []int64) time.Duration {
	if len(ms) == 0 {
		return 0
	}
	s := slices.Clone(ms)
	slices.Sort(s)
	mid := s[len(s)/2]
	if len(s)%2 == 0 {
		mid = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return time.Duration(mid) * time.Millisecond
}
