package ui

import (
	"strings"
	"testing"
	"time"

	"github.com/rivo/uniseg"

	"github.com/devagent/dev/sessions"
)

// At 60 columns, dev sessions list and interactive mode's /sessions stay
// tables, not records: the id keeps its prefix, and /sessions, which lists
// one directory, has no directory column.
func TestSessionTableAt60(t *testing.T) {
	at := time.Date(2026, 11, 26, 16, 52, 0, 0, time.UTC)
	list := []sessions.Summary{
		{ID: "22f295bb-a4ac-4f01-b57b-e1e62eb12c6c", UpdatedAt: at, Status: sessions.Interrupted, TotalTokens: 1229,
			WorkingDirectory: "/home/ann/src/github.com/example/service", OriginalPrompt: "Answer with the tool DONE and the input: hello",
			Prompts: 4, LastPrompt: "and now the tests"},
		{ID: "dabcafff-a524-45e7-b13a-45299401c76f", UpdatedAt: at, Status: sessions.Complete,
			WorkingDirectory: "/home/ann/src/github.com/example/service", OriginalPrompt: "リファクタリングしてください", Prompts: 1},
	}
	for _, how := range []SessionList{{Now: at}, {OneDir: true, Current: list[1].ID, Now: at}, {OneDir: true, Numbered: true, Now: at}} {
		var b strings.Builder
		if err := SessionTable(&b, list, how, Fit{Width: 60}); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		if len(lines) != 3 || !strings.Contains(lines[0], "ID") || !strings.Contains(lines[0], "FIRST") || !strings.Contains(lines[0], "LAST R") {
			t.Errorf("%+v: not a table of 2 rows:\n%s", how, out)
			continue
		}
		for _, l := range lines {
			if w := uniseg.StringWidth(l); w > 60 {
				t.Errorf("%+v: a line of %d columns: %q", how, w, l)
			}
		}
		if strings.Contains(lines[0], "DIRECTORY") == how.OneDir {
			t.Errorf("%+v: the directory column:\n%s", how, out)
		}
		switch {
		case how.Current != "" && !strings.HasPrefix(lines[2], "*  dabcaff"):
			t.Errorf("the current session is not marked:\n%s", out)
		case how.Numbered && (!strings.HasPrefix(lines[1], "1  22f295b") || !strings.HasPrefix(lines[2], "2  dabcaff")):
			t.Errorf("the sessions are not numbered:\n%s", out)
		case !how.OneDir && !strings.HasPrefix(lines[1], "22f295b…"):
			t.Errorf("the id is not cut to its prefix:\n%s", out)
		}
	}
}

// Sessions are told apart (SPEC §17): beside the first request, the last
// (as typed, without the files it attached), the number of requests, and
// when each was last used.
func TestSessionTableTellsSessionsApart(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 26, 16, 52, 0, 0, time.UTC)
	cost := 0.5
	list := []sessions.Summary{
		{ID: "11111111-1111-4111-8111-111111111111", UpdatedAt: now.Add(-5 * time.Minute), Status: sessions.Complete, TotalTokens: 52000,
			WorkingDirectory: "/home/ann/calc", OriginalPrompt: "Fix the parser", Prompts: 3,
			LastPrompt: "and look at @src/calc.py\n\n<file path=\"src/calc.py\">\nx = 1\n</file>", Cost: &cost},
		{ID: "22222222-2222-4222-8222-222222222222", UpdatedAt: now.Add(-26 * time.Hour), Status: sessions.Failed, TotalTokens: 900,
			WorkingDirectory: "/home/ann/calc", OriginalPrompt: "Write the docs", Prompts: 1, LastPrompt: "Write the docs"},
	}
	var b strings.Builder
	if err := SessionTable(&b, list, SessionList{Now: now}, Fit{}); err != nil {
		t.Fatal(err)
	}
	want := `ID                                    LAST USED  STATUS    REQS  TOKENS   COST  DIRECTORY       FIRST REQUEST   LAST REQUEST
11111111-1111-4111-8111-111111111111  5m ago     complete     3  52,000  $0.50  /home/ann/calc  Fix the parser  and look at @src/calc.py
22222222-2222-4222-8222-222222222222  26h ago    failed       1     900      -  /home/ann/calc  Write the docs
`
	if b.String() != want {
		t.Errorf("dev sessions list:\n%s\nwant:\n%s", b.String(), want)
	}
	b.Reset()
	if err := SessionTable(&b, list, SessionList{Now: now}, Fit{Width: 80}); err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n") {
		if w := uniseg.StringWidth(l); w > 80 {
			t.Errorf("a line of %d columns at 80: %q", w, l)
		}
		if !strings.Contains(l, "…") && !strings.HasPrefix(l, "ID") {
			t.Errorf("at 80 columns the long cells are not cut with …: %q", l)
		}
	}
}

// dev sessions show's usage is a table of the table writer: numbers
// aligned right, whole without a width; in 80 columns the notes give way
// and no line is wider.
func TestUsageSummary(t *testing.T) {
	t.Parallel()
	cached, cost := 800, 0.0312
	sess := &sessions.Session{Cost: &cost, Requests: []sessions.Request{
		{Purpose: "worker", PromptTokens: 1000, CompletionTokens: 50, CachedTokens: &cached, FirstByteMs: 300, DurationMs: 1200},
		{Purpose: "worker", PromptTokens: 1200, CompletionTokens: 20, FirstByteMs: 500, DurationMs: 800, FormatError: true, EarlyStop: true},
		{Purpose: "audit", PromptTokens: 3000, CompletionTokens: 10, FirstByteMs: 1500, DurationMs: 2500, Estimated: true},
	}}
	var b strings.Builder
	if err := UsageSummary(&b, sess, Fit{}); err != nil {
		t.Fatal(err)
	}
	want := `## Usage

PURPOSE  REQUESTS  TOKENS IN  CACHED  TOKENS OUT  FIRST BYTE (AVG)   TIME  NOTES
worker          2      2,200     800          70             0.4 s  2.0 s  1 format error, 1 early stop
audit           1      3,000       0          10             1.5 s  2.5 s  1 estimated

Cost: $0.03
`
	if b.String() != want {
		t.Errorf("usage:\n%s\nwant:\n%s", b.String(), want)
	}

	b.Reset()
	if err := UsageSummary(&b, sess, Fit{Width: 80}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(b.String(), "\n")
	if !strings.HasSuffix(lines[3], "2.0 s  1 fo…") {
		t.Errorf("the notes are not cut at 80 columns:\n%s", b.String())
	}
	for _, l := range lines {
		if w := uniseg.StringWidth(l); w > 80 {
			t.Errorf("a line of %d columns: %q", w, l)
		}
	}
}

// dev profiles: the active profile starred; in a narrow terminal what a
// profile sets is cut, its name never.
func TestProfiles(t *testing.T) {
	t.Parallel()
	profiles := map[string][]string{"local-qwen3": {"model qwen3", "at http://127.0.0.1:8080/v1"}, "cloud": {"model big", "with an API key"}, "bare": nil}
	var b strings.Builder
	if err := Profiles(&b, profiles, "local-qwen3", Fit{}); err != nil {
		t.Fatal(err)
	}
	want := "  bare         (sets nothing)\n  cloud        model big, with an API key\n* local-qwen3  model qwen3, at http://127.0.0.1:8080/v1\n"
	if b.String() != want {
		t.Errorf("profiles:\n%s\nwant:\n%s", b.String(), want)
	}
	b.Reset()
	if err := Profiles(&b, profiles, "local-qwen3", Fit{Width: 40}); err != nil {
		t.Fatal(err)
	}
	want = "  bare         (sets nothing)\n  cloud        model big, with an API k…\n* local-qwen3  model qwen3, at http://1…\n"
	if b.String() != want {
		t.Errorf("profiles in 40 columns:\n%s\nwant:\n%s", b.String(), want)
	}
}
