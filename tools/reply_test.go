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
