package llm

import (
	"reflect"
	"testing"
	"time"
)

// What a reply says of the server's prompt cache, from each way servers
// report it.
func TestReplyPromptCache(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		chunks []string
		want   *PromptCache
	}{
		{"nothing reported", []string{`{"choices":[{"index":0,"delta":{"content":"a"}}],"usage":{"prompt_tokens":10,"completion_tokens":1,"total_tokens":11}}`}, nil},
		{"llama.cpp timings", []string{`{"choices":[],"usage":{"prompt_tokens":1000,"completion_tokens":5,"total_tokens":1005,"prompt_tokens_details":{"cached_tokens":990}},"timings":{"cache_n":990,"prompt_n":10}}`},
			&PromptCache{CachedTokens: 990, ProcessedTokens: 10}},
		{"timings without usage", []string{`{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"timings":{"cache_n":7,"prompt_n":3}}`},
			&PromptCache{CachedTokens: 7, ProcessedTokens: 3}},
		{"cache_n without prompt_n", []string{`{"choices":[],"usage":{"prompt_tokens":100,"completion_tokens":1,"total_tokens":101},"timings":{"cache_n":60}}`},
			&PromptCache{CachedTokens: 60, ProcessedTokens: 40}},
		{"older llama.cpp: prompt_n only", []string{`{"choices":[],"usage":{"prompt_tokens":100,"completion_tokens":1,"total_tokens":101},"timings":{"prompt_n":25}}`},
			&PromptCache{CachedTokens: 75, ProcessedTokens: 25}},
		{"prompt_n without usage says nothing of the cache", []string{`{"choices":[],"timings":{"prompt_n":25}}`}, nil},
		{"vLLM / OpenAI usage details", []string{`{"choices":[],"usage":{"prompt_tokens":2048,"completion_tokens":9,"total_tokens":2057,"prompt_tokens_details":{"cached_tokens":1024}}}`},
			&PromptCache{CachedTokens: 1024, ProcessedTokens: 1024}},
		{"details without cached_tokens", []string{`{"choices":[],"usage":{"prompt_tokens":20,"completion_tokens":1,"total_tokens":21,"prompt_tokens_details":{"audio_tokens":0}}}`}, nil},
		{"the last timings win", []string{`{"choices":[],"timings":{"cache_n":1,"prompt_n":1}}`, `{"choices":[],"timings":{"cache_n":5,"prompt_n":2}}`},
			&PromptCache{CachedTokens: 5, ProcessedTokens: 2}},
		{"fields of the wrong type are ignored", []string{`{"choices":[],"usage":{"prompt_tokens":20,"completion_tokens":1,"total_tokens":21,"prompt_tokens_details":"x"},"timings":"y"}`}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var b replyBuilder
			for _, c := range tc.chunks {
				if _, err := b.add([]byte(c)); err != nil {
					t.Fatalf("add %s: %v", c, err)
				}
			}
			if got := b.reply().Cache; !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Cache = %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestPromptCacheReused(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		cache PromptCache
		want  float64
	}{
		{PromptCache{CachedTokens: 90, ProcessedTokens: 10}, 0.9},
		{PromptCache{CachedTokens: 0, ProcessedTokens: 10}, 0},
		{PromptCache{}, 0},
	} {
		if got := tc.cache.Reused(); got != tc.want {
			t.Errorf("%+v.Reused() = %v, want %v", tc.cache, got, tc.want)
		}
	}
}

// The server's own time for a request, from llama.cpp's timings.
func TestReplyServerTime(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		chunk string
		want  time.Duration
	}{
		{"prompt and generation", `{"choices":[],"timings":{"cache_n":5,"prompt_n":2,"prompt_ms":12.5,"predicted_ms":100.25}}`, 112750 * time.Microsecond},
		{"generation alone", `{"choices":[],"timings":{"predicted_ms":40}}`, 40 * time.Millisecond},
		{"numbers as strings", `{"choices":[],"timings":{"prompt_ms":"1.5","predicted_ms":"2"}}`, 3500 * time.Microsecond},
		{"a field of the wrong type keeps the other", `{"choices":[],"timings":{"prompt_ms":[1],"predicted_ms":7}}`, 7 * time.Millisecond},
		{"negative is nonsense", `{"choices":[],"timings":{"prompt_ms":-5}}`, 0},
		{"no timings", `{"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":1,"total_tokens":4}}`, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var b replyBuilder
			if _, err := b.add([]byte(tc.chunk)); err != nil {
				t.Fatal(err)
			}
			if got := b.reply().ServerTime; got != tc.want {
				t.Errorf("ServerTime = %v, want %v", got, tc.want)
			}
		})
	}
}
