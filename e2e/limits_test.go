package e2e

import (
	"strings"
	"testing"

	"github.com/devagent/dev/llm"
	"github.com/devagent/dev/llm/llmtest"
)

// oneLine is size bytes of words on one line.
func oneLine(size int) string {
	return strings.Repeat("word ", size/5)
}

// TestFiftyMegabyteOneLineReply: a reply of 50 MB on one line is cut at
// 8 MB and told to the model as a reply cut off for length; the run goes
// on and ends normally. Rendering it once took minutes (quadratic
// wrapping), and reading it hundreds of MB.
func TestFiftyMegabyteOneLineReply(t *testing.T) {
	w := newWorld(t, nil)
	summarize(w)
	w.srv.Script(
		llmtest.Response{Content: llmtest.Reply(oneLine(50<<20), "DONE", "never"), ChunkSize: 64 << 10},
		done("Short this time."),
	)
	r := w.run("-p", "think aloud", "--no-audit")
	r.expect(t, 0)
	if r.stdout != "Short this time.\n" {
		t.Errorf("stdout %q", r.stdout)
	}
	if !strings.Contains(r.stderr, "reply not in the expected format (1/3): Your reply was cut off") {
		t.Errorf("the cut was not shown:\n%.2000s", r.stderr)
	}
	// The loop drops a rejected attempt rather than summarise it when it
	// outgrows the context window, and asks again: what was kept of the
	// reply never exceeds 8 MB.
	for i, req := range w.srv.Requests() {
		if n := len(allContent(req)); n > llm.MaxReplyBytes+1<<20 {
			t.Errorf("request %d is %d bytes: more than %d bytes of the reply were kept", i, n, llm.MaxReplyBytes)
		}
	}
	s := w.onlySession()
	if s.Status != "complete" {
		t.Errorf("status %q", s.Status)
	}
	for _, m := range s.History {
		if len(m.Content) > 1<<20 {
			t.Errorf("the session keeps a %s message of %d bytes: failed attempts leave the history once a reply parses", m.Role, len(m.Content))
		}
	}
}

// summarize makes the mock answer summarisation requests, whenever they
// come, before the script.
func summarize(w *world) {
	w.srv.Respond(func(req llmtest.Request) (llmtest.Response, bool) {
		return summary(), isCompression(req)
	})
}

// TestTenThousandToolPairs: a reply with 10,000 Tool Choice / Tool Input
// pairs runs them all, in order, and the run ends normally.
func TestTenThousandToolPairs(t *testing.T) {
	w := newWorld(t, nil)
	summarize(w)
	calls := make([]llmtest.Call, 10000)
	for i := range calls {
		calls[i] = llmtest.Call{Tool: "UPDATE_TASK_LIST", Input: ""}
	}
	w.srv.Script(
		llmtest.Response{Content: llmtest.Template("Many steps.", "[~] count", calls...), ChunkSize: 4 << 10},
		done("Counted."),
	)
	r := w.run("-p", "count", "--no-audit", "--json")
	r.expect(t, 0)
	results := 0
	for _, ev := range jsonEvents(t, r.stdout) {
		if ev["type"] == "tool_result" && ev["tool"] == "UPDATE_TASK_LIST" && ev["ok"] == true {
			results++
		}
	}
	if results != 10000 {
		t.Errorf("%d tools ran, want 10000", results)
	}
	if s := w.onlySession(); s.Status != "complete" {
		t.Errorf("status %q", s.Status)
	}
}
