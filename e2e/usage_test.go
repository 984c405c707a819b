package e2e

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/devagent/dev/llm"
	"github.com/devagent/dev/llm/llmtest"
)

func withUsage(r llmtest.Response, prompt, completion int) llmtest.Response {
	r.Usage = &llm.Usage{PromptTokens: prompt, CompletionTokens: completion, TotalTokens: prompt + completion}
	return r
}

// Every model request is recorded with its purpose, the server's counts
// and its timings; with prices, the session and the result carry the cost.
func TestRequestsRecordedWithCost(t *testing.T) {
	w := newWorld(t, map[string]any{
		"auditModel": "other-model",
		"prices":     map[string]any{"mock-model": map[string]any{"input": 1, "output": 2}, "other-model": map[string]any{"input": 10, "output": 20}},
	})
	w.srv.Script(
		llmtest.Response{Content: "not a template"}, // a format error, estimated: no usage
		withUsage(reply("Write.", "WRITE_FILE", "a.txt\n```\nA\n```"), 1000, 50),
		withUsage(done("Wrote a.txt."), 1200, 20),
		withUsage(verdict("Overall: PASS"), 3000, 10),
	)
	r := w.run("--json", "-p", "write a.txt")
	r.expect(t, 0)
	s := w.onlySession()
	if len(s.Requests) != 4 {
		t.Fatalf("%d request records: %+v", len(s.Requests), s.Requests)
	}
	purposes := []string{"worker", "worker", "worker", "audit"}
	for i, rec := range s.Requests {
		if rec.Purpose != purposes[i] || rec.DurationMs < rec.FirstByteMs || rec.Timestamp.IsZero() {
			t.Errorf("record %d: %+v", i, rec)
		}
	}
	first, audit := s.Requests[0], s.Requests[3]
	if !first.FormatError || !first.Estimated || first.PromptTokens == 0 || first.Model != "mock-model" {
		t.Errorf("the unparseable reply's record: %+v", first)
	}
	if audit.Model != "other-model" || audit.PromptTokens != 3000 || audit.CompletionTokens != 10 || audit.Estimated {
		t.Errorf("the audit's record: %+v", audit)
	}
	// The estimate's, the worker's 1,000/50 and 1,200/20 at 1 and 2, the
	// audit's 3,000/10 at 10 and 20: added request by request, in the
	// records' order (float sums in another order differ in the last bit,
	// and the estimate, which holds the temporary directory's path, varies).
	want := 0.0
	for _, c := range []float64{float64(first.PromptTokens)*1 + float64(first.CompletionTokens)*2, 1000*1 + 50*2, 1200*1 + 20*2, 3000*10 + 10*20} {
		want += c / 1e6
	}
	if s.Cost == nil || *s.Cost != want {
		t.Fatalf("session cost %v, want %v", s.Cost, want)
	}
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	var result struct {
		Cost *float64
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &result); err != nil || result.Cost == nil || *result.Cost != want {
		t.Errorf("result %s", lines[len(lines)-1])
	}

	list := w.run("sessions", "list")
	if !strings.Contains(list.stdout, "TOKENS") || !strings.Contains(list.stdout, "COST") || !strings.Contains(list.stdout, "$0.03") {
		t.Errorf("sessions list:\n%s", list.stdout)
	}
	show := w.run("sessions", "show", s.ID)
	for _, want := range []string{"## Usage", "worker  ", "audit  ", "1 format error", "1 estimated", "Cost: $0.03"} {
		if !strings.Contains(show.stdout, want) {
			t.Errorf("sessions show lacks %q:\n%s", want, show.stdout[max(0, len(show.stdout)-800):])
		}
	}
}

// dev stats answers which model works best: per model, well-formed
// replies, format errors, audits, early stops and time to first byte.
func TestStats(t *testing.T) {
	w := newWorld(t, nil)
	w.srv.Script(
		withUsage(llmtest.Response{Content: "garbage"}, 500, 5),
		withUsage(reply("Look.", "LIST_DIRECTORY", "."), 600, 20),
		withUsage(done("Looked."), 700, 20),
	)
	w.run("--no-audit", "-p", "look").expect(t, 0)
	w.srv.Script(withUsage(done("Answer."), 400, 10))
	w.run("--no-audit", "-p", "answer").expect(t, 0)

	r := w.run("stats")
	r.expect(t, 0)
	lines := strings.Split(r.stdout, "\n")
	var row string
	for _, l := range lines {
		if strings.HasPrefix(l, "mock-model") {
			row = l
		}
	}
	f := strings.Fields(row)
	// MODEL SESSIONS REQUESTS IN OUT COST WELL-FORMED GRAMMAR JSON UNCONSTRAINED FORMAT-ERRORS PASSED FAILED EARLY FIRST-BYTE s
	// (a generic server: nothing constrained)
	if len(f) != 16 || f[1] != "2" || f[2] != "4" || f[3] != "2,200" || f[4] != "55" || f[5] != "-" || f[6] != "75%" ||
		f[7] != "-" || f[8] != "-" || f[9] != "75%" || f[10] != "1" {
		t.Errorf("stats row %q:\n%s", row, r.stdout)
	}
	r = w.run("stats", "--json", "--days", "7")
	r.expect(t, 0)
	var out struct {
		Days   int
		Models []struct {
			Model                    string
			Replies, FormatErrors    int
			WellFormed               float64
			MedianFirstByteMs        int64
			PromptTokens, EarlyStops int
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil || out.Days != 7 || len(out.Models) != 1 ||
		out.Models[0].Replies != 4 || out.Models[0].WellFormed != 0.75 || out.Models[0].FormatErrors != 1 {
		t.Errorf("stats --json (%v):\n%s", err, r.stdout)
	}
	if r := w.run("stats", "--days", "0"); r.code != 2 {
		t.Errorf("--days 0: exit %d", r.code)
	}
}

// The prompt cache's share of each request, as llama.cpp reports it in
// `timings`, is recorded with the request (SPEC §16's cachedTokens); a
// request whose server said nothing of its cache has none.
func TestCachedTokensRecorded(t *testing.T) {
	w := newWorld(t, nil)
	first := withUsage(reply("Write.", "WRITE_FILE", "a.txt\n```\nA\n```"), 1000, 50)
	second := withUsage(done("Wrote a.txt."), 1200, 20)
	second.Timings = map[string]any{"cache_n": 1040, "prompt_n": 160, "predicted_n": 20, "prompt_ms": 250.5, "predicted_ms": 400}
	w.srv.Script(first, second)
	w.run("-p", "write a.txt", "--no-audit").expect(t, 0)
	s := w.onlySession()
	if len(s.Requests) != 2 {
		t.Fatalf("%d request records: %+v", len(s.Requests), s.Requests)
	}
	if c := s.Requests[0].CachedTokens; c != nil {
		t.Errorf("the first request has cachedTokens %d, but its server reported none", *c)
	}
	if c := s.Requests[1].CachedTokens; c == nil || *c != 1040 || s.Requests[1].PromptTokens != 1200 {
		t.Errorf("the second request's record: %+v (want cachedTokens 1040 of 1200)", s.Requests[1])
	}
	// The server's own time, from the same timings (dev bench's server
	// seconds); none where it gave none.
	if s.Requests[0].ServerMs != 0 || s.Requests[1].ServerMs != 650 {
		t.Errorf("serverMs %d and %d, want 0 (no timings) and 650 (250.5 + 400)", s.Requests[0].ServerMs, s.Requests[1].ServerMs)
	}
	show := w.run("sessions", "show", s.ID)
	if !strings.Contains(show.stdout, "1,040") {
		t.Errorf("sessions show lacks the cached tokens:\n%s", show.stdout)
	}
}
