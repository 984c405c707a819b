package parser

import "testing"

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
		got, lenient, ok := resolveTool(tt.raw, testTools)
		if got != tt.want || lenient != tt.lenient || ok != (tt.want != "") {
			t.Errorf("resolveTool(%q) = %q, %v, %v; want %q, %v, %v", tt.raw, got, lenient, ok, tt.want, tt.lenient, tt.want != "")
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
