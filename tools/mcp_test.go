package tools

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/devagent/dev/capture"
	"github.com/devagent/dev/mcp"
	"github.com/devagent/dev/mcp/mcptest"
)

// mcpTools connects to the in-process test server (a real one, written
// with the SDK) and returns its tools as protocol tools, by name.
func mcpTools(t *testing.T) map[string]Tool {
	t.Helper()
	hs := mcptest.NewHTTPServer("")
	set := mcp.Connect(context.Background(), []mcp.ServerConfig{{Name: "test", URL: hs.URL}}, mcp.Options{})
	t.Cleanup(func() {
		set.Close()
		hs.Close()
	})
	if w := set.Warnings(); len(w) > 0 {
		t.Fatal(w)
	}
	out := map[string]Tool{}
	for _, tool := range NewMCPTools(set.Tools()) {
		out[tool.Name()] = tool
	}
	return out
}

func TestMCPToolDoc(t *testing.T) {
	t.Parallel()
	echo := mcpTools(t)["test.echo"]
	d := echo.Doc()
	if d.Name != "test.echo" || d.Brief != "Echo the text back." || !strings.Contains(d.Schema, `"text"`) ||
		d.Description != `Tool "echo" of the MCP server "test". `+mcptest.EchoDescription {
		t.Errorf("Doc = %+v", d)
	}
}

func TestMCPToolCheck(t *testing.T) {
	t.Parallel()
	tools := mcpTools(t)
	add := tools["test.add"]
	help := "TOOL_HELP with input test.add shows the tool's input schema"
	tests := []struct {
		input, want string
	}{
		{`{"a": 1, "b": 2}`, ""},
		{"```json\n{\"a\": 1, \"b\": 2}\n```", ""},
		{`{"a": 1}`, `missing required field "b". ` + help},
		{``, `missing required fields "a", "b". ` + help},
		{`{"a": "1", "b": 2}`, `field "a" must be an integer, got string 1. ` + help},
		{`{"a": 1, "b": 2, "c": 3}`, `unknown field "c"; the fields are "a", "b". ` + help},
		{`{"a": 1,` + "\n" + ` "b": }`, `the input is not valid JSON (line 2, column 7: invalid character '}' looking for beginning of value); write one JSON object such as {"a": 1, "b": 1}. ` + help},
		{`[1, 2]`, `the input must be one JSON object such as {"a": 1, "b": 1}, got an array. ` + help},
		{`a=1 b=2`, `the input is not valid JSON (line 1, column 1: invalid character 'a' looking for beginning of value); write one JSON object such as {"a": 1, "b": 1}. ` + help},
	}
	for _, tt := range tests {
		_, err := add.Check(tt.input)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tt.want {
			t.Errorf("Check(%q) =\n%q\nwant\n%q", tt.input, got, tt.want)
		}
	}
	if _, err := tools["test.fail"].Check(""); err != nil {
		t.Errorf("a tool without fields takes an empty input: %v", err)
	}
}

func TestMCPToolRun(t *testing.T) {
	t.Parallel()
	tools := mcpTools(t)
	env := newEnv(t, nil)
	env.CommandTimeout = 5 * time.Second
	tests := []struct {
		tool, input string
		ok          bool
		want        string
	}{
		{"test.echo", `{"text": "line 1\nline 2"}`, true, "line 1\nline 2"},
		{"test.add", `{"a": 40, "b": 2}`, true, "42"},
		{"test.fail", ``, false, "Error: test.fail reported an error:\nthe widget is broken"},
		{"test.media", `{}`, true, "here is a chart\n[image content (image/png, 1.5 KB)]\n[audio content (audio/wav, 10 bytes)]\n" +
			"[resource link: report file:///data/report.csv (text/csv, 2.0 KB)]\n[resource file:///notes.txt (text/plain)]\nembedded note\n" +
			"[resource file:///blob.bin (application/octet-stream, 300 bytes)]"},
		{"test.structured", `{}`, true, `{"answer":42}`},
	}
	for _, tt := range tests {
		r := runTool(t, tools[tt.tool], env, tt.input)
		if r.OK != tt.ok || r.Output != tt.want || r.Tool != tt.tool {
			t.Errorf("%s %s = OK %v %q\nwant %v %q", tt.tool, tt.input, r.OK, r.Output, tt.ok, tt.want)
		}
	}
	r := runTool(t, tools["test.echo"], env, "```json\n{\"text\":  \"hi\"}\n```")
	if r.Command != `test.echo {"text":"hi"}` || r.ExitCode != 0 || r.Summary != `{"text":"hi"}` {
		t.Errorf("evidence: Command %q, ExitCode %d, Summary %q", r.Command, r.ExitCode, r.Summary)
	}
}

func TestMCPToolTimeoutAndApproval(t *testing.T) {
	t.Parallel()
	tools := mcpTools(t)
	env := newEnv(t, nil)
	env.CommandTimeout = 100 * time.Millisecond
	r := runTool(t, tools["test.sleep"], env, "{}")
	if want := `Error: test.sleep: no answer from MCP server "test" within 100 ms; the call was cancelled.`; r.OK || r.Output != want || r.ExitCode != 1 {
		t.Errorf("Run = %+v, want %q", r, want)
	}
	var seen Action
	env.Approve = func(_ context.Context, a Action) Verdict {
		seen = a
		return Verdict{Why: errNotAllowed.Error()}
	}
	r = runTool(t, tools["test.echo"], env, `{"text": "x"}`)
	if r.OK || r.Output != "Refused: "+errNotAllowed.Error() || seen != (Action{Tool: "test.echo", Command: "test.echo", Input: `{"text":"x"}`, MCP: true}) {
		t.Errorf("Run = %+v, Approve saw %+v", r, seen)
	}
}

type guardError string

func (e guardError) Error() string { return string(e) }

const errNotAllowed = guardError("MCP calls are not allowed in unattended mode")

func TestMCPToolLongOutputIsCut(t *testing.T) {
	t.Parallel()
	env := newEnv(t, nil)
	env.CommandTimeout = 5 * time.Second
	long := strings.Repeat("0123456789abcdef\n", 4000)
	r := runTool(t, mcpTools(t)["test.echo"], env, `{"text": "`+strings.ReplaceAll(long, "\n", `\n`)+`"}`)
	if !r.OK || len(r.Output) > capture.OutputHead+capture.OutputTail+300 || !strings.Contains(r.Output, "full output saved in "+env.OutputDir) {
		t.Errorf("OK %v, %d bytes: %q", r.OK, len(r.Output), r.Output[:min(200, len(r.Output))])
	}
}
