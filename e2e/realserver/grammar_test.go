package realserver

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/devagent/dev/history"
	"github.com/devagent/dev/mcp"
	"github.com/devagent/dev/parser"
	"github.com/devagent/dev/prompts"
	"github.com/devagent/dev/tools"
)

// grammars are the reply grammars dev builds, by what they are for: the
// worker's (automated, and interactive with custom tools, an MCP tool's
// JSON object, TOOL_HELP and the think block), the auditor's, and dev
// doctor's.
func grammars(t testing.TB) map[string]string {
	t.Helper()
	worker := tools.Worker().Docs()
	var automated []tools.Doc
	for _, d := range worker {
		if d.Name != tools.AskUser {
			automated = append(automated, d)
		}
	}
	extra := append([]tools.Tool{tools.NewCustomTool(tools.CustomSpec{Name: "RUN_TESTS", Description: "Runs the tests.", Command: "true"})},
		tools.NewMCPTools([]*mcp.Tool{{Server: "github", Name: "create_issue", Description: "Creates an issue."}})...)
	extended, err := tools.Compose(extra...)
	if err != nil {
		t.Fatal(err)
	}
	auditor := []tools.Doc{tools.ReadFileTool{}.Doc(), tools.ListDirectoryTool{}.Doc(),
		{Name: tools.Command, Input: parser.InputLine}, tools.DoneTool{}.Doc()}
	return map[string]string{
		"worker, automated":                       tools.Grammar(automated, parser.GrammarOptions{ReplyCap: 2048}).GBNF(),
		"worker, interactive, extended, thinking": tools.Grammar(extended.Docs(), parser.GrammarOptions{Thinking: true, ReplyCap: 32768}).GBNF(),
		"worker, cap unknown":                     tools.Grammar(automated, parser.GrammarOptions{}).GBNF(),
		"auditor":                                 tools.Grammar(auditor, parser.GrammarOptions{ReplyCap: 4096}).GBNF(),
		"doctor":                                  parser.ReplyGrammar([]parser.GrammarTool{{Name: "DONE", Input: parser.InputText}}, parser.GrammarOptions{ReplyCap: 2048}).GBNF(),
	}
}

// chat sends one request to the real server and returns its status, its
// answer and llama.cpp's timings.
func chat(t testing.TB, srv *llamaServer, body map[string]any) (int, map[string]any) {
	t.Helper()
	data, _ := json.Marshal(body)
	resp, err := http.Post(srv.url+"/v1/chat/completions", "application/json", bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var out map[string]any
	_ = json.Unmarshal(raw, &out)
	if out == nil {
		out = map[string]any{"raw": string(raw)}
	}
	return resp.StatusCode, out
}

// llama-server accepts every grammar dev builds (it answers a grammar it
// cannot parse with a 400, as llamacpp-b11434/grammar-invalid-400.txt
// records), and the reply it shapes with the worker's starts as the
// template.
func TestRealServerAcceptsTheGrammars(t *testing.T) {
	srv := server(t, "smollm2", 8192, 1)
	system, request := prompts.DoctorProtocol()
	for name, g := range grammars(t) {
		status, out := chat(t, srv, map[string]any{"model": "smollm2", "temperature": 0, "max_tokens": 6, "grammar": g,
			"messages": []map[string]string{{"role": "system", "content": system}, {"role": "user", "content": history.Request(request).Content}}})
		if status != http.StatusOK {
			t.Errorf("%s: llama-server answered %d: %v", name, status, out)
			continue
		}
		content := ""
		if cs, ok := out["choices"].([]any); ok && len(cs) > 0 {
			msg, _ := cs[0].(map[string]any)["message"].(map[string]any)
			content, _ = msg["content"].(string)
		}
		if !strings.HasPrefix("# Agent Response\n\n## Thoughts\n", content) && !strings.HasPrefix(content, "# Agent Response") &&
			!strings.HasPrefix(content, "<think>") {
			t.Errorf("%s: the shaped reply began %q", name, content)
		}
	}
	bad := "root ::= \"a\" undefined-rule"
	if status, _ := chat(t, srv, map[string]any{"model": "smollm2", "max_tokens": 1, "grammar": bad,
		"messages": []map[string]string{{"role": "user", "content": "hi"}}}); status != http.StatusBadRequest {
		t.Errorf("an invalid grammar got %d, want 400 (the rejection dev falls back from)", status)
	}
}

// BenchmarkGrammarCost measures what the worker's grammar costs llama-server
// per request: the same one-token request, with and without it, its prompt
// already in the slot's cache but for the last token, so that what differs
// is the grammar's setup and the first token's sampling. Reported per
// request: the server's prompt time and the whole round trip.
//
//	DEV_REAL_SERVER=1 go test -run '^$' -bench GrammarCost -benchtime 20x ./e2e/realserver
func BenchmarkGrammarCost(b *testing.B) {
	srv := server(b, "smollm2", 8192, 1)
	g := grammars(b)["worker, automated"]
	system, request := prompts.DoctorProtocol()
	msgs := []map[string]string{{"role": "system", "content": system}, {"role": "user", "content": history.Request(request).Content}}
	for _, withGrammar := range []bool{false, true} {
		name := "without"
		if withGrammar {
			name = "with"
		}
		b.Run(name, func(b *testing.B) {
			body := map[string]any{"model": "smollm2", "temperature": 0, "max_tokens": 1, "messages": msgs}
			if withGrammar {
				body["grammar"] = g
			}
			var promptMs float64
			start := time.Now()
			for range b.N {
				status, out := chat(b, srv, body)
				if status != http.StatusOK {
					b.Fatalf("status %d: %v", status, out)
				}
				if tm, ok := out["timings"].(map[string]any); ok {
					p, _ := tm["prompt_ms"].(float64)
					promptMs += p
				}
			}
			b.ReportMetric(promptMs/float64(b.N), "prompt-ms/req")
			b.ReportMetric(float64(time.Since(start).Milliseconds())/float64(b.N), "ms/req")
		})
	}
}
