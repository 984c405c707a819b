package llm

import (
	"strconv"
	"strings"
)

// How a grammar reaches each server (SPEC §18): llama.cpp reads GBNF in
// `grammar`; vLLM reads it (through xgrammar, which reads GBNF) in
// `structured_outputs.grammar` from 0.10.2 and in `guided_grammar` before
// (removed in 0.12.0). A vLLM too old or too new for the field it is sent
// does not reject it: it ignores it and constrains nothing, so the version
// from GET /version, not an error, decides. Any other server (constrain:
// on) gets llama.cpp's field, which llama.cpp's derivatives read too.

// GrammarServer reports whether constrain "auto" shapes the replies of a
// server of kind: the servers known to apply a GBNF grammar.
func GrammarServer(kind ServerKind) bool {
	return kind == ServerLlamaCpp || kind == ServerVLLM
}

// GrammarField names the body field that carries the grammar to a server
// of kind at version, as dev sends it: "grammar",
// "structured_outputs.grammar" or "guided_grammar".
func GrammarField(kind ServerKind, version string) string {
	if kind != ServerVLLM {
		return "grammar"
	}
	if v, ok := parseVersion(version); ok && less(v, [3]int{0, 10, 2}) {
		return "guided_grammar"
	}
	// From 0.10.2, and when the version is unknown: the field of current
	// releases (guided_grammar is gone since 0.12.0).
	return "structured_outputs.grammar"
}

// grammarFields are the body fields that carry grammar g.
func grammarFields(kind ServerKind, version, g string) map[string]any {
	field := GrammarField(kind, version)
	if outer, inner, nested := strings.Cut(field, "."); nested {
		return map[string]any{outer: map[string]any{inner: g}}
	}
	return map[string]any{field: g}
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

// ThinkBlock says whether the reply grammar lets a <think> block come
// first, and how many characters it may hold (0: any). SPEC §18: unless
// thinking is off, a model may reason inline (llama.cpp applies the
// grammar to the reasoning too). A model asked to think, or whose chat
// template reasons (thinking auto), may think as long as it likes; any
// other gets a short block: shown the way in, a small model takes it and
// would spend its whole reply cap there.
func ThinkBlock(t Thinking, info ServerInfo) (allow bool, maxChars int) {
	switch {
	case t == ThinkingOff:
		return false, 0
	case t == ThinkingAuto && !info.Reasoning:
		return true, ShortThinkChars
	}
	return true, 0
}

// ShortThinkChars bounds the <think> block of a model not known to reason:
// about 200 tokens.
const ShortThinkChars = 800

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
