package app

import (
	"time"

	"github.com/devagent/dev/config"
	"github.com/devagent/dev/event"
	"github.com/devagent/dev/loop"
	"github.com/devagent/dev/sessions"
	"github.com/devagent/dev/usage"
)

// usage is what the request that just ended used, for the status line:
// read from the session's records of the requests it made (the worker's,
// the audit's, compression's), which are the one account of usage.
func (a *App) usage(o loop.Outcome) event.Usage {
	u := event.Usage{
		Model:         a.cfg.Model,
		Steps:         o.Loops,
		ContextWindow: a.window.Size(),
		Elapsed:       a.opts.Now().Sub(a.runStarted),
		CostKnown:     true,
	}
	records := a.sess.Requests[min(a.runFrom, len(a.sess.Requests)):]
	for _, r := range records {
		u.TokensIn += r.PromptTokens
		u.TokensOut += r.CompletionTokens
		u.Estimated = u.Estimated || r.Estimated
		price, ok := a.cfg.Prices[r.Model]
		u.CostKnown = u.CostKnown && ok
		u.Cost += usage.Cost(r, usage.Price(price))
	}
	if len(records) == 0 {
		u.CostKnown = false
	}
	// The context holds the worker's last prompt; it carries over from one
	// request to the next, as the conversation does.
	for i := len(a.sess.Requests) - 1; i >= 0; i-- {
		if r := a.sess.Requests[i]; r.Purpose == sessions.PurposeWorker {
			u.ContextTokens = r.PromptTokens
			break
		}
	}
	return u
}

// runClock marks where a request's records start, and when.
type runClock struct {
	runFrom    int
	runStarted time.Time
}

// Prices are config.json's prices as package usage takes them.
func Prices(prices map[string]config.Price) map[string]usage.Price {
	out := make(map[string]usage.Price, len(prices))
	for model, p := range prices {
		out[model] = usage.Price(p)
	}
	return out
}
