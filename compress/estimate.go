package compress

import "github.com/devagent/dev/llm"

// CharsPerToken is the estimate's ratio where the server gives no count
// (SPEC §5): about four characters of English or code per token.
const CharsPerToken = 4

// Tokens estimates the tokens of chars characters (bytes), rounded up.
func Tokens(chars int) int {
	if chars <= 0 {
		return 0
	}
	return (chars + CharsPerToken - 1) / CharsPerToken
}

// Chars is the size of the messages' contents in bytes.
func Chars(msgs []llm.Message) int {
	n := 0
	for _, m := range msgs {
		n += len(m.Content)
	}
	return n
}

// Estimator estimates the prompt size of the next request (SPEC §5): the
// server's usage.prompt_tokens for the last request, plus four characters
// per token for what was added since; four characters per token throughout
// when the server gave no count. The zero value knows no count.
type Estimator struct {
	tokens int // prompt_tokens of the last request, 0 when unknown
	chars  int // the size of that request's messages
}

// Estimate returns the estimated prompt tokens of msgs, the whole request
// (system prompt included).
func (e *Estimator) Estimate(msgs []llm.Message) int {
	chars := Chars(msgs)
	switch {
	case e.tokens <= 0 || e.chars <= 0:
		return Tokens(chars)
	case chars >= e.chars:
		return e.tokens + Tokens(chars-e.chars)
	default:
		// The history shrank (failed attempts left it): scale the server's
		// count rather than guess which tokens went.
		return int(int64(e.tokens) * int64(chars) / int64(e.chars))
	}
}

// Observe records the server's count for a request that was sent as msgs.
// A count far below what was sent (see Truncated) is not trusted: the
// estimate falls back to characters, and Observe reports the truncation.
// A nil usage (the server gave none, or only zeros) forgets the last count.
func (e *Estimator) Observe(msgs []llm.Message, usage *llm.Usage) (truncated bool) {
	chars := Chars(msgs)
	if usage == nil || usage.PromptTokens <= 0 {
		e.Reset()
		return false
	}
	if Truncated(usage.PromptTokens, Tokens(chars)) {
		e.Reset()
		return true
	}
	e.tokens, e.chars = usage.PromptTokens, chars
	return false
}

// Reset forgets the last count, after the history was replaced.
func (e *Estimator) Reset() { *e = Estimator{} }

// Truncation thresholds: a server count below half of the character
// estimate, and short of it by at least truncationGap tokens, means the
// server did not read the whole prompt. Real tokenizers give at least as
// many tokens as four characters each for code and English, so half is far
// outside their spread; the gap keeps tiny prompts out of it.
const truncationGap = 256

// Truncated reports whether a server that counted promptTokens for a prompt
// estimated at estimate tokens can only have read part of it: Ollama cuts a
// conversation longer than its context silently, and reports what it kept.
func Truncated(promptTokens, estimate int) bool {
	return promptTokens > 0 && promptTokens*2 < estimate && estimate-promptTokens >= truncationGap
}

// Trigger is the prompt size at which the history is compressed: threshold
// (compressThreshold) of window. A window of 0 (unknown) never triggers.
func Trigger(window int, threshold float64) int {
	if window <= 0 {
		return 0
	}
	if threshold <= 0 || threshold > 1 {
		threshold = 1
	}
	return max(1, int(float64(window)*threshold))
}

// Due reports whether a prompt of estimate tokens should be compressed
// first.
func Due(estimate, window int, threshold float64) bool {
	t := Trigger(window, threshold)
	return t > 0 && estimate >= t
}
