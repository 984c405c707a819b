package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
)

// CustomTool is an entry of "tools" (SPEC §15): a protocol tool that runs a
// shell command, its input on stdin and in $DEV_TOOL_INPUT.
type CustomTool struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Command     string `json:"command"`
	// Timeout is the seconds before the command moves to the background;
	// 0 means commandTimeout.
	Timeout int `json:"timeout,omitempty"`
}

// MCPServer is an entry of "mcpServers", in the shape other MCP clients
// use: Command (with Args and Env) for a stdio server, or URL (with
// Headers) for Streamable HTTP.
type MCPServer struct {
	// Type is optional, as in other clients: "stdio", or "http" (also
	// written "streamable-http" or "streamableHttp").
	Type     string            `json:"type,omitempty"`
	Command  string            `json:"command,omitempty"`
	Args     []string          `json:"args,omitempty"`
	Env      map[string]string `json:"env,omitempty"`
	URL      string            `json:"url,omitempty"`
	Headers  map[string]string `json:"headers,omitempty"`
	Disabled bool              `json:"disabled,omitempty"` // as in Cline's configuration: kept but not started
}

// HTTP reports whether the server is reached over Streamable HTTP.
func (s MCPServer) HTTP() bool { return s.URL != "" }

// decodeTools reads "tools" entry by entry, so that an error says which
// entry and which field, and unknown fields become warnings.
func decodeTools(path string, raw json.RawMessage) ([]CustomTool, []string, string) {
	if isNull(raw) {
		return []CustomTool{}, nil, ""
	}
	var entries []json.RawMessage
	if err := json.Unmarshal(raw, &entries); err != nil {
		return nil, nil, "must be an array of objects such as " + toolExample + ", got " + describeValue(raw)
	}
	var warnings []string
	out := make([]CustomTool, 0, len(entries))
	for i, e := range entries {
		where := fmt.Sprintf("entry %d", i+1)
		var t CustomTool
		w, reason := decodeEntry(path, "tools", where, e, &t)
		if reason != "" {
			return nil, nil, reason
		}
		warnings = append(warnings, w...)
		out = append(out, t)
	}
	return out, warnings, ""
}

const toolExample = `{"name": "RUN_TESTS", "description": "Run the tests.", "command": "go test ./..."}`

// decodeMCPServers reads "mcpServers" server by server.
func decodeMCPServers(path string, raw json.RawMessage) (map[string]MCPServer, []string, string) {
	if isNull(raw) {
		return map[string]MCPServer{}, nil, ""
	}
	var entries map[string]json.RawMessage
	if err := json.Unmarshal(raw, &entries); err != nil {
		return nil, nil, `must be an object mapping names to servers, such as {"github": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"]}}, got ` + describeValue(raw)
	}
	var warnings []string
	out := make(map[string]MCPServer, len(entries))
	names := make([]string, 0, len(entries))
	for name := range entries {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		var s MCPServer
		w, reason := decodeEntry(path, "mcpServers", fmt.Sprintf("server %q", name), entries[name], &s)
		if reason != "" {
			return nil, nil, reason
		}
		warnings = append(warnings, w...)
		out[name] = s
	}
	return out, warnings, ""
}

// decodeEntry decodes one object of key into dst (a *CustomTool or
// *MCPServer) field by field.
func decodeEntry(path, key, where string, raw json.RawMessage, dst any) (warnings []string, reason string) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil || isNull(raw) {
		return nil, fmt.Sprintf("%s must be an object, got %s", where, describeValue(raw))
	}
	known := jsonKeys(reflect.TypeOf(dst).Elem())
	names := make([]string, 0, len(fields))
	for name := range fields {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		v := fields[name]
		if !slices.Contains(known, name) {
			w := fmt.Sprintf("%s: %q %s: unknown key %q (ignored)", path, key, where, name)
			if s := closestKey(name, known); s != "" {
				w = fmt.Sprintf("%s: %q %s: unknown key %q (did you mean %q?)", path, key, where, name, s)
			}
			warnings = append(warnings, w)
			continue
		}
		one, _ := json.Marshal(map[string]json.RawMessage{name: v})
		if err := json.Unmarshal(one, dst); err != nil {
			return nil, fmt.Sprintf("%s: %q must be %s, got %s", where, name, fieldKind(name), describeValue(v))
		}
	}
	return warnings, ""
}

func fieldKind(name string) string {
	switch name {
	case "args":
		return "an array of strings"
	case "env", "headers":
		return "an object of strings"
	case "timeout":
		return "an integer (seconds)"
	case "disabled":
		return "true or false"
	}
	return "a string"
}

func isNull(raw json.RawMessage) bool { return bytes.Equal(bytes.TrimSpace(raw), []byte("null")) }

var (
	// upperSnake is a custom tool's name, like the built-in tools'.
	upperSnake = regexp.MustCompile(`^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$`)
	// serverName keeps SERVER.TOOL unambiguous: no dot in the server's part.
	serverName = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)
)

// validateTools checks the custom tools; that a name is not a built-in
// tool's is for the tools package, which knows them.
func validateTools(tools []CustomTool) (reason string) {
	seen := map[string]int{}
	for i, t := range tools {
		where := fmt.Sprintf("entry %d", i+1)
		if t.Name != "" {
			where = fmt.Sprintf("entry %d (%q)", i+1, t.Name)
		}
		switch {
		case t.Name == "":
			return where + ": \"name\" is missing"
		case !upperSnake.MatchString(t.Name):
			return fmt.Sprintf("%s: \"name\" must be UPPER_SNAKE_CASE like the built-in tools (e.g. %q)", where, suggestUpperSnake(t.Name))
		case seen[t.Name] > 0:
			return fmt.Sprintf("%s: the name is already used by entry %d", where, seen[t.Name])
		case strings.TrimSpace(t.Description) == "":
			return where + ": \"description\" is missing (the model reads it to know when to use the tool)"
		case strings.TrimSpace(t.Command) == "":
			return where + ": \"command\" is missing"
		case t.Timeout < 0:
			return fmt.Sprintf("%s: \"timeout\" must be 0 (commandTimeout) or more seconds, got %d", where, t.Timeout)
		}
		seen[t.Name] = i + 1
	}
	return ""
}

func suggestUpperSnake(name string) string {
	s := strings.ToUpper(strings.Trim(regexp.MustCompile(`[^A-Za-z0-9]+`).ReplaceAllString(name, "_"), "_"))
	if s == "" || s[0] >= '0' && s[0] <= '9' {
		s = "TOOL_" + s
	}
	return s
}

// validateMCPServers checks each server's shape.
func validateMCPServers(servers map[string]MCPServer) (reason string) {
	names := make([]string, 0, len(servers))
	for name := range servers {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		s := servers[name]
		where := fmt.Sprintf("server %q", name)
		if !serverName.MatchString(name) {
			return where + ": a server name has 1 to 64 letters, digits, '_' or '-' (its tools are named SERVER.TOOL)"
		}
		typ := strings.ToLower(s.Type)
		switch typ {
		case "", "stdio", "http", "streamable-http", "streamablehttp":
		case "sse":
			return where + ": the SSE transport is not supported; give the server's Streamable HTTP URL (\"url\") instead"
		default:
			return fmt.Sprintf("%s: \"type\" must be \"stdio\" or \"http\", got %q", where, s.Type)
		}
		switch {
		case s.Command != "" && s.URL != "":
			return where + ": give either \"command\" (stdio) or \"url\" (Streamable HTTP), not both"
		case s.Command == "" && s.URL == "":
			return where + ": \"command\" (stdio) or \"url\" (Streamable HTTP) is missing"
		case s.URL != "" && typ == "stdio":
			return where + ": \"type\" is \"stdio\" but the server has a \"url\"; stdio servers have a \"command\""
		case s.Command != "" && typ != "" && typ != "stdio":
			return fmt.Sprintf("%s: \"type\" is %q but the server has a \"command\"; HTTP servers have a \"url\"", where, s.Type)
		case s.URL != "" && !isHTTPURL(s.URL) && !strings.Contains(s.URL, "${"):
			return fmt.Sprintf("%s: \"url\" must be an http(s) URL, got %q", where, s.URL)
		case s.URL == "" && (len(s.Headers) > 0):
			return where + ": \"headers\" apply to HTTP servers only; stdio servers take \"env\""
		case s.URL != "" && (len(s.Args) > 0 || len(s.Env) > 0):
			return where + ": \"args\" and \"env\" apply to stdio servers only; HTTP servers take \"headers\""
		}
	}
	return ""
}
