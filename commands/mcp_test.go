package commands

import (
	"strings"
	"testing"
)

// dev mcp connects to the configured servers as a run would and reports
// each; one that fails says why.
func TestMCP(t *testing.T) {
	h := newHome(t)
	r := h.run("mcp").ok(t)
	if r.stdout != "" || !strings.Contains(r.stderr, `no MCP servers in `+h.dir) {
		t.Errorf("no servers: stdout %q, stderr %q", r.stdout, r.stderr)
	}

	h.config(map[string]any{"mcpServers": map[string]any{
		"gone": map[string]any{"command": "/nonexistent/mcp-server"},
		"off":  map[string]any{"command": "/nonexistent/other", "disabled": true},
	}})
	r = h.run("mcp").ok(t)
	for _, want := range []string{"gone (stdio: /nonexistent/mcp-server)\n  failed: ", "off (stdio: /nonexistent/other)\n  disabled\n"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("dev mcp lacks %q:\n%s", want, r.stdout)
		}
	}
}
