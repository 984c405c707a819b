package tools

import (
	"errors"
	"strings"
	"testing"

	"github.com/devagent/dev/parser"
)

func TestParseReply(t *testing.T) {
	t.Parallel()
	reply := func(tool, input string) string {
		return "# Agent Response\n\n## Thoughts\nt\n\n## Tool Choice\n" + tool + "\n\n## Tool Input\n" + input + "\n"
	}
	resp, err := ParseReply(reply("WRITE_FILE", "\"a.txt\"\n```\nhi\n```"), Worker())
	if err != nil || len(resp.Tools) != 1 || resp.Tools[0].Name != WriteFile {
		t.Fatalf("resp %+v err %v", resp, err)
	}
	var fe *parser.FormatError
	_, err = ParseReply(reply("WRITE_FILE", "\"a.txt\" but no block"), Worker())
	if !errors.As(err, &fe) || !strings.HasPrefix(fe.Message, "WRITE_FILE: ") {
		t.Errorf("a malformed input is not a format error naming the tool: %v", err)
	}
	_, err = ParseReply(reply("WRITE_FILE", "\"a.txt\""), NewRegistry(ReadFileTool{}, DoneTool{}))
	if !errors.As(err, &fe) || !strings.Contains(fe.Message, "WRITE_FILE") || !strings.Contains(fe.Message, "READ_FILE") {
		t.Errorf("a tool outside the set is not a format error listing the valid ones: %v", err)
	}
}

func TestResultsMessage(t *testing.T) {
	t.Parallel()
	calls := []parser.ToolCall{{Name: "COMMAND", Input: "false"}, {Name: "READ_FILE"}, {Name: "DONE"}}
	results := []Result{{Tool: Command, OK: false, Output: "exit 1"}}
	got := ResultsMessage(calls, results, "a note")
	want := "<tool_result tool=\"COMMAND\" ok=\"false\">\nexit 1\n</tool_result>\n\nNot run, because COMMAND failed: READ_FILE, DONE.\n\na note"
	if got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	if got := ResultsMessage(calls[:1], []Result{{Tool: Command, OK: true, Output: "ok"}}, ""); strings.Contains(got, "Not run") {
		t.Errorf("%q", got)
	}
}
