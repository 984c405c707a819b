package commands

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func TestStats(t *testing.T) {
	h := newHome(t)
	r := h.run("stats").ok(t)
	if r.stdout != "" || r.stderr != "no model requests recorded in the last 30 days\n" {
		t.Errorf("no sessions: stdout %q, stderr %q", r.stdout, r.stderr)
	}

	h.session(idOld, "old", "model-a", 72*time.Hour)
	h.session(idNew, "new", "model-b", time.Minute)
	h.config(map[string]any{"prices": map[string]any{"model-b": map[string]any{"input": 1.0, "output": 2.0}}})
	r = h.run("stats").ok(t)
	for _, want := range []string{"Models over the last 30 days:", "model-a ", "model-b ", "1,000"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("dev stats lacks %q:\n%s", want, r.stdout)
		}
	}

	r = h.run("stats", "--days", "1", "--json").ok(t)
	var stats struct {
		Days   int `json:"days"`
		Models []struct {
			Model    string   `json:"model"`
			Requests int      `json:"requests"`
			Cost     *float64 `json:"cost"`
		} `json:"models"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &stats); err != nil {
		t.Fatalf("%v:\n%s", err, r.stdout)
	}
	if stats.Days != 1 || len(stats.Models) != 1 || stats.Models[0].Model != "model-b" || stats.Models[0].Requests != 1 || stats.Models[0].Cost == nil {
		t.Errorf("--days 1 --json: %+v\n%s", stats, r.stdout)
	}

	// A broken config.json costs the prices, not the counts.
	h.config(map[string]any{"maxLoops": "many"})
	r = h.run("stats").ok(t)
	if !strings.Contains(r.stderr, "dev: warning: no prices, config.json is unusable") || !strings.Contains(r.stdout, "model-b") {
		t.Errorf("a broken config:\nstdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	}
}
