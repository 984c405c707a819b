package llm

import (
	"context"
	"time"
)

// Client streams chat completions. It is safe for use by one run; it
// remembers per-run discoveries such as a server rejecting stream_options.
type Client struct{}

// New returns a client for cfg.
func New(cfg Config) *Client { panic("stub") }

// Stream sends req once (no retries; the caller owns the retry policy) and
// returns the whole reply, calling onDelta (may be nil) for each piece.
// Errors are *Error; context cancellation returns an error wrapping ctx.Err().
func (c *Client) Stream(ctx context.Context, req Request, onDelta func(Delta)) (Reply, error) {
	panic("stub")
}

// Models lists the model ids the server offers (GET {BaseURL}/models).
func (c *Client) Models(ctx context.Context) ([]string, error) { panic("stub") }

// Normalize returns msgs as strict chat templates accept them: the system
// message(s) first and merged into one, then strictly alternating user and
// assistant turns starting with user (consecutive same-role messages merged
// with a blank line), and no empty messages.
func Normalize(msgs []Message) []Message { panic("stub") }

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

// Error is a failed request.
type Error struct {
	Kind       Kind
	Status     int           // HTTP status, 0 when none
	Message    string        // the server's message, or what went wrong
	URL        string        // the endpoint that was called
	RetryAfter time.Duration // from Retry-After, 0 when absent
	Models     []string      // KindModelNotFound: the server's models, when it lists them
	// KindOverflow: the window and prompt size the server reported (0 when not given),
	// and whether max_tokens, not the prompt, made the request too large.
	ContextLimit   int
	PromptTokens   int
	MaxTokensCause bool
	Err            error // underlying error, if any
}

func (e *Error) Error() string { panic("stub") }
func (e *Error) Unwrap() error { return e.Err }

// Retryable reports whether the same request may succeed if sent again.
func (e *Error) Retryable() bool { panic("stub") }

// Backoff is the wait before retry number attempt (1-based): exponential
// from one second, capped, and never less than retryAfter.
func Backoff(attempt int, retryAfter time.Duration) time.Duration { panic("stub") }
