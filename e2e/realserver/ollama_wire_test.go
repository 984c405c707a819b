package realserver

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http/httputil"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// wire is one response as llm/testdata/servers holds it (see its README):
// the status line and the headers as the server sent them but Date and
// Connection, an empty line, then the body, the chunked framing removed.
type wire struct {
	status int
	file   []byte // the whole fixture
	body   []byte
}

// withBody is w with its body replaced, its Content-Length (if it has one)
// set to the new body's length.
func (w wire) withBody(body []byte) wire {
	head, _, _ := bytes.Cut(w.file, []byte("\r\n\r\n"))
	lines := strings.Split(string(head), "\r\n")
	for i, l := range lines {
		if name, _, _ := strings.Cut(l, ":"); strings.EqualFold(name, "Content-Length") {
			lines[i] = name + ": " + strconv.Itoa(len(body))
		}
	}
	w.file = append([]byte(strings.Join(lines, "\r\n")+"\r\n\r\n"), body...)
	w.body = body
	return w
}

// rawRequest sends one HTTP request to the server on a connection of its
// own and returns the response as it came over the wire.
func rawRequest(t *testing.T, srv *llamaServer, method, path string, body any) wire {
	t.Helper()
	var payload []byte
	if body != nil {
		var err error
		if payload, err = json.Marshal(body); err != nil {
			t.Fatal(err)
		}
	}
	addr := strings.TrimPrefix(srv.url, "http://")
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(runLimit))
	fmt.Fprintf(conn, "%s %s HTTP/1.1\r\nHost: %s\r\nUser-Agent: dev-realserver\r\nConnection: close\r\n", method, path, addr)
	if payload != nil {
		fmt.Fprintf(conn, "Content-Type: application/json\r\nContent-Length: %d\r\n", len(payload))
	}
	fmt.Fprint(conn, "\r\n")
	if _, err := conn.Write(payload); err != nil {
		t.Fatal(err)
	}
	raw, err := io.ReadAll(conn)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	head, rest, ok := bytes.Cut(raw, []byte("\r\n\r\n"))
	if !ok {
		t.Fatalf("%s %s: no end of headers in %q", method, path, raw)
	}
	var kept []string
	chunked := false
	for i, line := range strings.Split(string(head), "\r\n") {
		name, value, _ := strings.Cut(line, ":")
		switch {
		case i == 0:
		case strings.EqualFold(name, "Date"), strings.EqualFold(name, "Connection"):
			continue
		case strings.EqualFold(name, "Transfer-Encoding") && strings.TrimSpace(value) == "chunked":
			chunked = true
		}
		kept = append(kept, line)
	}
	if chunked {
		if rest, err = io.ReadAll(httputil.NewChunkedReader(bytes.NewReader(rest))); err != nil {
			t.Fatalf("%s %s: the chunked body: %v", method, path, err)
		}
	}
	fields := strings.Fields(kept[0])
	status := 0
	if len(fields) >= 2 {
		status, _ = strconv.Atoi(fields[1])
	}
	file := []byte(strings.Join(kept, "\r\n") + "\r\n\r\n")
	return wire{status: status, file: append(file, rest...), body: rest}
}

// streamed is what a stream of chat chunks carried: the content joined,
// the finish reason and the usage.
type streamed struct {
	content, finish    string
	prompt, completion int
}

func readStream(t *testing.T, body []byte) streamed {
	t.Helper()
	var s streamed
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		payload, ok := bytes.CutPrefix(sc.Bytes(), []byte("data: "))
		if !ok || string(payload) == "[DONE]" {
			continue
		}
		var chunk struct {
			Choices []struct {
				Delta        struct{ Content string }
				FinishReason *string `json:"finish_reason"`
			}
			Usage *struct {
				PromptTokens     int `json:"prompt_tokens"`
				CompletionTokens int `json:"completion_tokens"`
			}
		}
		if err := json.Unmarshal(payload, &chunk); err != nil {
			t.Fatalf("a chunk is not JSON: %q", payload)
		}
		for _, c := range chunk.Choices {
			s.content += c.Delta.Content
			if c.FinishReason != nil {
				s.finish = *c.FinishReason
			}
		}
		if chunk.Usage != nil {
			s.prompt, s.completion = chunk.Usage.PromptTokens, chunk.Usage.CompletionTokens
		}
	}
	return s
}

// The requests of TestOllamaShapes: what a run asks, with one shape each.
func shapeRequest(model string, shape map[string]any) map[string]any {
	req := map[string]any{"model": model, "stream": true, "stream_options": map[string]any{"include_usage": true},
		"temperature": 0, "max_tokens": 200,
		"messages": []map[string]string{
			{"role": "system", "content": "You are a coding agent. Answer with a JSON object: the tool to use and its input."},
			{"role": "user", "content": "Create a file hello.txt containing the word hi"},
		}}
	for k, v := range shape {
		req[k] = v
	}
	return req
}

// jsonSchema is response_format with a json_schema: an object of a tool
// from an enum and its input, a string of at most maxInput characters.
// (Go writes the properties in the order of their names: input, tool.)
func jsonSchema(maxInput int) map[string]any {
	return map[string]any{"response_format": map[string]any{"type": "json_schema", "json_schema": map[string]any{
		"name": "reply", "strict": true, "schema": map[string]any{
			"type": "object",
			"properties": map[string]any{
				"tool":  map[string]any{"type": "string", "enum": []string{"READ_FILE", "WRITE_FILE", "DONE"}},
				"input": map[string]any{"type": "string", "minLength": 1, "maxLength": maxInput},
			},
			"required": []string{"tool", "input"}, "additionalProperties": false,
		}}}}
}

// checkSchemaReply checks that a streamed reply is JSON of jsonSchema(max).
func checkSchemaReply(t *testing.T, what string, w wire, max int) {
	t.Helper()
	s := readStream(t, w.body)
	t.Logf("%s: %d, %d tokens, finish %s, content %q", what, w.status, s.completion, s.finish, s.content)
	var obj map[string]any
	if w.status != 200 || json.Unmarshal([]byte(s.content), &obj) != nil {
		t.Errorf("%s: %d, content %q; want 200 and JSON", what, w.status, s.content)
		return
	}
	tool, _ := obj["tool"].(string)
	input, isString := obj["input"].(string)
	if len(obj) != 2 || !slices.Contains([]string{"READ_FILE", "WRITE_FILE", "DONE"}, tool) || !isString ||
		len([]rune(input)) < 1 || len([]rune(input)) > max {
		t.Errorf("%s: the reply %q is not of the schema", what, s.content)
	}
}

// answers checks that the server answers a plain request for model.
func answers(t *testing.T, srv *llamaServer, model, after string) {
	t.Helper()
	if status, out := chat(t, srv, map[string]any{"model": model, "max_tokens": 1,
		"messages": []map[string]string{{"role": "user", "content": "hi"}}}); status != 200 {
		t.Errorf("%s after %s: %d %v; want 200", model, after, status, out)
	}
}

// nonce is the one string the grammar of TestOllamaShapes allows: a reply
// that is anything else shows the grammar was not applied.
const nonce = "7Q3ZX"

// What Ollama 0.17.4 does with each shape dev can send it, with the real
// models on an Ollama of their own (one request here kills a model
// runner). It drops `grammar` without a word: 200, and a reply other than
// the one string the grammar allows. It applies response_format's
// json_schema, through llama.cpp's schema converter: JSON of the schema, a
// tool from the enum, an input within its bounds. A bound beyond llama.cpp's
// grammar parser's limit of 2,000 repetitions (maxLength 4,000) is refused
// by the parser: SmolLM2's runner (Ollama's llama.cpp runner) dies, a 500
// "model runner has unexpectedly stopped", and the next request loads the
// model again; Gemma 3's (Ollama's own engine) answers a 500 "failed to load
// model vocabulary required for format" and lives. And what discovery
// reads: /api/version, /v1/models, /api/show, /api/ps.
//
// With DEV_OLLAMA_CAPTURE set to a directory, the responses are written
// there as fixtures (llm/testdata/servers/README.md's format):
//
//	DEV_REAL_SERVER=1 DEV_OLLAMA_CAPTURE=$PWD/llm/testdata/servers/ollama-0.17.4 go test -count=1 -run OllamaShapes ./e2e/realserver
func TestOllamaShapes(t *testing.T) {
	requireOllama(t)
	srv := started(t, "ollama smollm2,gemma3 -c 4096 (shape probes)", ollamaScript, "--models", "smollm2,gemma3", "--ctx", "4096")
	captured := map[string]wire{}
	post := func(model string, shape map[string]any) wire {
		return rawRequest(t, srv, "POST", "/v1/chat/completions", shapeRequest(model, shape))
	}

	grammar := post("smollm2", map[string]any{"grammar": `root ::= "` + nonce + `"`})
	captured["smollm2-grammar-ignored-stream.txt"] = grammar
	if g := readStream(t, grammar.body); grammar.status != 200 || g.content == nonce || g.content == "" {
		t.Errorf("a request with a grammar: %d, content %q; want 200 and a reply the grammar does not allow (Ollama drops the field)", grammar.status, g.content)
	} else {
		t.Logf("grammar: 200, %d tokens, finish %s, content %.200q", g.completion, g.finish, g.content)
	}

	schema := post("smollm2", jsonSchema(200))
	captured["smollm2-json-schema-stream.txt"] = schema
	checkSchemaReply(t, "smollm2, json_schema, maxLength 200", schema, 200)
	checkSchemaReply(t, "smollm2, json_schema, maxLength 2000", post("smollm2", jsonSchema(2000)), 2000)

	tooLong := post("smollm2", jsonSchema(4000))
	captured["smollm2-json-schema-maxlength-4000-500.txt"] = tooLong
	t.Logf("smollm2, json_schema, maxLength 4000: %d %s", tooLong.status, tooLong.body)
	if tooLong.status != 500 || !strings.Contains(string(tooLong.body), "model runner has unexpectedly stopped") {
		t.Errorf("smollm2, a schema with maxLength 4000: %d %s; want 500, the runner stopped", tooLong.status, tooLong.body)
	}
	answers(t, srv, "smollm2", "its runner died")

	checkSchemaReply(t, "gemma3, json_schema, maxLength 200", post("gemma3", jsonSchema(200)), 200)
	tooLong = post("gemma3", jsonSchema(4000))
	captured["gemma3-json-schema-maxlength-4000-500.txt"] = tooLong
	t.Logf("gemma3, json_schema, maxLength 4000: %d %s", tooLong.status, tooLong.body)
	if tooLong.status != 500 || !strings.Contains(string(tooLong.body), "failed to load model vocabulary required for format") {
		t.Errorf("gemma3, a schema with maxLength 4000: %d %s; want 500, the format refused", tooLong.status, tooLong.body)
	}
	answers(t, srv, "gemma3", "a format it refused")

	version := rawRequest(t, srv, "GET", "/api/version", nil)
	captured["api-version.txt"] = version
	if version.status != 200 || strings.TrimSpace(string(version.body)) != `{"version":"0.17.4"}` {
		t.Errorf("GET /api/version: %d %s", version.status, version.body)
	}
	models := rawRequest(t, srv, "GET", "/v1/models", nil)
	captured["smollm2-gemma3-models.txt"] = models
	if models.status != 200 || !strings.Contains(string(models.body), `"id":"smollm2:latest"`) || !strings.Contains(string(models.body), `"id":"gemma3:latest"`) {
		t.Errorf("GET /v1/models: %d %s", models.status, models.body)
	}
	show := rawRequest(t, srv, "POST", "/api/show", map[string]any{"model": "smollm2"})
	var info struct {
		ModelInfo    map[string]any `json:"model_info"`
		Capabilities []string       `json:"capabilities"`
	}
	if show.status != 200 || json.Unmarshal(show.body, &info) != nil || info.ModelInfo["llama.context_length"] != 8192.0 {
		t.Errorf("POST /api/show: %d, model_info %v; want SmolLM2's trained context, 8192", show.status, info.ModelInfo)
	}
	t.Logf("/api/show: capabilities %v, context_length %v", info.Capabilities, info.ModelInfo["llama.context_length"])
	// The modelfile names the blob in the temporary OLLAMA_MODELS, as the
	// first captures' api-show.txt names its own: the same home for all.
	show.body = regexp.MustCompile(`/[^"\\ ]*/dev-ollama\.[A-Za-z0-9]+/models`).ReplaceAll(show.body, []byte("/home/user/.ollama/models"))
	captured["smollm2-api-show.txt"] = show.withBody(show.body)
	ps := rawRequest(t, srv, "GET", "/api/ps", nil)
	captured["smollm2-gemma3-api-ps.txt"] = ps
	if ps.status != 200 || strings.Count(string(ps.body), `"context_length":4096`) != 2 {
		t.Errorf("GET /api/ps: %d %s; want both models loaded with the 4,096 tokens the server gives them", ps.status, ps.body)
	}

	if dir := os.Getenv("DEV_OLLAMA_CAPTURE"); dir != "" {
		for name, w := range captured {
			if err := os.WriteFile(filepath.Join(dir, name), w.file, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}
