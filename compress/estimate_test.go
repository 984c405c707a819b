package compress

import (
	"strings"
	"testing"

	"github.com/devagent/dev/llm"
)

func msgs(contents ...string) []llm.Message {
	out := make([]llm.Message, len(contents))
	for i, c := range contents {
		role := llm.RoleUser
		if i%2 == 1 {
			role = llm.RoleAssistant
		}
		out[i] = llm.Message{Role: role, Content: c}
	}
	return out
}

func TestTokens(t *testing.T) {
	t.Parallel()
	for chars, want := range map[int]int{0: 0, -5: 0, 1: 1, 4: 1, 5: 2, 4000: 1000} {
		if got := Tokens(chars); got != want {
			t.Errorf("Tokens(%d) = %d, want %d", chars, got, want)
		}
	}
}

func TestEstimatorWithoutUsageCountsCharacters(t *testing.T) {
	t.Parallel()
	var e Estimator
	h := msgs(strings.Repeat("a", 400), strings.Repeat("b", 400))
	if got := e.Estimate(h); got != 200 {
		t.Errorf("estimate = %d, want 800 chars / 4 = 200", got)
	}
	if e.Observe(h, nil) {
		t.Error("no usage reported as truncation")
	}
	if got := e.Estimate(append(h, llm.Message{Role: llm.RoleUser, Content: strings.Repeat("c", 40)})); got != 210 {
		t.Errorf("estimate after adding 40 chars without usage = %d, want 210", got)
	}
}

func TestEstimatorUsesTheServersCountPlusWhatWasAdded(t *testing.T) {
	t.Parallel()
	var e Estimator
	h := msgs(strings.Repeat("a", 4000), strings.Repeat("b", 4000)) // 2000 by characters
	e.Observe(h, &llm.Usage{PromptTokens: 2600})
	if got := e.Estimate(h); got != 2600 {
		t.Errorf("estimate of what was sent = %d, want the server's 2600", got)
	}
	h = append(h, llm.Message{Role: llm.RoleUser, Content: strings.Repeat("c", 400)})
	if got := e.Estimate(h); got != 2700 {
		t.Errorf("estimate after adding 400 chars = %d, want 2600 + 100", got)
	}
	// The history shrank (a failed attempt left it): the count is scaled.
	if got := e.Estimate(h[:1]); got != 1300 {
		t.Errorf("estimate of half the history = %d, want 1300", got)
	}
	// A server that stops counting: back to characters.
	e.Observe(h, nil)
	if got := e.Estimate(h); got != 2100 {
		t.Errorf("estimate after a reply without usage = %d, want 8400/4", got)
	}
}

func TestEstimatorDistrustsATruncatedCount(t *testing.T) {
	t.Parallel()
	var e Estimator
	h := msgs(strings.Repeat("a", 40000)) // 10000 by characters
	if !e.Observe(h, &llm.Usage{PromptTokens: 4096}) {
		t.Fatal("4096 tokens counted for ~10000 sent is not reported as truncation")
	}
	if got := e.Estimate(h); got != 10000 {
		t.Errorf("estimate after a truncated count = %d, want the character estimate 10000", got)
	}
}

func TestTruncated(t *testing.T) {
	t.Parallel()
	cases := []struct {
		prompt, estimate int
		want             bool
	}{
		{4096, 10000, true},
		{2048, 30000, true},
		{0, 30000, false},    // no count is not a truncation (LM Studio's zeros)
		{6000, 10000, false}, // a denser tokenizer, within reason
		{100, 300, false},    // tiny prompts: too little to tell
		{256, 605, true},     // Ollama 0.17.4 with a 256-token window, as captured
		{5000, 5000, false},
		{9000, 5000, false},
	}
	for _, c := range cases {
		if got := Truncated(c.prompt, c.estimate); got != c.want {
			t.Errorf("Truncated(%d, %d) = %v, want %v", c.prompt, c.estimate, got, c.want)
		}
	}
}

func TestTrigger(t *testing.T) {
	t.Parallel()
	if got := Trigger(8192, 0.85); got != 6963 {
		t.Errorf("Trigger(8192, 0.85) = %d, want 6963", got)
	}
	if got := Trigger(0, 0.85); got != 0 {
		t.Errorf("an unknown window triggers at %d", got)
	}
	if Due(100000, 0, 0.85) {
		t.Error("compression due with an unknown window")
	}
	if !Due(6963, 8192, 0.85) || Due(6962, 8192, 0.85) {
		t.Error("Due is not estimate >= threshold × window")
	}
	if got := Trigger(1000, 7); got != 1000 {
		t.Errorf("a threshold above 1 triggers at %d, want the window", got)
	}
}
