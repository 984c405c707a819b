package commands

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/devagent/dev/llm"
	"github.com/devagent/dev/llm/llmtest"
)

// healthy answers dev doctor's probes as a good model does: one token to
// the one-token requests, the template with DONE to the protocol probe.
func healthy(req llmtest.Request) (llmtest.Response, bool) {
	if n, _ := req.Raw["max_tokens"].(float64); n == 1 {
		return llmtest.Response{Content: "OK", FinishReason: "length", Usage: &llm.Usage{PromptTokens: 12, CompletionTokens: 1, TotalTokens: 13}}, true
	}
	return llmtest.Response{Content: llmtest.Reply("Answering.", "DONE", "OK"), Usage: &llm.Usage{PromptTokens: 201, CompletionTokens: 24, TotalTokens: 225}}, true
}

// server starts a mock model server and points config.json at it.
func (h *home) server(cfg map[string]any) *llmtest.Server {
	h.t.Helper()
	srv := llmtest.New("mock-model", "other-model")
	h.t.Cleanup(srv.Close)
	conf := map[string]any{"apiUrl": srv.BaseURL(), "model": "mock-model", "maxRetriesAutomated": 1, "requestTimeout": 20}
	for k, v := range cfg {
		conf[k] = v
	}
	h.config(conf)
	return srv
}

// dev doctor prints its report on stdout and writes nothing; a failed
// check is a failure already shown (exit 1, nothing more printed).
func TestDoctor(t *testing.T) {
	h := newHome(t)
	srv := h.server(nil)
	srv.Respond(healthy)
	r := h.run("doctor").ok(t)
	for _, want := range []string{"dev doctor: " + srv.BaseURL() + ", model mock-model\n", "  ok    model      mock-model is served", "  ok    protocol   answered in the template", "nothing failed"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("the report lacks %q:\n%s", want, r.stdout)
		}
	}
	if entries, _ := os.ReadDir(h.dir); len(entries) != 1 {
		t.Errorf("dev doctor wrote in the config home: %v", entries)
	}

	r = h.run("doctor", "--json", "-m", "nope").ok(t)
	var report struct {
		Model  string `json:"model"`
		OK     bool   `json:"ok"`
		Checks []struct{ Name, Status string }
	}
	if err := json.Unmarshal([]byte(r.stdout), &report); err != nil || report.Model != "nope" {
		t.Errorf("--json -m nope: %v %+v\n%s", err, report, r.stdout)
	}

	h.config(map[string]any{"apiUrl": "http://127.0.0.1:1/v1", "model": "m"})
	r = h.run("doctor")
	var shown *ShownError
	if !errors.As(r.err, &shown) || !errors.Is(r.err, errChecksFailed) || !strings.Contains(r.stdout, "fail  reachable") {
		t.Errorf("unreachable: %v\n%s", r.err, r.stdout)
	}
	if err := h.run("doctor", "--profile", "missing").err; !errors.As(err, &shown) {
		t.Errorf("an unknown profile: %v", err)
	}
	if _, err := os.Stat(filepath.Join(h.dir, "sessions")); !os.IsNotExist(err) {
		t.Errorf("dev doctor made a sessions directory: %v", err)
	}
}
