package llm

import (
	"fmt"
	"strings"
	"time"
)

// Kind classifies an API failure by what the caller should do about it.
type Kind int

// Kinds of failure.
const (
	KindOther         Kind = iota // anything else; not retried
	KindUnreachable               // connection refused / DNS: nothing answered
	KindNetwork                   // connection reset, EOF mid-stream, ...: retried
	KindStalled                   // no byte for IdleTimeout: retried
	KindServer                    // 5xx that is not an overflow: retried
	KindRateLimit                 // 429 or 408: retried, honouring RetryAfter
	KindAuth                      // 401 / 403: fail at once
	KindModelNotFound             // unknown model: fail at once, Models lists the offer
	KindOverflow                  // the prompt exceeds the context window
	KindBadRequest                // 4xx the server will reject again (malformed, template error)
)

var kindNames = [...]string{
	KindOther:         "request failed",
	KindUnreachable:   "server unreachable",
	KindNetwork:       "network error",
	KindStalled:       "stream stalled",
	KindServer:        "server error",
	KindRateLimit:     "rate limited",
	KindAuth:          "authentication failed",
	KindModelNotFound: "model not found",
	KindOverflow:      "context overflow",
	KindBadRequest:    "request rejected",
}

// String names the kind the way error messages do.
func (k Kind) String() string {
	if k < 0 || int(k) >= len(kindNames) {
		return fmt.Sprintf("kind %d", int(k))
	}
	return kindNames[k]
}

// Error is a failed request.
type Error struct {
	Kind Kind
	// Status is the HTTP status, 0 when none. For an error event inside a 200
	// stream it is the HTTP error code the event carries, if any (else 200).
	Status  int
	Message string // the server's message, or what went wrong
	// URL is the endpoint that was called. For KindUnreachable it is the
	// configured base URL: that is what the user can change.
	URL        string
	RetryAfter time.Duration // from Retry-After, 0 when absent
	Models     []string      // KindModelNotFound: the server's models, when it lists them
	// KindOverflow: the window and prompt size the server reported (0 when not given),
	// and whether max_tokens, not the prompt, made the request too large.
	ContextLimit   int
	PromptTokens   int
	MaxTokensCause bool
	Err            error // underlying error, if any
}

func (e *Error) Error() string {
	var b strings.Builder
	switch e.Kind {
	case KindUnreachable:
		fmt.Fprintf(&b, "cannot connect to %s: %s", e.URL, e.Message)
		return b.String()
	case KindStalled:
		fmt.Fprintf(&b, "stream from %s stalled: %s", e.URL, e.Message)
		return b.String()
	}
	b.WriteString(e.Kind.String())
	if e.Status != 0 {
		fmt.Fprintf(&b, " (HTTP %d)", e.Status)
	}
	if e.URL != "" {
		fmt.Fprintf(&b, " from %s", e.URL)
	}
	if e.Message != "" {
		b.WriteString(": ")
		b.WriteString(e.Message)
	}
	switch e.Kind {
	case KindOverflow:
		var facts []string
		if e.PromptTokens > 0 {
			facts = append(facts, fmt.Sprintf("prompt %d tokens", e.PromptTokens))
		}
		if e.ContextLimit > 0 {
			facts = append(facts, fmt.Sprintf("context limit %d tokens", e.ContextLimit))
		}
		if e.MaxTokensCause {
			facts = append(facts, "max_tokens, not the prompt, is too large")
		}
		if len(facts) > 0 {
			fmt.Fprintf(&b, " [%s]", strings.Join(facts, ", "))
		}
	case KindModelNotFound:
		if len(e.Models) > 0 {
			fmt.Fprintf(&b, "; the server offers: %s", strings.Join(e.Models, ", "))
		}
	}
	if e.RetryAfter > 0 {
		fmt.Fprintf(&b, " (retry after %s)", e.RetryAfter)
	}
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// Retryable reports whether the same request may succeed if sent again.
func (e *Error) Retryable() bool {
	switch e.Kind {
	case KindNetwork, KindStalled, KindServer, KindRateLimit:
		return true
	}
	return false
}

const (
	backoffBase     = time.Second
	backoffMax      = 30 * time.Second
	retryAfterLimit = 5 * time.Minute
)

// Backoff is the wait before retry number attempt (1-based): exponential
// from one second (1s, 2s, 4s, ...) capped at 30s. A server's retryAfter,
// when given, is used instead (capped at five minutes, so a hostile or
// confused header cannot park the run for hours).
func Backoff(attempt int, retryAfter time.Duration) time.Duration {
	if retryAfter > 0 {
		return min(retryAfter, retryAfterLimit)
	}
	if attempt < 1 {
		attempt = 1
	}
	// Past 2^5 s the cap applies; stop shifting before it could overflow.
	if attempt > 6 {
		return backoffMax
	}
	return min(backoffBase<<(attempt-1), backoffMax)
}
