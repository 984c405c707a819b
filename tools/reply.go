package tools

import (
	"fmt"
	"strings"

	"github.com/devagent/dev/parser"
)

// Set is the tools a conversation may call.
type Set interface {
	Names() []string
	Lookup(name string) (Tool, bool)
}

// Reply is a reply read with the tools of a set: the response, and its
// tool calls, each with its input as its tool's Check read it, ready to
// run.
type Reply struct {
	parser.Response
	Calls []Call // the calls of Response.Tools, in order
}

// Call is one tool call of a reply: as written, and as its tool read it.
type Call struct {
	parser.ToolCall
	Checked
}

// ParseReply reads a reply's content with the tools of set and checks each
// call's input, so that everything the model must fix comes back as one
// *parser.FormatError and nothing runs from a malformed reply.
func ParseReply(content string, set Set) (Reply, error) {
	resp, err := parser.Parse(content, set.Names())
	if err != nil {
		return Reply{Response: resp}, err
	}
	reply := Reply{Response: resp, Calls: make([]Call, 0, len(resp.Tools))}
	var problems []string
	for _, call := range resp.Tools {
		tool, ok := set.Lookup(call.Name)
		if !ok { // the parser returns only names of set; guard anyway
			problems = append(problems, fmt.Sprintf("unknown tool %q", call.Name))
			continue
		}
		checked, err := tool.Check(call.Input)
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s: %v", call.Name, err))
			continue
		}
		reply.Calls = append(reply.Calls, Call{ToolCall: call, Checked: checked})
	}
	if len(problems) > 0 {
		return reply, &parser.FormatError{Message: strings.Join(problems, "\n")}
	}
	return reply, nil
}
