package parser

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestResolveTool(t *testing.T) {
	t.Parallel()
	tests := []struct {
		raw, want string
		lenient   bool
	}{
		{"WRITE_FILE", "WRITE_FILE", false},
		{"  WRITE_FILE  ", "WRITE_FILE", false},
		{"write_file", "WRITE_FILE", true},
		{"`WRITE_FILE`", "WRITE_FILE", true},
		{"**WRITE_FILE**", "WRITE_FILE", true},
		{"Write File", "WRITE_FILE", true},
		{"write-file", "WRITE_FILE", true},
		{"WRITE_FILE.", "WRITE_FILE", true},
		{"WRITE_FILE:", "WRITE_FILE", true},
		{"WRITE_FILE()", "WRITE_FILE", true},
		{"Write  _ File", "WRITE_FILE", true},
		{"list directory", "LIST_DIRECTORY", true},
		{"list background processes", "LIST_BACKGROUND_PROCESSES", true},
		{"READ_FILE to check main.go", "READ_FILE", true},
		{"`DONE` - all finished", "DONE", true},
		{"", "", false},
		{"WRITE", "", false},
		{"LIST", "", false},
		{"WRITEFILE", "", false},
		{"**", "", false},
	}
	for _, tt := range tests {
		got, lenient, ok, ambiguous := resolveTool(tt.raw, testTools)
		if got != tt.want || lenient != tt.lenient || ok != (tt.want != "") || ambiguous != nil {
			t.Errorf("resolveTool(%q) = %q, %v, %v, %q; want %q, %v, %v", tt.raw, got, lenient, ok, ambiguous, tt.want, tt.lenient, tt.want != "")
		}
	}
}

// MCP tools are named SERVER.TOOL, case-sensitive, with '-' and '_'.
func TestResolveMCPTool(t *testing.T) {
	t.Parallel()
	names := append(append([]string(nil), testTools...),
		"github.create_issue", "github.list-issues", "fs.read_file", "db.getItem", "db.get_item", "db.GetItem", "x.a")
	tests := []struct {
		raw, want string
		lenient   bool
		ambiguous []string
	}{
		{"github.create_issue", "github.create_issue", false, nil},
		{"`github.create_issue`", "github.create_issue", true, nil},
		{"**github.create_issue**", "github.create_issue", true, nil},
		{"GitHub.Create_Issue", "github.create_issue", true, nil},
		{"github.create-issue", "github.create_issue", true, nil},
		{"github.create issue", "github.create_issue", true, nil},
		{"github.create_issue.", "github.create_issue", true, nil},
		{"github.create_issue with the title below", "github.create_issue", true, nil},
		{"github.list-issues", "github.list-issues", false, nil},
		{"github.list_issues", "github.list-issues", true, nil},
		{"fs.read_file", "fs.read_file", false, nil},
		{"READ_FILE", "READ_FILE", false, nil},
		{"db.getItem", "db.getItem", false, nil},
		{"db.get_item", "db.get_item", false, nil},
		{"db.GetItem", "db.GetItem", false, nil},
		{"db.getitem", "", false, []string{"db.getItem", "db.GetItem"}},
		{"DB.GET-ITEM", "db.get_item", true, nil},
		{"x.a", "x.a", false, nil},
		{"github", "", false, nil},
		{"create_issue", "", false, nil},
		{"github_create_issue", "", false, nil},
	}
	for _, tt := range tests {
		got, lenient, ok, ambiguous := resolveTool(tt.raw, names)
		if got != tt.want || lenient != tt.lenient || ok != (tt.want != "") || strings.Join(ambiguous, ",") != strings.Join(tt.ambiguous, ",") {
			t.Errorf("resolveTool(%q) = %q, %v, %v, %q; want %q, %v, %v, %q", tt.raw, got, lenient, ok, ambiguous, tt.want, tt.lenient, tt.want != "", tt.ambiguous)
		}
	}
}

func TestClassify(t *testing.T) {
	t.Parallel()
	tests := []struct {
		text string
		want class
	}{
		{"Tool Choice", class{kind: secToolChoice}},
		{"**Tool Choice:**", class{kind: secToolChoice, colon: true}},
		{"tool_choice", class{kind: secToolChoice}},
		{"ToolChoice", class{kind: secToolChoice}},
		{"TOOL CHOICE: DONE", class{kind: secToolChoice, rest: "DONE", colon: true}},
		{"**Tool Choice:** `WRITE_FILE`", class{kind: secToolChoice, rest: "WRITE_FILE`", colon: true}},
		{"Tool Choice DONE", class{kind: secToolChoice, rest: "DONE"}},
		{"`Tool Input`:", class{kind: secToolInput, colon: true}},
		{"Agent Response", class{kind: secAgentResponse}},
		{"Thought", class{kind: secThoughts}},
		{"Thoughts on the bug", class{kind: secThoughts, rest: "on the bug"}},
		{"Tasks", class{kind: secTaskList}},
		{"Task-List (updated)", class{kind: secTaskList, rest: "(updated)"}},
		{"Thoughtful", class{kind: secOther}},
		{"Tool Inputs", class{kind: secOther}},
		{"Usage", class{kind: secOther}},
		{"", class{kind: secOther}},
	}
	for _, tt := range tests {
		if got := classify(tt.text); got != tt.want {
			t.Errorf("classify(%q) = %+v, want %+v", tt.text, got, tt.want)
		}
	}
}

func TestParseMCPToolCalls(t *testing.T) {
	t.Parallel()
	names := append(append([]string(nil), testTools...), "github.create_issue", "db.getItem", "db.GetItem")
	reply := "# Agent Response\n\n## Thoughts\nFile it.\n\n## Task List\n[~] file the issue\n\n" +
		"## Tool Choice\n**GitHub.create_issue**\n\n## Tool Input\n```json\n{\"title\": \"Crash on start\"}\n```\n\n" +
		"## Tool Choice\ngithub.create_issue\n\n## Tool Input\n{\"title\": \"Second\"}\n"
	r, err := Parse(reply, names)
	if err != nil {
		t.Fatal(err)
	}
	want := []ToolCall{
		{Name: "github.create_issue", Input: "```json\n{\"title\": \"Crash on start\"}\n```"},
		{Name: "github.create_issue", Input: "{\"title\": \"Second\"}"},
	}
	if !reflect.DeepEqual(r.Tools, want) {
		t.Errorf("Tools = %q, want %q", r.Tools, want)
	}
	if len(r.Warnings) != 1 || r.Warnings[0] != `Read the tool name "**GitHub.create_issue**" as github.create_issue.` {
		t.Errorf("Warnings = %q", r.Warnings)
	}
	// The template stored in history parses back to the same calls.
	if again, err := Parse(r.Template(), names); err != nil || !reflect.DeepEqual(again.Tools, want) || len(again.Warnings) != 0 {
		t.Errorf("Parse(Template()) = %q, %q, %v", again.Tools, again.Warnings, err)
	}

	_, err = Parse("# Agent Response\n\n## Thoughts\nx\n\n## Tool Choice\ndb.getitem\n\n## Tool Input\n{}\n", names)
	var fe *FormatError
	if !errors.As(err, &fe) || !strings.HasPrefix(fe.Message, `The tool name "db.getitem" under `+"`## Tool Choice`"+` fits several tools (db.getItem, db.GetItem): write the name exactly.`) {
		t.Errorf("ambiguous name: %v", err)
	}
}
