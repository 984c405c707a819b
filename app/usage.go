package app

import (
	"sync"
	"time"

	"github.com/devagent/dev/event"
	"github.com/devagent/dev/loop"
)

// meter passes events on to the renderers and counts what the request
// running uses: the tokens of every model request, and the worker's last
// prompt (how full the context is).
type meter struct {
	next event.Sink

	mu        sync.Mutex
	started   time.Time
	in, out   int
	estimated bool
	context   int // the worker's last prompt
}

// Emit implements event.Sink.
func (m *meter) Emit(e event.Event) {
	if r, ok := e.(event.ReplyReceived); ok {
		m.mu.Lock()
		m.in += r.PromptTokens
		m.out += r.CompletionTokens
		m.estimated = m.estimated || r.Estimated
		if r.Agent == event.Worker && !r.Compression {
			m.context = r.PromptTokens
		}
		m.mu.Unlock()
	}
	if m.next != nil {
		m.next.Emit(e)
	}
}

// start begins counting a request's use.
func (m *meter) start(now time.Time) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.started, m.in, m.out, m.estimated = now, 0, 0, false
}

// usage is what the request that just ended used.
func (a *App) usage(o loop.Outcome) event.Usage {
	m := a.sink
	m.mu.Lock()
	defer m.mu.Unlock()
	u := event.Usage{
		Model:     a.cfg.Model,
		Steps:     o.Loops,
		TokensIn:  m.in,
		TokensOut: m.out,
		Estimated: m.estimated,
		// The context holds the worker's last prompt; it carries over from
		// one request to the next, as the conversation does.
		ContextTokens: m.context,
		ContextWindow: a.window.Size(),
		Elapsed:       a.opts.Now().Sub(m.started),
	}
	u.Cost, u.CostKnown = cost(a.cfg.Model, u.TokensIn, u.TokensOut)
	return u
}

// cost is what tokens of model cost in USD, when its prices are known. The
// prices key of the configuration (SPEC §16) does not exist yet: nothing is
// known, and the status line leaves the cost out.
func cost(model string, in, out int) (usd float64, known bool) {
	return 0, false
}
