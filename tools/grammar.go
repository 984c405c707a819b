package tools

import "github.com/devagent/dev/parser"

// Grammar is the reply grammar (SPEC §18) for the tools documented by docs,
// in their order: the template with one of these tools in each Tool
// Choice and each tool's input in its shape. Build it once per run from
// the tools offered there, so that every request of the run carries the
// same bytes.
func Grammar(docs []Doc, opts parser.GrammarOptions) *parser.Grammar {
	offered := make([]parser.GrammarTool, len(docs))
	for i, d := range docs {
		offered[i] = parser.GrammarTool{Name: d.Name, Input: d.Input}
	}
	return parser.ReplyGrammar(offered, opts)
}
