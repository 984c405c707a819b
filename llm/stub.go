package llm

import "context"

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
