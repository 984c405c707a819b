package llm

import (
	"context"
	"errors"
	"testing"
	"time"
)

// scripted replays replies (Reply) or errors and counts calls.
type scripted struct {
	script []any
	calls  int
}

func (s *scripted) Stream(ctx context.Context, _ Request, _ func(Delta)) (Reply, error) {
	s.calls++
	if ctx.Err() != nil {
		return Reply{}, ctx.Err()
	}
	next := s.script[0]
	s.script = s.script[1:]
	if err, ok := next.(error); ok {
		return Reply{}, err
	}
	return next.(Reply), nil
}

func newRetrier(max int, script ...any) (*Retrier, *scripted, *[]Retry) {
	s := &scripted{script: script}
	var retries []Retry
	r := &Retrier{Streamer: s, Max: max,
		Wait:    func(context.Context, time.Duration) error { return nil },
		OnRetry: func(x Retry) { retries = append(retries, x) }}
	return r, s, &retries
}

func TestRetrierRetriesTransientFailures(t *testing.T) {
	t.Parallel()
	ok := Reply{Content: "fine"}
	r, s, retries := newRetrier(2,
		&Error{Kind: KindServer, Status: 500}, &Error{Kind: KindRateLimit, Status: 429, RetryAfter: 7 * time.Second}, ok)
	reply, err := r.Stream(context.Background(), Request{}, nil)
	if err != nil || reply.Content != "fine" || s.calls != 3 {
		t.Fatalf("reply %+v err %v after %d calls", reply, err, s.calls)
	}
	if len(*retries) != 2 || (*retries)[0].Wait != time.Second || (*retries)[1].Wait != 7*time.Second || (*retries)[1].Attempt != 2 {
		t.Errorf("retries %+v: want backoff 1s, then the server's Retry-After", *retries)
	}
}

func TestRetrierGivesUpAfterMax(t *testing.T) {
	t.Parallel()
	boom := &Error{Kind: KindStalled}
	r, s, _ := newRetrier(2, boom, boom, boom, Reply{})
	_, err := r.Stream(context.Background(), Request{}, nil)
	if !errors.Is(err, ErrRetriesExhausted) || s.calls != 3 {
		t.Fatalf("err %v after %d calls", err, s.calls)
	}
	var last *Error
	if !errors.As(err, &last) || last.Kind != KindStalled {
		t.Errorf("the last error is not kept: %v", err)
	}
}

func TestRetrierSuccessResetsTheCount(t *testing.T) {
	t.Parallel()
	boom := &Error{Kind: KindNetwork}
	r, s, _ := newRetrier(1, boom, Reply{}, boom, Reply{})
	for i := range 2 {
		if _, err := r.Stream(context.Background(), Request{}, nil); err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
	}
	if s.calls != 4 {
		t.Errorf("%d calls", s.calls)
	}
}

func TestRetrierFailsAtOnce(t *testing.T) {
	t.Parallel()
	for _, kind := range []Kind{KindAuth, KindModelNotFound, KindBadRequest, KindOverflow, KindOther, KindUnreachable} {
		r, s, _ := newRetrier(5, &Error{Kind: kind}, Reply{})
		if _, err := r.Stream(context.Background(), Request{}, nil); err == nil || s.calls != 1 {
			t.Errorf("%v: err %v after %d calls, want failure after 1", kind, err, s.calls)
		}
	}
}

func TestRetrierUnreachableAfterAnAnswerIsRetried(t *testing.T) {
	t.Parallel()
	r, s, _ := newRetrier(3, Reply{}, &Error{Kind: KindUnreachable}, Reply{})
	for range 2 {
		if _, err := r.Stream(context.Background(), Request{}, nil); err != nil {
			t.Fatal(err)
		}
	}
	if s.calls != 3 {
		t.Errorf("%d calls", s.calls)
	}
}

func TestRetrierStopsWaitingWhenCancelled(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	s := &scripted{script: []any{&Error{Kind: KindServer}, Reply{}}}
	r := &Retrier{Streamer: s, Max: 3, OnRetry: func(Retry) { cancel() }}
	_, err := r.Stream(ctx, Request{}, nil)
	if !errors.Is(err, context.Canceled) || s.calls != 1 {
		t.Errorf("err %v after %d calls", err, s.calls)
	}
}
