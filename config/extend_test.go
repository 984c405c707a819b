package config

import (
	"reflect"
	"strings"
	"testing"
)

// A configuration pasted from another MCP client, with custom tools.
const extensionConfig = `{
  "tools": [
    {"name": "RUN_TESTS", "description": "Run the test suite.", "command": "go test ./...", "timeout": 120},
    {"name": "LINT", "description": "Lint the code.", "command": "golangci-lint run"}
  ],
  "mcpServers": {
    "github": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-github"],
      "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "${GITHUB_TOKEN}"}
    },
    "docs": {"type": "http", "url": "https://mcp.example.com/mcp", "headers": {"Authorization": "Bearer x"}},
    "old": {"command": "old-server", "disabled": true}
  }
}`

func TestLoadExtensions(t *testing.T) {
	t.Parallel()
	cfg, warnings, err := Load(writeConfig(t, extensionConfig), noEnv, Flags{})
	if err != nil || len(warnings) != 0 {
		t.Fatalf("Load = %v, warnings %q", err, warnings)
	}
	wantTools := []CustomTool{
		{Name: "RUN_TESTS", Description: "Run the test suite.", Command: "go test ./...", Timeout: 120},
		{Name: "LINT", Description: "Lint the code.", Command: "golangci-lint run"},
	}
	if !reflect.DeepEqual(cfg.Tools, wantTools) {
		t.Errorf("tools = %+v", cfg.Tools)
	}
	wantServers := map[string]MCPServer{
		"github": {Command: "npx", Args: []string{"-y", "@modelcontextprotocol/server-github"},
			Env: map[string]string{"GITHUB_PERSONAL_ACCESS_TOKEN": "${GITHUB_TOKEN}"}},
		"docs": {Type: "http", URL: "https://mcp.example.com/mcp", Headers: map[string]string{"Authorization": "Bearer x"}},
		"old":  {Command: "old-server", Disabled: true},
	}
	if !reflect.DeepEqual(cfg.MCPServers, wantServers) {
		t.Errorf("mcpServers = %+v", cfg.MCPServers)
	}
	if !cfg.MCPServers["docs"].HTTP() || cfg.MCPServers["github"].HTTP() {
		t.Error("HTTP() does not tell the transports apart")
	}
}

func TestLoadExtensionsNull(t *testing.T) {
	t.Parallel()
	cfg, _, err := Load(writeConfig(t, `{"tools": null, "mcpServers": null}`), noEnv, Flags{})
	if err != nil || cfg.Tools == nil || len(cfg.Tools) != 0 || cfg.MCPServers == nil || len(cfg.MCPServers) != 0 {
		t.Errorf("Load = %+v, %v; want empty, non-nil tools and servers", cfg, err)
	}
}

func TestLoadExtensionTypeErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		content, key, reason string
	}{
		{`{"tools": {}}`, "tools", `must be an array of objects such as ` + toolExample + `, got an object`},
		{`{"tools": ["RUN"]}`, "tools", `entry 1 must be an object, got string "RUN"`},
		{`{"tools": [{"name": "A", "timeout": "5"}]}`, "tools", `entry 1: "timeout" must be an integer (seconds), got string "5"`},
		{`{"tools": [{"name": 5}]}`, "tools", `entry 1: "name" must be a string, got number 5`},
		{`{"mcpServers": []}`, "mcpServers", `must be an object mapping names to servers, such as {"github": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"]}}, got an array`},
		{`{"mcpServers": {"gh": "npx"}}`, "mcpServers", `server "gh" must be an object, got string "npx"`},
		{`{"mcpServers": {"gh": null}}`, "mcpServers", `server "gh" must be an object, got null`},
		{`{"mcpServers": {"gh": {"command": "npx", "args": "-y"}}}`, "mcpServers", `server "gh": "args" must be an array of strings, got string "-y"`},
		{`{"mcpServers": {"gh": {"command": "npx", "env": {"A": 1}}}}`, "mcpServers", `server "gh": "env" must be an object of strings, got an object`},
		{`{"mcpServers": {"gh": {"url": "http://h", "headers": []}}}`, "mcpServers", `server "gh": "headers" must be an object of strings, got an array`},
		{`{"mcpServers": {"gh": {"command": "x", "disabled": "yes"}}}`, "mcpServers", `server "gh": "disabled" must be true or false, got string "yes"`},
	}
	for _, tt := range tests {
		t.Run(tt.content, func(t *testing.T) {
			t.Parallel()
			ce, path := loadError(t, tt.content, noEnv)
			col := strings.Index(tt.content, ": ") + 3
			want := &Error{Path: path, Key: tt.key, Line: 1, Column: col, Reason: tt.reason}
			if !reflect.DeepEqual(ce, want) {
				t.Errorf("error = %#v\nwant %#v", ce, want)
			}
		})
	}
}

func TestLoadExtensionValidation(t *testing.T) {
	t.Parallel()
	tool := func(fields string) string { return `{"tools": [` + fields + `]}` }
	server := func(name, fields string) string { return `{"mcpServers": {"` + name + `": ` + fields + `}}` }
	ok := `{"name": "OK", "description": "d", "command": "true"}`
	tests := []struct {
		content, key, reason string
	}{
		{tool(`{"description": "d", "command": "c"}`), "tools", `entry 1: "name" is missing`},
		{tool(`{"name": "run-tests", "description": "d", "command": "c"}`), "tools", `entry 1 ("run-tests"): "name" must be UPPER_SNAKE_CASE like the built-in tools (e.g. "RUN_TESTS")`},
		{tool(`{"name": "RunTests", "description": "d", "command": "c"}`), "tools", `entry 1 ("RunTests"): "name" must be UPPER_SNAKE_CASE like the built-in tools (e.g. "RUNTESTS")`},
		{tool(`{"name": "2FA", "description": "d", "command": "c"}`), "tools", `entry 1 ("2FA"): "name" must be UPPER_SNAKE_CASE like the built-in tools (e.g. "TOOL_2FA")`},
		{tool(ok + `, ` + ok), "tools", `entry 2 ("OK"): the name is already used by entry 1`},
		{tool(`{"name": "A", "command": "c"}`), "tools", `entry 1 ("A"): "description" is missing (the model reads it to know when to use the tool)`},
		{tool(`{"name": "A", "description": "d", "command": " "}`), "tools", `entry 1 ("A"): "command" is missing`},
		{tool(`{"name": "A", "description": "d", "command": "c", "timeout": -1}`), "tools", `entry 1 ("A"): "timeout" must be 0 (commandTimeout) or more seconds, got -1`},
		{server("git.hub", `{"command": "x"}`), "mcpServers", `server "git.hub": a server name has 1 to 64 letters, digits, '_' or '-' (its tools are named SERVER.TOOL)`},
		{server("", `{"command": "x"}`), "mcpServers", `server "": a server name has 1 to 64 letters, digits, '_' or '-' (its tools are named SERVER.TOOL)`},
		{server("gh", `{}`), "mcpServers", `server "gh": "command" (stdio) or "url" (Streamable HTTP) is missing`},
		{server("gh", `{"command": "x", "url": "http://h"}`), "mcpServers", `server "gh": give either "command" (stdio) or "url" (Streamable HTTP), not both`},
		{server("gh", `{"type": "sse", "url": "http://h/sse"}`), "mcpServers", `server "gh": the SSE transport is not supported; give the server's Streamable HTTP URL ("url") instead`},
		{server("gh", `{"type": "websocket", "url": "ws://h"}`), "mcpServers", `server "gh": "type" must be "stdio" or "http", got "websocket"`},
		{server("gh", `{"type": "stdio", "url": "http://h"}`), "mcpServers", `server "gh": "type" is "stdio" but the server has a "url"; stdio servers have a "command"`},
		{server("gh", `{"type": "http", "command": "x"}`), "mcpServers", `server "gh": "type" is "http" but the server has a "command"; HTTP servers have a "url"`},
		{server("gh", `{"url": "localhost:3000/mcp"}`), "mcpServers", `server "gh": "url" must be an http(s) URL, got "localhost:3000/mcp"`},
		{server("gh", `{"command": "x", "headers": {"A": "b"}}`), "mcpServers", `server "gh": "headers" apply to HTTP servers only; stdio servers take "env"`},
		{server("gh", `{"url": "http://h", "env": {"A": "b"}}`), "mcpServers", `server "gh": "args" and "env" apply to stdio servers only; HTTP servers take "headers"`},
	}
	for _, tt := range tests {
		t.Run(tt.content, func(t *testing.T) {
			t.Parallel()
			ce, path := loadError(t, tt.content, noEnv)
			col := strings.Index(tt.content, ": ") + 3
			want := &Error{Path: path, Key: tt.key, Line: 1, Column: col, Reason: tt.reason}
			if !reflect.DeepEqual(ce, want) {
				t.Errorf("error = %#v\nwant %#v", ce, want)
			}
		})
	}
}

func TestLoadExtensionAcceptsOtherSpellings(t *testing.T) {
	t.Parallel()
	for _, typ := range []string{"stdio", "http", "streamable-http", "streamableHttp", "HTTP"} {
		fields := `{"type": "` + typ + `", "url": "http://h/mcp"}`
		if typ == "stdio" {
			fields = `{"type": "stdio", "command": "x"}`
		}
		if _, _, err := Load(writeConfig(t, `{"mcpServers": {"s": `+fields+`}}`), noEnv, Flags{}); err != nil {
			t.Errorf("type %q: %v", typ, err)
		}
	}
	// A URL may come whole from the environment.
	if _, _, err := Load(writeConfig(t, `{"mcpServers": {"s": {"url": "${MCP_URL}"}}}`), noEnv, Flags{}); err != nil {
		t.Errorf("url from a variable: %v", err)
	}
}

func TestLoadExtensionWarnsAboutUnknownFields(t *testing.T) {
	t.Parallel()
	dir := writeConfig(t, `{
  "tools": [{"name": "A", "description": "d", "comand": "x", "command": "c"}],
  "mcpServers": {"gh": {"command": "npx", "alwaysAllow": ["x"], "arg": ["y"]}}
}`)
	cfg, warnings, err := Load(dir, noEnv, Flags{})
	if err != nil {
		t.Fatal(err)
	}
	p := Path(dir)
	want := []string{
		p + `: "tools" entry 1: unknown key "comand" (did you mean "command"?)`,
		p + `: "mcpServers" server "gh": unknown key "alwaysAllow" (ignored)`,
		p + `: "mcpServers" server "gh": unknown key "arg" (did you mean "args"?)`,
	}
	if !reflect.DeepEqual(warnings, want) {
		t.Errorf("warnings =\n%s\nwant\n%s", strings.Join(warnings, "\n"), strings.Join(want, "\n"))
	}
	if cfg.Tools[0].Command != "c" || cfg.MCPServers["gh"].Command != "npx" {
		t.Errorf("cfg = %+v", cfg)
	}
}
