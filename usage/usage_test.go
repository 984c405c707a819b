package usage

import (
	"math"
	"testing"
	"time"

	"github.com/devagent/dev/sessions"
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-12 }

func TestCost(t *testing.T) {
	t.Parallel()
	cached := 600
	r := sessions.Request{PromptTokens: 1000, CompletionTokens: 200, CachedTokens: &cached}
	p := Price{Input: 3, Output: 15, CachedInput: 0.3}
	// 400 uncached at 3, 600 cached at 0.3, 200 out at 15, per million.
	if got, want := Cost(r, p), (400*3+600*0.3+200*15)/1e6; !near(got, want) {
		t.Errorf("cost %v, want %v", got, want)
	}
	p.CachedInput = 0 // cached tokens at the input price
	if got, want := Cost(r, p), (1000*3+200*15)/1e6; !near(got, want) {
		t.Errorf("cost without a cached price %v, want %v", got, want)
	}
}

func TestSessionCost(t *testing.T) {
	t.Parallel()
	prices := map[string]Price{"a": {Input: 1, Output: 2}}
	sess := &sessions.Session{Requests: []sessions.Request{{Model: "a", PromptTokens: 1e6}, {Model: "a", CompletionTokens: 1e6}}}
	if c := SessionCost(sess, prices); c == nil || !near(*c, 3) {
		t.Errorf("cost %v, want 3", c)
	}
	sess.Requests = append(sess.Requests, sessions.Request{Model: "b", PromptTokens: 5})
	if c := SessionCost(sess, prices); c != nil {
		t.Errorf("cost %v with an unpriced model, want none", *c)
	}
	if c := SessionCost(&sessions.Session{}, prices); c != nil {
		t.Errorf("cost %v without requests", *c)
	}
}

func TestStats(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	old := &sessions.Session{UpdatedAt: now.AddDate(0, 0, -40), Requests: []sessions.Request{{Model: "small", Purpose: "worker"}}}
	s1 := &sessions.Session{UpdatedAt: now, Requests: []sessions.Request{
		{Model: "small", Purpose: "worker", PromptTokens: 100, CompletionTokens: 10, FirstByteMs: 100, FormatError: true},
		{Model: "small", Purpose: "worker", PromptTokens: 120, CompletionTokens: 10, FirstByteMs: 300, EarlyStop: true},
		{Model: "small", Purpose: "worker", PromptTokens: 150, CompletionTokens: 10, FirstByteMs: 200, Estimated: true},
		{Model: "judge", Purpose: "audit", PromptTokens: 500, CompletionTokens: 50, FirstByteMs: 900},
		{Model: "small", Purpose: "compress", PromptTokens: 1000, CompletionTokens: 100, FirstByteMs: 5000},
	}, Audits: []sessions.Audit{{Verdict: "FAIL"}, {Verdict: "PASS"}}}
	s2 := &sessions.Session{UpdatedAt: now, Requests: []sessions.Request{{Model: "small", Purpose: "worker", FirstByteMs: 400}}}
	got := Stats([]*sessions.Session{old, s1, s2}, now.AddDate(0, 0, -30), map[string]Price{"small": {Input: 1, Output: 1}})
	if len(got) != 2 || got[0].Model != "small" || got[1].Model != "judge" {
		t.Fatalf("models %+v", got)
	}
	small := got[0]
	if small.Sessions != 2 || small.Requests != 5 || small.Replies != 4 || small.FormatErrors != 1 || small.EarlyStops != 1 ||
		small.Estimated != 1 || small.AuditsPassed != 1 || small.AuditsFailed != 1 || small.PromptTokens != 1370 || small.CompletionTokens != 130 {
		t.Errorf("small %+v", small)
	}
	if small.WellFormed() != 0.75 {
		t.Errorf("well-formed %v, want 0.75", small.WellFormed())
	}
	// Replies' first bytes 100, 300, 200, 400: the compression's is not a reply.
	if small.MedianFirstByte != 250*time.Millisecond {
		t.Errorf("median first byte %v", small.MedianFirstByte)
	}
	if small.Cost == nil || !near(*small.Cost, 1500/1e6) {
		t.Errorf("cost %v", small.Cost)
	}
	judge := got[1]
	if judge.Sessions != 0 || judge.Replies != 1 || judge.Cost != nil || judge.AuditsPassed != 0 {
		t.Errorf("judge %+v", judge)
	}
}

// dev stats splits %well-formed by the form of the shape the request
// carried: the grammar, the JSON form, none (SPEC §18).
func TestStatsConstrainedSplit(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	s := &sessions.Session{UpdatedAt: now, Requests: []sessions.Request{
		{Model: "m", Purpose: "worker", Constrained: sessions.ConstrainedGrammar},
		{Model: "m", Purpose: "worker", Constrained: sessions.ConstrainedGrammar},
		{Model: "m", Purpose: "worker", Constrained: sessions.ConstrainedJSON, FormatError: true},
		{Model: "m", Purpose: "audit", Constrained: sessions.ConstrainedJSON},
		{Model: "m", Purpose: "worker", FormatError: true},
		{Model: "m", Purpose: "worker", FormatError: true},
		{Model: "m", Purpose: "worker"},
		{Model: "m", Purpose: "compress"}, // never constrained, not a reply
	}}
	m := Stats([]*sessions.Session{s}, now.AddDate(0, 0, -1), nil)[0]
	if m.Replies != 7 || m.Constrained != 4 || m.ConstrainedErrors != 1 || m.Unconstrained() != 3 || m.Grammar != 2 || m.JSON != 2 || m.JSONErrors != 1 {
		t.Fatalf("%+v", m)
	}
	if m.WellFormedConstrained() != 0.75 || !near(m.WellFormedUnconstrained(), 1.0/3) || !near(m.WellFormed(), 4.0/7) ||
		m.WellFormedGrammar() != 1 || m.WellFormedJSON() != 0.5 {
		t.Errorf("well-formed %v, constrained %v (grammar %v, json %v), unconstrained %v", m.WellFormed(), m.WellFormedConstrained(),
			m.WellFormedGrammar(), m.WellFormedJSON(), m.WellFormedUnconstrained())
	}
}
