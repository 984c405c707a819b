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
		{ServerSGLang, "0.5.4", "ebnf"},
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
}

// The shape goes in the field it is given: a grammar in llama.cpp's,
// vLLM's (old and new) or SGLang's field, a schema as response_format;
// extraBody stays beside it.
func TestShapeSentInItsField(t *testing.T) {
	t.Parallel()
	const g = "root ::= \"# Agent Response\\n\""
	schema := &Schema{Name: "reply", Schema: json.RawMessage(`{"type":"object"}`)}
	cases := []struct {
		name  string
		p     Params
		shape Shape
		want  map[string]any
	}{
		{"llama.cpp", Params{Grammar: g}, ShapeGrammar, map[string]any{"grammar": g}},
		{"vLLM 0.11.0", Params{Grammar: g, GrammarField: FieldStructured}, ShapeGrammar,
			map[string]any{"structured_outputs": map[string]any{"grammar": g}}},
		{"vLLM 0.10.1", Params{Grammar: g, GrammarField: FieldGuidedGrammar}, ShapeGrammar, map[string]any{"guided_grammar": g}},
		{"SGLang", Params{Grammar: g, GrammarField: FieldEBNF}, ShapeGrammar, map[string]any{"ebnf": g}},
		{"JSON form", Params{Schema: schema}, ShapeJSON, map[string]any{"response_format": map[string]any{"type": "json_schema",
			"json_schema": map[string]any{"name": "reply", "strict": true, "schema": map[string]any{"type": "object"}}}}},
		{"none", Params{}, ShapeNone, map[string]any{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			var mu sync.Mutex
			var body map[string]any
			stream := loadFixture(t, "llamacpp-b11434/grammar-stream.txt")
			srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				body = decodeBody(t, r)
				mu.Unlock()
				stream.serve(w)
			})
			client := New(Config{BaseURL: srv.URL + "/v1"})
			p := c.p
			p.Model, p.Extra = "Qwen/Qwen3-8B", map[string]any{"top_k": 1}
			reply, err := client.Stream(context.Background(), Request{Params: p, Messages: hi.Messages}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if reply.Shaped != c.shape || reply.ShapeRejected != ShapeNone {
				t.Errorf("Shaped %q, ShapeRejected %q: want %q and none", reply.Shaped, reply.ShapeRejected, c.shape)
			}
			mu.Lock()
			defer mu.Unlock()
			got := map[string]any{}
			for _, k := range []string{"grammar", "structured_outputs", "guided_grammar", "ebnf", "response_format"} {
				if v, ok := body[k]; ok {
					got[k] = v
				}
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("shape fields %v, want %v", got, c.want)
			}
			if body["top_k"] != 1.0 {
				t.Errorf("extraBody lost beside the shape: %v", body)
			}
		})
	}
}

// A server that rejects the grammar (llama.cpp's real 400) gets the request
// again without it, and no shape after: the reply that came without says
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
		_, schema := body["response_format"]
		mu.Lock()
		sent = append(sent, has || schema)
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
	for _, p := range []Params{req.Params, {Model: "m", Schema: &Schema{Name: "r", Schema: json.RawMessage(`{}`)}}} {
		reply, err := client.Stream(context.Background(), Request{Params: p, Messages: hi.Messages}, nil)
		if err != nil {
			t.Fatal(err)
		}
		replies = append(replies, reply)
	}
	if r := replies[0]; r.Shaped != ShapeNone || r.ShapeRejected != ShapeGrammar || !strings.Contains(r.ShapeError, "failed to parse grammar") {
		t.Errorf("first reply: Shaped %q, ShapeRejected %q (%q); want the rejection told", r.Shaped, r.ShapeRejected, r.ShapeError)
	}
	if r := replies[1]; r.Shaped != ShapeNone || r.ShapeRejected != ShapeNone {
		t.Errorf("second reply: Shaped %q, ShapeRejected %q; want neither (told once, no shape after)", r.Shaped, r.ShapeRejected)
	}
	if want := []bool{true, false, false}; !reflect.DeepEqual(sent, want) {
		t.Errorf("shape sent per request = %v, want %v", sent, want)
	}
	if !client.ShapeRejected() {
		t.Error("ShapeRejected() = false after the rejection")
	}
}

// A schema the server refuses is a rejected shape too.
func TestSchemaRejected(t *testing.T) {
	t.Parallel()
	var rec recorder
	srv := rec.server(t, func(body map[string]any) string {
		if _, ok := body["response_format"]; ok {
			return `{"error":{"message":"Invalid schema for response_format 'reply': 'minLength' is not permitted.","type":"invalid_request_error","param":"response_format"}}`
		}
		return ""
	})
	client := New(Config{BaseURL: srv.URL})
	reply, err := client.Stream(context.Background(), Request{Params: Params{Model: "m", Schema: &Schema{Name: "reply", Schema: json.RawMessage(`{}`)}},
		Messages: hi.Messages}, nil)
	if err != nil || reply.ShapeRejected != ShapeJSON || len(rec.bodies) != 2 || !client.ShapeRejected() {
		t.Errorf("err %v, rejected %q after %d requests", err, reply.ShapeRejected, len(rec.bodies))
	}
}

// Another bad request is not taken for a rejected grammar.
func TestGrammarOtherBadRequestNotRetried(t *testing.T) {
	t.Parallel()
	var rec recorder
	srv := rec.server(t, func(map[string]any) string { return `{"error":{"message":"bad messages"}}` })
	client := New(Config{BaseURL: srv.URL})
	_, err := client.Stream(context.Background(), Request{Params: Params{Model: "m", Grammar: "root ::= x"}, Messages: hi.Messages}, nil)
	if e := asError(t, err); e.Kind != KindBadRequest || len(rec.bodies) != 1 || client.ShapeRejected() {
		t.Errorf("kind %v after %d requests, shape rejected %v", e.Kind, len(rec.bodies), client.ShapeRejected())
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

// A chat template that writes, strips or asks for reasoning shows a model
// that reasons.
func TestTemplateReasons(t *testing.T) {
	t.Parallel()
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
