package llm

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// ErrRetriesExhausted wraps the last error of a request that kept failing.
var ErrRetriesExhausted = errors.New("retries exhausted")

// Streamer sends one chat completion: a *Client, or a fake in tests.
type Streamer interface {
	Stream(ctx context.Context, req Request, onDelta func(Delta)) (Reply, error)
}

// Retry describes a failed attempt that will be made again.
type Retry struct {
	Err          *Error
	Attempt, Max int
	Wait         time.Duration
}

// Retrier streams through a Streamer with the retry policy of SPEC §3:
// transient failures (network, stalled stream, 5xx, 408, 429) are sent again
// after Backoff, up to Max consecutive failures; any success resets the
// count. Everything else fails at once. An unreachable server fails at once
// until it has answered at least once: before, it is a configuration
// problem; after, a server restarting mid-run.
//
// One Retrier serves the conversations of one process in turn (worker,
// auditor); it is not safe for concurrent use.
type Retrier struct {
	Streamer Streamer
	Max      int
	// Wait pauses before a retry; nil waits on a timer.
	Wait func(ctx context.Context, d time.Duration) error
	// OnRetry, when set, hears of each retry before the wait.
	OnRetry func(Retry)

	failures int  // consecutive
	answered bool // the server has answered once
}

// Stream sends req, retrying as the policy allows.
func (r *Retrier) Stream(ctx context.Context, req Request, onDelta func(Delta)) (Reply, error) {
	for {
		reply, err := r.Streamer.Stream(ctx, req, onDelta)
		if err == nil {
			r.answered = true
			r.failures = 0
			return reply, nil
		}
		var apiErr *Error
		if ctx.Err() != nil || !errors.As(err, &apiErr) || !r.retryable(apiErr) {
			return reply, err
		}
		r.failures++
		if r.failures > r.Max {
			return reply, fmt.Errorf("%w after %d attempts: %w", ErrRetriesExhausted, r.failures, err)
		}
		wait := Backoff(r.failures, apiErr.RetryAfter)
		if r.OnRetry != nil {
			r.OnRetry(Retry{Err: apiErr, Attempt: r.failures, Max: r.Max, Wait: wait})
		}
		if err := r.wait(ctx, wait); err != nil {
			return Reply{}, err
		}
	}
}

func (r *Retrier) retryable(err *Error) bool {
	if err.Kind == KindUnreachable {
		return r.answered
	}
	return err.Retryable()
}

func (r *Retrier) wait(ctx context.Context, d time.Duration) error {
	if r.Wait != nil {
		return r.Wait(ctx, d)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
