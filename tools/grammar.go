package tools

import "github.com/devagent/dev/parser"

// Shaped are the tools documented by docs as the shapes of a reply (SPEC
// §18: the grammar and the JSON form) offer them, in their order.
func Shaped(docs []Doc) []parser.GrammarTool {
	offered := make([]parser.GrammarTool, len(docs))
	for i, d := range docs {
		offered[i] = parser.GrammarTool{Name: d.Name, Input: d.Input}
	}
	return offered
}

// Grammar is the reply grammar (SPEC §18) for the tools documented by docs,
// in their order: the template with one of these tools in each Tool
// Choice and each tool's input in its shape.
func Grammar(docs []Doc, opts parser.GrammarOptions) *parser.Grammar {
	return parser.ReplyGrammar(Shaped(docs), opts)
}
