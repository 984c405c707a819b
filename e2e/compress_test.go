package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/devagent/dev/llm/llmtest"
)

// summaryReply is what the mock answers a summarisation request with.
const summaryReply = "SUMMARY: big.log was read; it holds numbered lines. Next: finish."

func summary() llmtest.Response { return llmtest.Response{Content: summaryReply} }

// isCompression tells a summarisation request from a worker request.
func isCompression(req llmtest.Request) bool {
	return len(req.Messages) == 1 && strings.Contains(req.Messages[0].Content, "You are a context compression assistant.") &&
		strings.Contains(req.Messages[0].Content, "<conversation>")
}

func compressionRequests(reqs []llmtest.Request) int {
	n := 0
	for _, r := range reqs {
		if isCompression(r) {
			n++
		}
	}
	return n
}

// numberedLines is a file of n lines "line 0001 ..." of 48 bytes each.
func numberedLines(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "line %04d %s\n", i, strings.Repeat("x", 37))
	}
	return b.String()
}

// jsonEvents parses --json stdout into events.
func jsonEvents(t *testing.T, stdout string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(stdout), "\n") {
		var ev map[string]any
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("stdout line is not JSON: %q", line)
		}
		out = append(out, ev)
	}
	return out
}

func eventsOfType(evs []map[string]any, typ string) []map[string]any {
	var out []map[string]any
	for _, ev := range evs {
		if ev["type"] == typ {
			out = append(out, ev)
		}
	}
	return out
}

// checkCompressed asserts that a worker request carries the history as one
// summary message keeping the original request.
func checkCompressed(t *testing.T, req llmtest.Request, prompt string) {
	t.Helper()
	msgs := req.Messages
	if isCompression(req) || len(msgs) != 2 || msgs[0].Role != "system" || msgs[1].Role != "user" {
		t.Fatalf("the request after compression is not [system, summary]: %d messages", len(msgs))
	}
	got := msgs[1].Content
	if !strings.HasPrefix(got, "[CONTEXT SUMMARY]\n\n"+summaryReply) || !strings.HasSuffix(got, "[ORIGINAL REQUEST]\n\n"+prompt) {
		t.Errorf("summary message:\n%s", got)
	}
}

func TestCompressionAfterALargeRead(t *testing.T) {
	w := newWorld(t, map[string]any{"maxContextTokens": 6000, "compressModel": "other-model"})
	w.write("big.log", numberedLines(900)) // ~43 KB, ~11k tokens: more than the window
	w.srv.Script(
		llmtest.Response{Content: llmtest.Template("Read the log.", "[~] read big.log\n[ ] report", llmtest.Call{Tool: "READ_FILE", Input: "big.log"})},
		summary(),
		done("big.log has 900 lines."),
	)
	const prompt = "how many lines does big.log have?"
	r := w.run("--no-audit", "-p", prompt, "--json")
	r.expect(t, 0)

	reqs := w.srv.Requests()
	if len(reqs) != 3 || compressionRequests(reqs) != 1 || !isCompression(reqs[1]) {
		t.Fatalf("%d requests, %d of them compressions; want worker, compression, worker", len(reqs), compressionRequests(reqs))
	}
	comp := reqs[1]
	if comp.Model != "other-model" {
		t.Errorf("summarisation request to model %q, want compressModel", comp.Model)
	}
	text := comp.Messages[0].Content
	// It fits the window itself: the READ_FILE result was cut in its middle.
	if len(text)/4 > 6000 {
		t.Errorf("summarisation request of %d bytes for a 6000-token window", len(text))
	}
	for _, want := range []string{"<user_request>\n" + prompt, "line 0001", "line 0900", "bytes cut", "Read the log."} {
		if !strings.Contains(text, want) {
			t.Errorf("summarisation request lacks %q", want)
		}
	}
	if strings.Contains(text, "line 0450") {
		t.Errorf("the middle of the long result was not cut")
	}
	checkCompressed(t, reqs[2], prompt)
	if !strings.Contains(reqs[2].Messages[1].Content, "Task list when the conversation was compressed:\n[~] read big.log\n[ ] report") {
		t.Errorf("the task list is not in the summary message:\n%s", reqs[2].Messages[1].Content)
	}

	s := w.onlySession()
	if s.Status != "complete" || s.CompressionCount != 1 || len(s.Compressions) != 1 {
		t.Fatalf("session: status %s, compressionCount %d, %d compressions", s.Status, s.CompressionCount, len(s.Compressions))
	}
	c := s.Compressions[0]
	if c.TokensBefore <= c.TokensAfter || c.TokensBefore < 6000*85/100 || c.Timestamp.IsZero() {
		t.Errorf("compression record %+v", c)
	}
	if len(s.History) != 2 || !strings.HasPrefix(s.History[0].Content, "[CONTEXT SUMMARY]") {
		t.Errorf("history after compression: %d messages, first %.40q", len(s.History), s.History[0].Content)
	}
	if len(s.TaskList) != 2 {
		t.Errorf("task list %+v", s.TaskList)
	}

	evs := jsonEvents(t, r.stdout)
	comps := eventsOfType(evs, "compression")
	if len(comps) != 1 || comps[0]["reason"] != "threshold" || comps[0]["window"] != 6000.0 ||
		comps[0]["tokensBefore"] != float64(c.TokensBefore) || comps[0]["tokensAfter"] != float64(c.TokensAfter) {
		t.Errorf("compression events %v, session %+v", comps, c)
	}
	if res := evs[len(evs)-1]; res["type"] != "result" || res["summary"] != "big.log has 900 lines." {
		t.Errorf("last event %v", res)
	}
}

// serverFixture loads a recorded response from llm/testdata/servers as a
// scripted response.
func serverFixture(t *testing.T, name string) llmtest.Response {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "llm", "testdata", "servers", filepath.FromSlash(name)))
	if err != nil {
		t.Fatal(err)
	}
	head, body, _ := bytes.Cut(raw, []byte("\r\n\r\n"))
	lines := strings.Split(string(head), "\r\n")
	status, err := strconv.Atoi(strings.Fields(lines[0])[1])
	if err != nil {
		t.Fatal(err)
	}
	resp := llmtest.Response{Status: status, Body: string(body), Header: map[string]string{}}
	for _, l := range lines[1:] {
		if k, v, ok := strings.Cut(l, ":"); ok && http.CanonicalHeaderKey(k) == "Content-Type" {
			resp.Header["Content-Type"] = strings.TrimSpace(v)
		}
	}
	return resp
}

func TestOverflowCompressesAndRetries(t *testing.T) {
	t.Parallel()
	cases := []struct {
		fixture string
		config  map[string]any
		window  float64 // the window after the overflow
	}{
		{"documented/vllm-overflow-400-old.txt", nil, 131072},
		{"documented/llamacpp-overflow-400.txt", nil, 4096}, // n_ctx becomes the window
		{"documented/llamacpp-old-stream-error-event.txt", nil, 131072},
		{"documented/llamacpp-context-exceeded-500.txt", nil, 131072},
		{"documented/lmstudio-empty-stream.txt", map[string]any{"maxContextTokens": 32768}, 32768},
	}
	for _, tc := range cases {
		t.Run(filepath.Base(tc.fixture), func(t *testing.T) {
			w := newWorld(t, tc.config)
			w.write("notes.txt", "some notes\n")
			w.srv.Script(
				reply("Read the notes.", "READ_FILE", "notes.txt"),
				serverFixture(t, tc.fixture),
				summary(),
				done("Read them."),
			)
			r := w.run("--no-audit", "-p", "read notes.txt", "--json")
			r.expect(t, 0)
			reqs := w.srv.Requests()
			if len(reqs) != 4 || !isCompression(reqs[2]) || compressionRequests(reqs) != 1 {
				t.Fatalf("%d requests, %d compressions: want worker, overflow, compression, retry", len(reqs), compressionRequests(reqs))
			}
			checkCompressed(t, reqs[3], "read notes.txt")
			comps := eventsOfType(jsonEvents(t, r.stdout), "compression")
			if len(comps) != 1 || comps[0]["reason"] != "overflow" || comps[0]["window"] != tc.window {
				t.Errorf("compression events %v, want one for an overflow with window %v", comps, tc.window)
			}
			if n := len(eventsOfType(jsonEvents(t, r.stdout), "retry")); n != 0 {
				t.Errorf("the overflow was counted as %d retries", n)
			}
			if s := w.onlySession(); s.CompressionCount != 1 || s.Status != "complete" {
				t.Errorf("session: %d compressions, status %s", s.CompressionCount, s.Status)
			}
		})
	}
}

func TestRepeatedOverflowExits1(t *testing.T) {
	w := newWorld(t, nil)
	w.write("notes.txt", "some notes\n")
	overflow := serverFixture(t, "documented/llamacpp-overflow-400.txt")
	w.srv.Script(
		reply("Read the notes.", "READ_FILE", "notes.txt"),
		overflow,
		summary(),
		overflow,
		summary(),
		done("never"),
	)
	r := w.run("--no-audit", "-p", "read notes.txt")
	r.expect(t, 1)
	if reqs := w.srv.Requests(); len(reqs) != 4 || compressionRequests(reqs) != 1 {
		t.Fatalf("%d requests, %d compressions: want 4 and 1, no loop", len(reqs), compressionRequests(reqs))
	}
	for _, want := range []string{"does not fit the server's context window even compressed", "4390 tokens for a window of 4096",
		"llama.cpp: -c", "OLLAMA_CONTEXT_LENGTH", "maxContextTokens in " + filepath.Join(w.home, "config.json")} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	if r.stdout != "" {
		t.Errorf("stdout %q", r.stdout)
	}
	if s := w.onlySession(); s.Status != "failed" || s.CompressionCount != 1 {
		t.Errorf("session status %s, %d compressions", s.Status, s.CompressionCount)
	}
}

func TestOverflowFromMaxTokensIsNotCompressed(t *testing.T) {
	w := newWorld(t, map[string]any{"maxTokens": 2045})
	w.write("notes.txt", "some notes\n")
	w.srv.Script(
		reply("Read the notes.", "READ_FILE", "notes.txt"),
		serverFixture(t, "documented/vllm-overflow-400-new.txt"),
		summary(),
		done("never"),
	)
	r := w.run("--no-audit", "-p", "read notes.txt")
	r.expect(t, 1)
	if reqs := w.srv.Requests(); len(reqs) != 2 || compressionRequests(reqs) != 0 {
		t.Errorf("%d requests, %d compressions: want 2 and none", len(reqs), compressionRequests(reqs))
	}
	if !strings.Contains(r.stderr, "Lower or remove maxTokens") {
		t.Errorf("stderr does not say to lower maxTokens:\n%s", r.stderr)
	}
}

func TestServerWindowLowersTheBudget(t *testing.T) {
	t.Parallel()
	cases := map[string]struct{ path, body, source string }{
		"llama.cpp /props": {"GET /props", `{"default_generation_settings":{"n_ctx":4096},"total_slots":4}`,
			"GET /props default_generation_settings.n_ctx"},
		"Ollama /api/ps": {"GET /api/ps", `{"models":[{"name":"mock-model:latest","model":"mock-model:latest","context_length":4096}]}`,
			"GET /api/ps context_length"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			w := newWorld(t, nil) // maxContextTokens stays 131072
			w.srv.Route(tc.path, 200, tc.body)
			w.write("mid.log", numberedLines(300)) // ~14 KB, ~3.6k tokens: fits 131072, not 85% of 4096
			w.srv.Script(reply("Read the log.", "READ_FILE", "mid.log"), summary(), done("Read it."))
			r := w.run("--no-audit", "-p", "read mid.log", "-v")
			r.expect(t, 0)
			reqs := w.srv.Requests()
			if len(reqs) != 3 || !isCompression(reqs[1]) {
				t.Fatalf("%d requests, %d compressions: the server's 4096-token window was not used", len(reqs), compressionRequests(reqs))
			}
			if got := strings.Count(r.stderr, "context window of 4,096 tokens; using it instead of maxContextTokens (131,072) (from "+tc.source+")"); got != 1 {
				t.Errorf("the window is said %d times, want once with its source (-v):\n%s", got, r.stderr)
			}
			if !strings.Contains(r.stderr, "compressed the conversation") {
				t.Errorf("no compression line on stderr:\n%s", r.stderr)
			}
		})
	}
}

func TestServerWindowSaidWithoutSourceUnlessVerbose(t *testing.T) {
	w := newWorld(t, map[string]any{"maxContextTokens": 100000})
	w.srv.Route("GET /props", 200, `{"default_generation_settings":{"n_ctx":8192}}`)
	w.srv.Script(done("ok"))
	r := w.run("--no-audit", "-p", "hi")
	r.expect(t, 0)
	if !strings.Contains(r.stderr, "llama.cpp gives this model a context window of 8,192 tokens; using it instead of maxContextTokens (100,000)\n") {
		t.Errorf("stderr:\n%s", r.stderr)
	}
}
