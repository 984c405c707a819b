package tools

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/devagent/dev/mcp"
	"github.com/devagent/dev/prompts"
)

// maxTokensPerMCPTool is the budget of SPEC §15's issue: what one more MCP
// tool adds to the system prompt, at 4 characters a token (SPEC §5).
const maxTokensPerMCPTool = 25

// fixtureMCPTools reads testdata/mcp_tools.json: 30 tools of 6 servers
// whose descriptions have the lengths and shapes of widely used servers'
// (filesystem, GitHub, Postgres, fetch, memory, sequential thinking).
func fixtureMCPTools(t *testing.T) []Tool {
	t.Helper()
	data, err := os.ReadFile("testdata/mcp_tools.json")
	if err != nil {
		t.Fatal(err)
	}
	var list []struct{ Server, Name, Description string }
	if err := json.Unmarshal(data, &list); err != nil {
		t.Fatal(err)
	}
	out := make([]Tool, len(list))
	for i, e := range list {
		out[i] = MCPTool{t: &mcp.Tool{Server: e.Server, Name: e.Name, Description: e.Description, Schema: `{"type": "object"}`}}
	}
	return out
}

// systemPromptChars renders the worker's system prompt with extra tools,
// as the application maps a registry to it, and returns its length.
func systemPromptChars(t *testing.T, extra []Tool) int {
	t.Helper()
	r, err := Compose(extra...)
	if err != nil {
		t.Fatal(err)
	}
	var docs []prompts.Tool
	for _, d := range r.Docs() {
		docs = append(docs, prompts.Tool{Name: d.Name, Description: d.Description, Example: d.Example, Brief: d.Brief})
	}
	return len(prompts.System{Dir: "/work/project", Interactive: true, Tools: docs}.Render())
}

// TestMCPPromptGrowth measures what MCP tools cost in the system prompt:
// a fixed part (the section's header and TOOL_HELP) once, then one line per
// tool, which must stay within maxTokensPerMCPTool.
func TestMCPPromptGrowth(t *testing.T) {
	t.Parallel()
	fixture := fixtureMCPTools(t)
	base := systemPromptChars(t, nil)
	one := systemPromptChars(t, fixture[:1])
	all := systemPromptChars(t, fixture)
	perTool := float64(all-one) / float64(len(fixture)-1) / 4
	firstLine := len("- "+fixture[0].Name()+": "+fixture[0].Doc().Brief+"\n") / 4
	fixed := float64(one-base)/4 - float64(firstLine)
	t.Logf("system prompt: %d tokens without MCP tools; fixed cost of the MCP section and TOOL_HELP: %.0f tokens; %.1f tokens per MCP tool (mean of %d tools)",
		base/4, fixed, perTool, len(fixture))
	if perTool > maxTokensPerMCPTool {
		t.Errorf("an MCP tool costs %.1f tokens of system prompt, want at most %d", perTool, maxTokensPerMCPTool)
	}
	worst := 0
	for _, tool := range fixture {
		line := "- " + tool.Name() + ": " + tool.Doc().Brief + "\n"
		n := len([]rune(line))
		worst = max(worst, n)
		if n > maxTokensPerMCPTool*4 {
			t.Errorf("%s: the line has %d characters, want at most %d: %q", tool.Name(), n, maxTokensPerMCPTool*4, line)
		}
	}
	t.Logf("longest line: %d characters (%d tokens)", worst, (worst+3)/4)
}
