package llm

import (
	"context"
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/devagent/dev/parser"
)

func TestGrammarField(t *testing.T) {
	t.Parallel()
	cases := []struct {
		kind    ServerKind
		version string
		want    string
	}{
		{ServerLlamaCpp, "b11434-unknown", "grammar"},
		{ServerUnknown, "", "grammar"}, // constrain: on sends llama.cpp's field
		{ServerOllama, "0.17.4", "grammar"},
		{ServerVLLM, "0.11.0", "structured_outputs.grammar"},
		{ServerVLLM, "0.10.2", "structured_outputs.grammar"},
		{ServerVLLM, "v0.12.1rc2", "structured_outputs.grammar"},
		{ServerVLLM, "0.10.1.1", "guided_grammar"},
		{ServerVLLM, "0.9.2", "guided_grammar"},
		{ServerVLLM, "0.10.2.dev131+g61a6905ab", "structured_outputs.grammar"},
		{ServerVLLM, "", "structured_outputs.grammar"}, // unknown: the field of current releases
		{ServerVLLM, "nightly", "structured_outputs.grammar"},
	}
	for _, c := range cases {
		if got := GrammarField(c.kind, c.version); got != c.want {
			t.Errorf("GrammarField(%s, %q) = %q, want %q", c.kind, c.version, got, c.want)
		}
	}
	if !GrammarServer(ServerLlamaCpp) || !GrammarServer(ServerVLLM) || GrammarServer(ServerOllama) || GrammarServer(ServerUnknown) ||
		GrammarServer(ServerLMStudio) || GrammarServer(ServerOpenRouter) {
		t.Error("constrain auto must shape the replies of llama.cpp and vLLM, and no other server")
	}
}

// The grammar goes in the field of the server Discover recognised: as the
// real servers' fixtures (llama.cpp /props; vLLM /v1/models and /version)
// describe them.
func TestGrammarSentInTheServersField(t *testing.T) {
	t.Parallel()
	const g = "root ::= \"# Agent Response\\n\""
	version := func(v string) fixture {
		return fixture{status: 200, header: http.Header{"Content-Type": {"application/json"}}, body: []byte(`{"version":"` + v + `"}`)}
	}
	cases := []struct {
		name   string
		routes map[string]fixture
		want   map[string]any
	}{
		{"llama.cpp", map[string]fixture{"GET /props": loadFixture(t, "documented/llamacpp-props.txt")}, map[string]any{"grammar": g}},
		{"vLLM 0.11.0", map[string]fixture{"GET /v1/models": loadFixture(t, "documented/vllm-models.txt"), "GET /version": loadFixture(t, "documented/vllm-version.txt")},
			map[string]any{"structured_outputs": map[string]any{"grammar": g}}},
		{"vLLM 0.10.1", map[string]fixture{"GET /v1/models": loadFixture(t, "documented/vllm-models.txt"), "GET /version": version("0.10.1")},
			map[string]any{"guided_grammar": g}},
		{"generic", map[string]fixture{}, map[string]any{"grammar": g}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			var mu sync.Mutex
			var body map[string]any
			stream := loadFixture(t, "llamacpp-b11434/grammar-stream.txt")
			srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
				if r.Method == http.MethodPost {
					mu.Lock()
					body = decodeBody(t, r)
					mu.Unlock()
					stream.serve(w)
					return
				}
				if f, ok := c.routes[r.Method+" "+r.URL.Path]; ok {
					f.serve(w)
					return
				}
				http.NotFound(w, r)
			})
			client := New(Config{BaseURL: srv.URL + "/v1"})
			client.Discover(context.Background(), "Qwen/Qwen3-8B")
			reply, err := client.Stream(context.Background(), Request{Params: Params{Model: "Qwen/Qwen3-8B", Grammar: g,
				Extra: map[string]any{"top_k": 1}}, Messages: hi.Messages}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !reply.Constrained || reply.GrammarRejected {
				t.Errorf("Constrained %v, GrammarRejected %v: want a constrained reply", reply.Constrained, reply.GrammarRejected)
			}
			mu.Lock()
			defer mu.Unlock()
			got := map[string]any{}
			for _, k := range []string{"grammar", "structured_outputs", "guided_grammar"} {
				if v, ok := body[k]; ok {
					got[k] = v
				}
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("grammar fields %v, want %v", got, c.want)
			}
			if body["top_k"] != 1.0 {
				t.Errorf("extraBody lost beside the grammar: %v", body)
			}
		})
	}
}

// A server that rejects the grammar (llama.cpp's real 400) gets the request
// again without it, and no grammar after: the reply that came without says
// so once.
func TestGrammarRejectedThenNeverSent(t *testing.T) {
	t.Parallel()
	rejected := loadFixture(t, "llamacpp-b11434/grammar-invalid-400.txt")
	stream := loadFixture(t, "llamacpp-b11434/grammar-stream.txt")
	var mu sync.Mutex
	var sent []bool
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		body := decodeBody(t, r)
		_, has := body["grammar"]
		mu.Lock()
		sent = append(sent, has)
		mu.Unlock()
		if has {
			rejected.serve(w)
			return
		}
		stream.serve(w)
	})
	client := New(Config{BaseURL: srv.URL + "/v1"})
	req := Request{Params: Params{Model: "m", Grammar: "root ::= x"}, Messages: hi.Messages}
	var replies []Reply
	for range 2 {
		reply, err := client.Stream(context.Background(), req, nil)
		if err != nil {
			t.Fatal(err)
		}
		replies = append(replies, reply)
	}
	if r := replies[0]; r.Constrained || !r.GrammarRejected || !strings.Contains(r.GrammarError, "failed to parse grammar") {
		t.Errorf("first reply: Constrained %v, GrammarRejected %v (%q); want the rejection told", r.Constrained, r.GrammarRejected, r.GrammarError)
	}
	if r := replies[1]; r.Constrained || r.GrammarRejected {
		t.Errorf("second reply: Constrained %v, GrammarRejected %v; want neither (told once)", r.Constrained, r.GrammarRejected)
	}
	if want := []bool{true, false, false}; !reflect.DeepEqual(sent, want) {
		t.Errorf("grammar sent per request = %v, want %v", sent, want)
	}
	if !client.GrammarRejected() {
		t.Error("GrammarRejected() = false after the rejection")
	}
}

// Another bad request is not taken for a rejected grammar.
func TestGrammarOtherBadRequestNotRetried(t *testing.T) {
	t.Parallel()
	var rec recorder
	srv := rec.server(t, func(map[string]any) string { return `{"error":{"message":"bad messages"}}` })
	client := New(Config{BaseURL: srv.URL})
	_, err := client.Stream(context.Background(), Request{Params: Params{Model: "m", Grammar: "root ::= x"}, Messages: hi.Messages}, nil)
	if e := asError(t, err); e.Kind != KindBadRequest || len(rec.bodies) != 1 || client.GrammarRejected() {
		t.Errorf("kind %v after %d requests, grammar rejected %v", e.Kind, len(rec.bodies), client.GrammarRejected())
	}
}

// The reply llama.cpp shaped with the template's grammar parses on the first
// try, without lenience.
func TestGrammarStreamParses(t *testing.T) {
	t.Parallel()
	resp, err := parser.Parse(grammarReply, []string{"LIST_DIRECTORY", "READ_FILE", "DONE"})
	if err != nil || len(resp.Warnings) > 0 || len(resp.Tools) != 1 || resp.Tools[0].Name != "LIST_DIRECTORY" {
		t.Errorf("Parse = %+v, %v", resp, err)
	}
}

func TestDefaultMaxTokens(t *testing.T) {
	t.Parallel()
	cases := []struct {
		window    int
		reasoning bool
		want      int
	}{
		{8192, false, 2048},
		{8192, true, 4096},
		{32768, false, 8192},
		{131072, false, 16384}, // at most 16,384
		{131072, true, 32768},
		{0, false, 16384}, // unknown window
		{2, false, 1},
	}
	for _, c := range cases {
		if got := DefaultMaxTokens(c.window, c.reasoning); got != c.want {
			t.Errorf("DefaultMaxTokens(%d, %v) = %d, want %d", c.window, c.reasoning, got, c.want)
		}
	}
}

func decodeBody(t *testing.T, r *http.Request) map[string]any {
	t.Helper()
	var body map[string]any
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		t.Errorf("request body: %v", err)
	}
	return body
}

// The reply grammar offers a <think> block unless thinking is off (SPEC
// §18): of any length to a model that reasons (asked to think, or with
// thinking auto, one whose chat template reasons), short to any other.
func TestThinkBlock(t *testing.T) {
	t.Parallel()
	reasons := ServerInfo{Kind: ServerLlamaCpp, Reasoning: true}
	plain := ServerInfo{Kind: ServerLlamaCpp}
	for _, c := range []struct {
		t    Thinking
		info ServerInfo
		want bool
		max  int
	}{
		{ThinkingAuto, reasons, true, 0}, {ThinkingAuto, plain, true, ShortThinkChars}, {ThinkingOff, reasons, false, 0},
		{ThinkingLow, plain, true, 0}, {ThinkingHigh, ServerInfo{}, true, 0},
	} {
		if got, max := ThinkBlock(c.t, c.info); got != c.want || max != c.max {
			t.Errorf("ThinkBlock(%q, reasoning %v) = %v, %d; want %v, %d", c.t, c.info.Reasoning, got, max, c.want, c.max)
		}
	}
	for template, want := range map[string]bool{
		"{{- '<|im_start|>' + message.role }}":                      false,
		"{% if enable_thinking %}<think>\n{% endif %}":              true,
		"{{ message.reasoning_content }}":                           true,
		"{%- set content = content.split('</think>')[-1] %}<think>": true,
	} {
		if got := templateReasons(template); got != want {
			t.Errorf("templateReasons(%q) = %v", template, got)
		}
	}
}
