package llm

import (
	"net/http"
	"testing"
	"time"
)

func TestClassifyWordings(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name     string
		status   int
		body     string
		inStream bool
		kind     Kind
		limit    int
		prompt   int
		maxCause bool
	}{
		{name: "openai code", status: 400, kind: KindOverflow, limit: 4097, prompt: 3120, maxCause: true,
			body: `{"error":{"message":"This model's maximum context length is 4097 tokens. However, you requested 4120 tokens (3120 in the messages, 1000 in the completion). Please reduce the length of the messages or completion.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}`},
		{name: "openai messages resulted in", status: 400, kind: KindOverflow, limit: 128000, prompt: 204308,
			body: `{"error":{"message":"This model's maximum context length is 128000 tokens. However, your messages resulted in 204308 tokens. Please reduce the length of the messages."}}`},
		{name: "openai code only", status: 400, kind: KindOverflow,
			body: `{"error":{"message":"Your input exceeds the context window of this model.","code":"context_length_exceeded"}}`},
		{name: "openai old prompt wording", status: 400, kind: KindOverflow, limit: 4097, prompt: 3975, maxCause: true,
			body: `{"error":{"message":"This model's maximum context length is 4097 tokens, however you requested 4231 tokens (3975 in your prompt; 256 for the completion). Please reduce your prompt; or completion length."}}`},
		{name: "openai old, prompt alone too big", status: 400, kind: KindOverflow, limit: 8191, prompt: 8238,
			body: `{"error":{"message":"This model's maximum context length is 8191 tokens, however you requested 8238 tokens (8238 in your prompt; 0 for the completion)."}}`},
		{name: "vllm old, completion too big", status: 400, kind: KindOverflow, limit: 4096, prompt: 1000, maxCause: true,
			body: `{"object":"error","message":"This model's maximum context length is 4096 tokens. However, you requested 5096 tokens (1000 in the messages, 4096 in the completion).","type":"BadRequestError","code":400}`},
		{name: "vllm new, prompt alone too big", status: 400, kind: KindOverflow, limit: 2048, prompt: 3000,
			body: `{"error":{"message":"This model's maximum context length is 2048 tokens. However, your request has 3000 input tokens. Please reduce the length of the input messages.","type":"BadRequestError","code":400}}`},
		{name: "vllm new, prompt and max_tokens both too big", status: 400, kind: KindOverflow, limit: 2048, prompt: 3000,
			body: `{"error":{"message":"This model's maximum context length is 2048 tokens. However, your request has 3000 input tokens plus 100 'max_tokens'."}}`},
		{name: "openrouter with tool input", status: 400, kind: KindOverflow, limit: 256000, prompt: 205293, maxCause: true,
			body: `{"error":{"message":"This endpoint's maximum context length is 256000 tokens. However, you requested about 256493 tokens (194895 of text input, 10398 of tool input, 51200 in the output). Please reduce the length of either one.","code":400}}`},
		{name: "lm studio keep first", status: 400, kind: KindOverflow, limit: 7866, prompt: 10136,
			body: `{"error":"Trying to keep the first 10136 tokens when context the overflows. However, the model is loaded with context length of only 7866 tokens, which is not enough. Try to load the model with a larger context length, or provide a shorter input"}`},
		{name: "lm studio mid-generation", status: 400, kind: KindOverflow, limit: 32000,
			body: `{"error":{"message":"Reached context length of 32000 tokens with model (arch: gpt-oss) that does not currently support mid-generation context overflow. Try reloading with a larger context length or shortening the prompt/chat."}}`},
		{name: "lm studio old", status: 400, kind: KindOverflow, limit: 1500, prompt: 6491,
			body: `{"error":"Error: Input length 6491 exceeds context length 1500"}`},
		{name: "mlx 500", status: 500, kind: KindOverflow, body: `{"error":{"message":"Context size has been exceeded."}}`},
		{name: "jinja 400", status: 400, kind: KindBadRequest, body: `{"error":{"message":"Error: Jinja Exception: Conversation roles must alternate user/assistant/user/assistant/..."}}`},
		{name: "vllm chat template 400", status: 400, kind: KindBadRequest, body: `{"object":"error","message":"As of transformers v4.44, default chat template is no longer allowed."}`},
		{name: "model not found 400", status: 400, kind: KindModelNotFound, body: `{"error":{"message":"The model ` + "`x`" + ` does not exist."}}`},
		{name: "lm studio model_not_found", status: 404, kind: KindModelNotFound, body: `{"error":{"message":"No models loaded","code":"model_not_found"}}`},
		{name: "model word on a 500 is a server error", status: 500, kind: KindServer, body: `{"error":"model runner crashed: model not found in memory"}`},
		{name: "plain 404", status: 404, kind: KindBadRequest, body: `Not Found`},
		{name: "stream event 429", status: 200, inStream: true, kind: KindRateLimit, body: `{"error":{"message":"slow","code":429}}`},
		{name: "stream event 401 as string", status: 200, inStream: true, kind: KindAuth, body: `{"error":{"message":"bad key","code":"401"}}`},
		{name: "stream event without code", status: 200, inStream: true, kind: KindServer, body: `{"error":{"message":"oops"}}`},
		{name: "garbage body", status: 502, kind: KindServer, body: "\x00\xff{not json"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := classify(tc.status, nil, []byte(tc.body), "http://x/v1/chat/completions", tc.inStream)
			if e.Kind != tc.kind || e.ContextLimit != tc.limit || e.PromptTokens != tc.prompt || e.MaxTokensCause != tc.maxCause {
				t.Errorf("got kind %v limit %d prompt %d cause %v; want %v %d %d %v (message %q)",
					e.Kind, e.ContextLimit, e.PromptTokens, e.MaxTokensCause, tc.kind, tc.limit, tc.prompt, tc.maxCause, e.Message)
			}
			if e.Message == "" {
				t.Error("empty message")
			}
		})
	}
}

func TestParseRetryAfter(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 2, 10, 9, 0, 0, 0, time.UTC)
	cases := []struct {
		in   string
		want time.Duration
	}{
		{"", 0},
		{"7", 7 * time.Second},
		{" 120 ", 2 * time.Minute},
		{"0", 0},
		{"-5", 0},
		{"99999999999999999", retryAfterLimit},
		{now.Add(90 * time.Second).Format(http.TimeFormat), 90 * time.Second},
		{now.Add(-time.Hour).Format(http.TimeFormat), 0},
		{"Tue, 10 Feb 2026 09:00:30 GMT", 30 * time.Second},
		{"soon", 0},
		{"1.5", 0},
	}
	for _, tc := range cases {
		if got := parseRetryAfter(tc.in, now); got != tc.want {
			t.Errorf("parseRetryAfter(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

func TestBackoff(t *testing.T) {
	t.Parallel()
	cases := []struct {
		attempt    int
		retryAfter time.Duration
		want       time.Duration
	}{
		{0, 0, time.Second},
		{1, 0, time.Second},
		{2, 0, 2 * time.Second},
		{3, 0, 4 * time.Second},
		{5, 0, 16 * time.Second},
		{6, 0, 30 * time.Second},
		{7, 0, 30 * time.Second},
		{1000, 0, 30 * time.Second},
		{1, 45 * time.Second, 45 * time.Second},
		{5, time.Second, time.Second},
		{1, time.Hour, 5 * time.Minute},
	}
	for _, tc := range cases {
		if got := Backoff(tc.attempt, tc.retryAfter); got != tc.want {
			t.Errorf("Backoff(%d, %s) = %s, want %s", tc.attempt, tc.retryAfter, got, tc.want)
		}
	}
}

func TestRetryable(t *testing.T) {
	t.Parallel()
	want := map[Kind]bool{
		KindOther: false, KindUnreachable: false, KindNetwork: true, KindStalled: true, KindServer: true,
		KindRateLimit: true, KindAuth: false, KindModelNotFound: false, KindOverflow: false, KindBadRequest: false,
	}
	for k, w := range want {
		if got := (&Error{Kind: k}).Retryable(); got != w {
			t.Errorf("%v: Retryable() = %v, want %v", k, got, w)
		}
	}
}

func TestErrorString(t *testing.T) {
	t.Parallel()
	cases := []struct {
		err  *Error
		want string
	}{
		{&Error{Kind: KindUnreachable, URL: "http://localhost:8005/v1", Message: "connection refused"},
			"cannot connect to http://localhost:8005/v1: connection refused"},
		{&Error{Kind: KindModelNotFound, Status: 404, URL: "http://h/v1/chat/completions", Message: "model 'x' not found", Models: []string{"a", "b"}},
			"model not found (HTTP 404) from http://h/v1/chat/completions: model 'x' not found; the server offers: a, b"},
		{&Error{Kind: KindOverflow, Status: 400, Message: "too long", ContextLimit: 2048, PromptTokens: 8, MaxTokensCause: true},
			"context overflow (HTTP 400): too long [prompt 8 tokens, context limit 2048 tokens, max_tokens, not the prompt, is too large]"},
		{&Error{Kind: KindRateLimit, Status: 429, Message: "slow down", RetryAfter: 7 * time.Second},
			"rate limited (HTTP 429): slow down (retry after 7s)"},
		{&Error{Kind: KindStalled, URL: "http://h/v1/chat/completions", Message: "no data for 5m0s"},
			"stream from http://h/v1/chat/completions stalled: no data for 5m0s"},
		{&Error{Kind: KindAuth, Status: 401, Message: "Invalid API key"}, "authentication failed (HTTP 401): Invalid API key"},
	}
	for _, tc := range cases {
		if got := tc.err.Error(); got != tc.want {
			t.Errorf("Error() = %q\n want %q", got, tc.want)
		}
	}
}
