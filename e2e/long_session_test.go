package e2e

import (
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"

	"github.com/devagent/dev/llm"
	"github.com/devagent/dev/llm/llmtest"
)

// windowModel plays a model behind a server with a small context window, as
// llama.cpp does: it counts each prompt with its own tokenizer (denser than
// dev's four characters per token, plus a few tokens per message for the
// chat template), rejects a prompt over the window with llama.cpp's
// overflow error, and otherwise answers with usage. Worker requests get a
// scripted session of steps that read files and run commands; summarisation
// requests get a summary.
type windowModel struct {
	window int
	steps  int    // worker replies before DONE
	prompt string // the user's request, which every worker request must carry
	// noUsage: the server reports no token counts, so dev estimates at
	// four characters per token throughout.
	noUsage bool

	mu           sync.Mutex
	workerSteps  int // worker requests answered with a reply
	compressions int // summarisation requests answered
	overflows    int // prompts rejected as too long
	peak         int // largest prompt answered, in the server's tokens
	lostRequest  int // worker requests without the user's request
}

const (
	serverCharsPerToken = 3.5
	templateTokens      = 4 // per message
)

func serverTokens(msgs []llm.Message) int {
	n := 0
	for _, m := range msgs {
		n += int(math.Ceil(float64(len(m.Content))/serverCharsPerToken)) + templateTokens
	}
	return n
}

func (m *windowModel) respond(req llmtest.Request) (llmtest.Response, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	prompt := serverTokens(req.Messages)
	if prompt > m.window {
		m.overflows++
		return llmtest.Response{Status: 400, Body: fmt.Sprintf(
			`{"error":{"code":400,"message":"request (%d tokens) exceeds the available context size (%d tokens), try increasing it","type":"exceed_context_size_error","n_prompt_tokens":%d,"n_ctx":%d}}`,
			prompt, m.window, prompt, m.window)}, true
	}
	m.peak = max(m.peak, prompt)
	var content string
	if isCompression(req) {
		m.compressions++
		content = fmt.Sprintf("SUMMARY %d: the agent is working through its scripted steps, reading src/ files, "+
			"running wc and writing out/ files. Steps so far succeeded. %s Next: continue with the next step.",
			m.compressions, strings.Repeat("Detail of the work done. ", 40))
	} else {
		if !strings.Contains(req.Messages[len(req.Messages)-1].Content+req.Messages[1].Content, m.prompt) {
			m.lostRequest++
		}
		m.workerSteps++
		content = m.step(m.workerSteps)
	}
	resp := llmtest.Response{Content: content}
	if !m.noUsage {
		resp.Usage = &llm.Usage{PromptTokens: prompt, CompletionTokens: len(content) / 4, TotalTokens: prompt + len(content)/4}
	}
	return resp, true
}

// step is the reply of worker step i (1-based): a read, a command, a
// listing and a write in turn, then DONE.
func (m *windowModel) step(i int) string {
	if i >= m.steps {
		return llmtest.Template("Everything is done.", "[x] all steps", llmtest.Call{Tool: "DONE", Input: fmt.Sprintf("Completed %d steps.", i-1)})
	}
	tasks := fmt.Sprintf("[x] step %d\n[~] step %d\n[ ] finish", i-1, i)
	file := fmt.Sprintf("src/f%d.txt", i%7)
	var call llmtest.Call
	switch i % 4 {
	case 0:
		call = llmtest.Call{Tool: "READ_FILE", Input: file}
	case 1:
		call = llmtest.Call{Tool: "COMMAND", Input: fmt.Sprintf("echo step %d && wc -c %s", i, file)}
	case 2:
		call = llmtest.Call{Tool: "LIST_DIRECTORY", Input: "src"}
	default:
		call = llmtest.Call{Tool: "WRITE_FILE", Input: fmt.Sprintf("out/%d.txt\n\n```text\n%s\n```", i, strings.Repeat(fmt.Sprintf("output of step %d\n", i), 40))}
	}
	return llmtest.Template(fmt.Sprintf("Step %d of the plan.", i), tasks, call)
}

// longSession is the outcome of a scripted session.
type longSession struct {
	code, loops                       int
	compressions, recorded, overflows int
	peak, lostRequest                 int
	stderr                            string
}

// runLongSession runs dev -p through steps scripted steps against a server
// with an 8k window.
func runLongSession(tb testing.TB, steps int, noUsage bool) longSession {
	tb.Helper()
	const window = 8192
	w := setUpWorld(tb, map[string]any{"maxContextTokens": window, "maxRetriesAutomated": 3})
	for i := range 7 {
		w.write(fmt.Sprintf("src/f%d.txt", i), strings.Repeat(fmt.Sprintf("file %d: some source text of a project, line after line.\n", i), 110)) // ~6 KB
	}
	m := &windowModel{window: window, steps: steps, prompt: "work through the scripted steps", noUsage: noUsage}
	w.srv.Respond(m.respond)
	r := w.run("-p", m.prompt, "--json", "--no-audit")
	out := longSession{code: r.code, stderr: r.stderr}
	for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		if strings.Contains(line, `"type":"result"`) {
			fmt.Sscanf(line[strings.Index(line, `"loops":`):], `"loops":%d`, &out.loops)
		}
	}
	if all := w.sessions(); len(all) == 1 {
		for _, s := range all {
			out.recorded = s.CompressionCount
		}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	out.compressions, out.overflows, out.peak, out.lostRequest = m.compressions, m.overflows, m.peak, m.lostRequest
	return out
}

// A 300-step session against an 8k-token server never fails on context and
// never loses the request (issue 5).
func TestLongSessionStaysInTheWindow(t *testing.T) {
	t.Parallel()
	for _, noUsage := range []bool{false, true} {
		t.Run(fmt.Sprintf("noUsage=%v", noUsage), func(t *testing.T) {
			t.Parallel()
			checkLongSession(t, runLongSession(t, 300, noUsage))
		})
	}
}

func checkLongSession(t *testing.T, s longSession) {
	t.Helper()
	if s.code != 0 || s.loops != 300 {
		t.Fatalf("exit %d after %d steps, want 0 after 300\nstderr (end):\n%s", s.code, s.loops, tail(s.stderr, 2000))
	}
	if s.overflows != 0 {
		t.Errorf("the server rejected %d prompts as too long: compression came too late", s.overflows)
	}
	if s.compressions < 10 || s.recorded != s.compressions {
		t.Errorf("%d summarisation requests, %d compressions recorded in the session", s.compressions, s.recorded)
	}
	if s.lostRequest != 0 {
		t.Errorf("%d worker requests did not carry the user's request", s.lostRequest)
	}
	if s.peak > 8192 {
		t.Errorf("peak prompt %d tokens", s.peak)
	}
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// BenchmarkLongSession runs a scripted 300-step session against the mock
// with an 8k window and reports steps completed, compressions and the peak
// prompt size (in the server's tokens), with a server that reports usage and
// with one that does not.
func BenchmarkLongSession(b *testing.B) {
	for _, noUsage := range []bool{false, true} {
		name := "usage"
		if noUsage {
			name = "no-usage"
		}
		b.Run(name, func(b *testing.B) {
			var s longSession
			for b.Loop() {
				s = runLongSession(b, 300, noUsage)
				if s.code != 0 {
					b.Fatalf("exit %d after %d steps\n%s", s.code, s.loops, tail(s.stderr, 2000))
				}
			}
			b.ReportMetric(float64(s.loops), "steps")
			b.ReportMetric(float64(s.compressions), "compressions")
			b.ReportMetric(float64(s.peak), "peak-prompt-tokens")
			b.ReportMetric(float64(s.overflows), "overflows")
		})
	}
}
