package llm

import (
	"encoding/json"
	"strconv"
	"strings"
)

// Shape is the form in which a request asks the server to shape its reply
// (SPEC §18): a grammar, a JSON schema, or none.
type Shape string

// The forms of a shape.
const (
	ShapeNone    Shape = ""
	ShapeGrammar Shape = "grammar"
	ShapeJSON    Shape = "json"
)

// How a shape reaches each server (SPEC §18): llama.cpp reads GBNF in
// `grammar`; vLLM reads it (through xgrammar, which reads GBNF) in
// `structured_outputs.grammar` from 0.10.2 and in `guided_grammar` before
// (removed in 0.12.0); SGLang in `ebnf`. A vLLM too old or too new for the
// field it is sent does not reject it: it ignores it and constrains
// nothing, so the version from GET /version, not an error, decides. Any
// other server gets llama.cpp's field, which llama.cpp's derivatives read
// too. Ollama and LM Studio read no grammar (Ollama drops the field
// without a word); they, like the others, read a JSON schema in
// response_format.

// Body fields that carry a shape.
const (
	FieldGrammar        = "grammar"
	FieldStructured     = "structured_outputs.grammar"
	FieldGuidedGrammar  = "guided_grammar"
	FieldEBNF           = "ebnf"
	FieldResponseFormat = "response_format"
)

// GrammarField names the body field that carries a grammar to a server of
// kind at version, as dev sends it.
func GrammarField(kind ServerKind, version string) string {
	switch kind {
	case ServerSGLang:
		return FieldEBNF
	case ServerVLLM:
		if v, ok := parseVersion(version); ok && less(v, [3]int{0, 10, 2}) {
			return FieldGuidedGrammar
		}
		// From 0.10.2, and when the version is unknown: the field of current
		// releases (guided_grammar is gone since 0.12.0).
		return FieldStructured
	}
	return FieldGrammar
}

// Schema is a JSON schema a reply must follow, sent as response_format
// {"type": "json_schema", "json_schema": {"name", "strict": true, "schema"}}.
type Schema struct {
	Name   string
	Schema json.RawMessage
}

// shapeFields are the body fields that carry the shape of p.
func shapeFields(p Params) map[string]any {
	switch {
	case p.Grammar != "":
		field := p.GrammarField
		if field == "" {
			field = FieldGrammar
		}
		if outer, inner, nested := strings.Cut(field, "."); nested {
			return map[string]any{outer: map[string]any{inner: p.Grammar}}
		}
		return map[string]any{field: p.Grammar}
	case p.Schema != nil:
		return map[string]any{FieldResponseFormat: map[string]any{"type": "json_schema",
			"json_schema": map[string]any{"name": p.Schema.Name, "strict": true, "schema": p.Schema.Schema}}}
	}
	return nil
}

// ShapeOf is the form of the shape p carries.
func ShapeOf(p Params) Shape {
	switch {
	case p.Grammar != "":
		return ShapeGrammar
	case p.Schema != nil:
		return ShapeJSON
	}
	return ShapeNone
}

// parseVersion reads "0.10.2", "v0.11.0rc1", "0.10.1.dev12+gabc": the first
// three numbers.
func parseVersion(s string) ([3]int, bool) {
	var v [3]int
	s = strings.TrimPrefix(strings.TrimSpace(s), "v")
	parts := strings.SplitN(s, ".", 4)
	if len(parts) < 2 {
		return v, false
	}
	for i := 0; i < 3 && i < len(parts); i++ {
		digits := parts[i]
		end := 0
		for end < len(digits) && '0' <= digits[end] && digits[end] <= '9' {
			end++
		}
		if end == 0 {
			if i < 2 {
				return v, false
			}
			break
		}
		v[i], _ = strconv.Atoi(digits[:end])
	}
	return v, true
}

func less(a, b [3]int) bool {
	for i := range a {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return false
}

// DefaultMaxTokens is the reply cap of a request when maxTokens is not set
// (SPEC §18): a quarter of the context window, at most 16,384 tokens, so
// that no reply runs until the context is full. A reasoning model gets
// twice that: every server dev knows (llama.cpp's n_predict, vLLM, Ollama,
// LM Studio, OpenAI) counts the reasoning in max_tokens. An unknown window
// (0) gets the most.
func DefaultMaxTokens(window int, reasoning bool) int {
	n := maxDefaultTokens
	if window > 0 {
		n = min(window/4, maxDefaultTokens)
	}
	if reasoning {
		n *= 2
	}
	return max(n, 1)
}

const maxDefaultTokens = 16384
