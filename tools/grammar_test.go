package tools

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/devagent/dev/mcp"
	"github.com/devagent/dev/parser"
)

// grammarPool are the characters the draws use: those that could start a
// heading, a fence, a tag, a list or a line range, blanks, and others.
var grammarPool = []rune("aZ09 \t#`~<>/tThink_-*+[]{}():;\"'\\|=!.,?&$@^\r\x00é世🙂\u00a0\u2028\v")

// Every reply the grammar of the worker's tools (built-in, custom, MCP,
// TOOL_HELP) allows passes ParseReply: the parser and every tool's input
// check (SPEC §18).
func TestGrammarRepliesPassTheToolChecks(t *testing.T) {
	t.Parallel()
	set, err := Compose(NewCustomTool(CustomSpec{Name: "RUN_TESTS", Description: "Runs the tests.", Command: "go test ./..."}),
		MCPTool{t: &mcp.Tool{Server: "github", Name: "create_issue", Description: "Creates an issue."}})
	if err != nil {
		t.Fatal(err)
	}
	docs := set.Docs()
	for _, thinking := range []bool{false, true} {
		g := Grammar(docs, parser.GrammarOptions{Thinking: thinking, ReplyCap: 2048})
		r := rand.New(rand.NewPCG(11, uint64(len(docs))))
		for range 5000 {
			var chosen []string
			reply := g.Generate(r, grammarPool, func(rule string) {
				if n, ok := strings.CutPrefix(rule, "call"); ok {
					if i, err := strconv.Atoi(n); err == nil {
						chosen = append(chosen, docs[i].Name)
					}
				}
			})
			resp, err := ParseReply(reply, set)
			if err != nil {
				t.Fatalf("the grammar allowed a reply that fails: %v\n%q", err, reply)
			}
			if len(resp.Warnings) > 0 {
				t.Fatalf("a reply the grammar allowed needed lenience %q:\n%q", resp.Warnings, reply)
			}
			if len(resp.Tools) != len(chosen) || len(resp.Tools) > parser.MaxToolCalls {
				t.Fatalf("%d tools parsed, %d chosen (at most %d):\n%q", len(resp.Tools), len(chosen), parser.MaxToolCalls, reply)
			}
			for i, c := range resp.Tools {
				if c.Name != chosen[i] {
					t.Fatalf("tool %d is %s, the grammar chose %s:\n%q", i, c.Name, chosen[i], reply)
				}
			}
		}
	}
}

// The worker's grammar, as a server receives it: testdata/worker.gbnf
// (go test -update rewrites it). It shows a change of the grammar in
// review, and is what the real-server suite checks llama-server accepts.
func TestWorkerGrammarGolden(t *testing.T) {
	t.Parallel()
	got := Grammar(Worker().Docs(), parser.GrammarOptions{Thinking: true, ReplyCap: 2048}).GBNF()
	path := filepath.Join("testdata", "worker.gbnf")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("the worker's grammar changed (go test ./tools -run TestWorkerGrammarGolden -update):\n%s", got)
	}
	if again := Grammar(Worker().Docs(), parser.GrammarOptions{Thinking: true, ReplyCap: 2048}).GBNF(); again != got {
		t.Error("two builds of the same grammar differ: requests would not be byte-identical")
	}
}
