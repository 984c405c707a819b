package tools

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// briefTool is a tool the system prompt lists in one line.
type briefTool struct{ name string }

func (b briefTool) Name() string { return b.name }
func (b briefTool) Doc() Doc {
	return Doc{Name: b.name, Description: "Does things. In detail.", Brief: "Does things.", Schema: "{\n  \"type\": \"object\"\n}"}
}
func (b briefTool) Check(input string) (Checked, error) { return Bind(input, AsWritten, b.run) }
func (b briefTool) run(context.Context, *Env, string) Result {
	return Result{Tool: b.name, OK: true}
}

func TestCompose(t *testing.T) {
	t.Parallel()
	custom := NewCustomTool(CustomSpec{Name: "RUN_TESTS", Description: "Runs the tests.", Command: "go test ./..."})
	r, err := Compose(custom)
	if err != nil {
		t.Fatal(err)
	}
	want := append(Worker().Names(), "RUN_TESTS")
	if got := r.Names(); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("without brief tools: %v, want %v (no TOOL_HELP)", got, want)
	}
	r, err = Compose(custom, briefTool{"srv.a"}, briefTool{"srv.b"})
	if err != nil {
		t.Fatal(err)
	}
	want = append(Worker().Names(), "RUN_TESTS", "srv.a", "srv.b", ToolHelp)
	if got := r.Names(); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("Names = %v, want %v", got, want)
	}
	if d := r.Docs()[len(want)-1]; d.Name != ToolHelp || d.Example != "srv.a" {
		t.Errorf("TOOL_HELP doc = %+v, want the first brief tool as its example", d)
	}

	for _, tt := range []struct {
		tools []Tool
		want  string
	}{
		{[]Tool{NewCustomTool(CustomSpec{Name: Command})}, "the tool COMMAND has the name of a built-in tool; rename it"},
		{[]Tool{NewCustomTool(CustomSpec{Name: ToolHelp})}, "the tool TOOL_HELP has the name of a built-in tool; rename it"},
		{[]Tool{custom, custom}, "two tools are named RUN_TESTS; rename one"},
	} {
		_, err := Compose(tt.tools...)
		var ne *NameError
		if !errors.As(err, &ne) || err.Error() != tt.want {
			t.Errorf("Compose(%v) = %v, want %q", tt.tools, err, tt.want)
		}
	}
}

func TestToolHelp(t *testing.T) {
	t.Parallel()
	r, err := Compose(briefTool{"srv.getItem"}, briefTool{"srv.GetItem"}, briefTool{"srv.get-item"}, briefTool{"Srv.Other"})
	if err != nil {
		t.Fatal(err)
	}
	help, _ := r.Lookup(ToolHelp)
	env := newEnv(t, nil)
	tests := []struct {
		input string
		ok    bool
		want  string
	}{
		{"srv.getItem", true, "srv.getItem\nDoes things. In detail.\n\nInput: one JSON object matching this schema:\n```json\n{\n  \"type\": \"object\"\n}\n```"},
		{"`srv.get-item`", true, "srv.get-item\nDoes things. In detail.\n\nInput: one JSON object matching this schema:\n```json\n{\n  \"type\": \"object\"\n}\n```"},
		{"srv.other", true, "Srv.Other\nDoes things. In detail.\n\nInput: one JSON object matching this schema:\n```json\n{\n  \"type\": \"object\"\n}\n```"},
		{"READ_FILE", true, "READ_FILE\n" + ReadFileTool{}.Doc().Description + "\n\nExample input:\n" + ReadFileTool{}.Doc().Example},
		{"read_file", true, "READ_FILE\n"},
		{"srv.GETITEM", false, `Error: there is no tool "srv.GETITEM". The tools are: ` + strings.Join(r.Names(), ", ") + "."},
	}
	for _, tt := range tests {
		res := runTool(t, help, env, tt.input)
		if res.OK != tt.ok || !strings.HasPrefix(res.Output, tt.want) || (tt.ok && tt.input != "read_file" && res.Output != tt.want) {
			t.Errorf("TOOL_HELP %q = %v %q\nwant %v %q", tt.input, res.OK, res.Output, tt.ok, tt.want)
		}
	}
	if _, err := help.Check(""); err == nil || err.Error() != "TOOL_HELP needs a tool name, e.g.:\ngithub.create_issue" {
		t.Errorf("TOOL_HELP without a name: Check = %v", err)
	}
}
