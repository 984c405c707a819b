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

// ParseReply reads a reply's content with the tools of set and checks each
// call's input, so that everything the model must fix comes back as one
// *parser.FormatError and nothing runs from a malformed reply.
func ParseReply(content string, set Set) (parser.Response, error) {
	resp, err := parser.Parse(content, set.Names())
	if err != nil {
		return resp, err
	}
	var problems []string
	for _, call := range resp.Tools {
		tool, ok := set.Lookup(call.Name)
		if !ok { // the parser returns only names of set; guard anyway
			problems = append(problems, fmt.Sprintf("unknown tool %q", call.Name))
			continue
		}
		if err := tool.Check(call.Input); err != nil {
			problems = append(problems, fmt.Sprintf("%s: %v", call.Name, err))
		}
	}
	if len(problems) > 0 {
		return resp, &parser.FormatError{Message: strings.Join(problems, "\n")}
	}
	return resp, nil
}
