package llm

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/iotest"
	"time"
)

// newServer serves h. The request body is read before h runs, so the server
// notices a client that goes away and cancels r.Context(); and the test's
// end cancels it too, so a handler waiting on it never outlives the test.
func newServer(t *testing.T, h http.HandlerFunc) *httptest.Server {
	t.Helper()
	stop := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		ctx, cancel := context.WithCancel(r.Context())
		defer cancel()
		go func() {
			select {
			case <-stop:
				cancel()
			case <-ctx.Done():
			}
		}()
		h(w, r.WithContext(ctx))
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(stop) }) // runs before srv.Close
	return srv
}

func chunkJSON(content string, finish string) string {
	choice := map[string]any{"index": 0, "delta": map[string]any{"content": content}, "finish_reason": nil}
	if finish != "" {
		choice["finish_reason"] = finish
	}
	b, _ := json.Marshal(map[string]any{"choices": []any{choice}})
	return "data: " + string(b) + "\n\n"
}

func writeSSE(w http.ResponseWriter, s string) {
	_, _ = io.WriteString(w, s)
	w.(http.Flusher).Flush()
}

func startSSE(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	w.(http.Flusher).Flush()
}

var hi = Request{Params: Params{Model: "m"}, Messages: []Message{{Role: RoleUser, Content: "Hi"}}}

// streamWithin runs Stream and fails the test if it does not return within
// limit: the behaviours under test are about returning promptly.
func streamWithin(t *testing.T, limit time.Duration, c *Client, ctx context.Context, onDelta func(Delta)) (Reply, time.Duration, error) {
	t.Helper()
	type result struct {
		r   Reply
		err error
	}
	done := make(chan result, 1)
	start := time.Now()
	go func() {
		r, err := c.Stream(ctx, hi, onDelta)
		done <- result{r, err}
	}()
	select {
	case res := <-done:
		return res.r, time.Since(start), res.err
	case <-time.After(limit):
		t.Fatalf("Stream did not return within %s", limit)
		return Reply{}, 0, nil
	}
}

func asError(t *testing.T, err error) *Error {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("err = %v (%T), want *Error", err, err)
	}
	return e
}

func TestIdleTimeoutStalledMidStream(t *testing.T) {
	t.Parallel()
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		startSSE(w)
		writeSSE(w, chunkJSON("Hel", ""))
		<-r.Context().Done() // then silence
	})
	c := New(Config{BaseURL: srv.URL, IdleTimeout: 200 * time.Millisecond})
	var got string
	_, took, err := streamWithin(t, 10*time.Second, c, context.Background(), func(d Delta) { got += d.Content })
	e := asError(t, err)
	if e.Kind != KindStalled || !e.Retryable() {
		t.Fatalf("kind %v retryable %v, want stalled and retryable: %v", e.Kind, e.Retryable(), err)
	}
	if errors.Is(err, context.Canceled) {
		t.Error("a stall must not look like the caller's cancellation")
	}
	if got != "Hel" {
		t.Errorf("delta before the stall = %q", got)
	}
	if took < 200*time.Millisecond || took > 3*time.Second {
		t.Errorf("took %s, want about the 200ms idle timeout", took)
	}
}

func TestIdleTimeoutBeforeHeaders(t *testing.T) {
	t.Parallel()
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
	c := New(Config{BaseURL: srv.URL, IdleTimeout: 200 * time.Millisecond})
	_, _, err := streamWithin(t, 10*time.Second, c, context.Background(), nil)
	if e := asError(t, err); e.Kind != KindStalled {
		t.Fatalf("kind %v, want stalled: %v", e.Kind, err)
	}
}

func TestKeepAliveCommentsCountAsProgress(t *testing.T) {
	t.Parallel()
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		startSSE(w)
		// More comment lines than go-openai's default EmptyMessagesLimit (300).
		writeSSE(w, strings.Repeat(": keep-alive\n\n", 400))
		// Then keep-alives only, every 25ms for twice the idle timeout. The
		// wide margin keeps the test honest on a loaded machine.
		tick := time.NewTicker(25 * time.Millisecond)
		defer tick.Stop()
		for range 80 {
			select {
			case <-tick.C:
				writeSSE(w, ": keep-alive\n\n")
			case <-r.Context().Done():
				return
			}
		}
		writeSSE(w, chunkJSON("done", "stop")+"data: [DONE]\n\n")
	})
	c := New(Config{BaseURL: srv.URL, IdleTimeout: time.Second})
	reply, took, err := streamWithin(t, 10*time.Second, c, context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if reply.Content != "done" || reply.FinishReason != "stop" {
		t.Errorf("reply = %+v", reply)
	}
	if took < 2*time.Second {
		t.Errorf("took %s: the keep-alive phase did not last past the idle timeout", took)
	}
}

func TestCancelMidStream(t *testing.T) {
	t.Parallel()
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		startSSE(w)
		writeSSE(w, chunkJSON("Hel", ""))
		<-r.Context().Done()
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c := New(Config{BaseURL: srv.URL}) // no idle timeout: only the cancel can end it
	_, took, err := streamWithin(t, 10*time.Second, c, ctx, func(Delta) { cancel() })
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if e := asError(t, err); e.Kind == KindNetwork || e.Retryable() {
		t.Errorf("cancellation classified as %v (retryable %v)", e.Kind, e.Retryable())
	}
	if took > 3*time.Second {
		t.Errorf("took %s after cancel", took)
	}
}

func TestConnectionRefused(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + l.Addr().String() + "/v1"
	l.Close()
	c := New(Config{BaseURL: base + "/"})

	_, err = c.Stream(context.Background(), hi, nil)
	e := asError(t, err)
	if e.Kind != KindUnreachable || e.Retryable() || e.URL != base {
		t.Fatalf("kind %v, retryable %v, URL %q; want unreachable, not retryable, %q", e.Kind, e.Retryable(), e.URL, base)
	}
	if runtime.GOOS != "windows" { // Windows words it differently
		if want := "cannot connect to " + base + ": connection refused"; err.Error() != want {
			t.Errorf("Error() = %q, want %q", err.Error(), want)
		}
	}
	_, err = c.Models(context.Background())
	if e := asError(t, err); e.Kind != KindUnreachable || e.URL != base {
		t.Errorf("Models: kind %v URL %q", e.Kind, e.URL)
	}
}

func TestUnknownHost(t *testing.T) {
	t.Parallel()
	// A dialer that fails as the resolver would: no network needed.
	hc := &http.Client{Transport: &http.Transport{
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			return nil, &net.OpError{Op: "dial", Net: network, Err: &net.DNSError{Err: "no such host", Name: "nohost.invalid", IsNotFound: true}}
		},
	}}
	c := New(Config{BaseURL: "http://nohost.invalid/v1", HTTPClient: hc})
	_, err := c.Stream(context.Background(), hi, nil)
	e := asError(t, err)
	if want := "cannot connect to http://nohost.invalid/v1: no such host nohost.invalid"; e.Kind != KindUnreachable || err.Error() != want {
		t.Fatalf("kind %v, Error() %q; want unreachable, %q", e.Kind, err.Error(), want)
	}
}

func TestStatusErrors(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name       string
		status     int
		header     map[string]string
		body       string
		kind       Kind
		retryable  bool
		message    string
		retryAfter time.Duration
	}{
		{"401", 401, nil, `{"error":{"message":"Invalid API key","type":"invalid_request_error","code":"invalid_api_key"}}`, KindAuth, false, "Invalid API key", 0},
		{"403", 403, nil, `{"error":"forbidden"}`, KindAuth, false, "forbidden", 0},
		{"429 retry-after", 429, map[string]string{"Retry-After": "7"}, `{"error":{"message":"slow down"}}`, KindRateLimit, true, "slow down", 7 * time.Second},
		{"408", 408, nil, "request timeout", KindRateLimit, true, "request timeout", 0},
		{"503 html", 503, map[string]string{"Content-Type": "text/html"}, "<html>Service Unavailable</html>", KindServer, true, "<html>Service Unavailable</html>", 0},
		{"500 empty", 500, nil, "", KindServer, true, "Internal Server Error", 0},
		{"404 wrong path", 404, nil, "404 page not found\n", KindBadRequest, false, "404 page not found", 0},
		{"413 bare", 413, nil, "", KindOverflow, false, "Request Entity Too Large", 0},
		{"422 fastapi", 422, nil, `{"detail":"messages: field required"}`, KindBadRequest, false, "messages: field required", 0},
		{"404 openai model", 404, nil, `{"error":{"message":"The model ` + "`gpt-9`" + ` does not exist or you do not have access to it.","type":"invalid_request_error","param":null,"code":"model_not_found"}}`,
			KindModelNotFound, false, "The model `gpt-9` does not exist or you do not have access to it.", 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
				for k, v := range tc.header {
					w.Header().Set(k, v)
				}
				w.WriteHeader(tc.status)
				_, _ = io.WriteString(w, tc.body)
			})
			_, err := New(Config{BaseURL: srv.URL}).Stream(context.Background(), hi, nil)
			e := asError(t, err)
			if e.Kind != tc.kind || e.Retryable() != tc.retryable || e.Status != tc.status ||
				e.Message != tc.message || e.RetryAfter != tc.retryAfter {
				t.Errorf("got kind %v retryable %v status %d message %q retry-after %s",
					e.Kind, e.Retryable(), e.Status, e.Message, e.RetryAfter)
			}
			if e.URL != srv.URL+"/chat/completions" {
				t.Errorf("URL = %q", e.URL)
			}
		})
	}
}

func TestStreamBodies(t *testing.T) {
	t.Parallel()
	const openRouterOverflow = `This endpoint's maximum context length is 131072 tokens. However, you requested about 141607 tokens (10535 of text input, 131072 in the output). Please reduce the length of either one.`
	cases := []struct {
		name        string
		contentType string
		body        string
		want        Reply
		kind        Kind // checked when wantErr
		wantErr     bool
		status      int
		limit       int
		prompt      int
		maxCause    bool
		message     string // checked when not empty
	}{
		{name: "data error after content", body: chunkJSON("Hel", "") + `data: {"error":{"message":"upstream failed","code":502}}` + "\n\n",
			wantErr: true, kind: KindServer, status: 502},
		{name: "data error after comments", body: ": ping\n\n" + chunkJSON("Hel", "") + ": ping\n\n" + `data: {"error":{"message":"upstream failed","code":502}}` + "\n\n",
			wantErr: true, kind: KindServer, status: 502},
		{name: "data error with space", body: `data: { "error": {"message":"rate limited upstream","code":429}}` + "\n\n",
			wantErr: true, kind: KindRateLimit, status: 429},
		{name: "event error", body: "event: error\ndata: {\"message\":\"boom\"}\n\n",
			wantErr: true, kind: KindServer, status: 200},
		{name: "openrouter overflow event", body: `data: {"error":{"code":400,"message":` + fmt.Sprintf("%q", openRouterOverflow) + `}}` + "\n\n",
			wantErr: true, kind: KindOverflow, status: 400, limit: 131072, prompt: 10535, maxCause: true},
		{name: "llama.cpp overflow event with numbers", body: `error: {"code":500,"message":"request (9000 tokens) exceeds the available context size (8192 tokens)","type":"exceed_context_size_error","n_prompt_tokens":9000,"n_ctx":8192}` + "\n\ndata: [DONE]\n\n",
			wantErr: true, kind: KindOverflow, status: 500, limit: 8192, prompt: 9000},
		{name: "empty stream", body: "", wantErr: true, kind: KindNetwork, status: 200},
		{name: "only comments then EOF", body: ": hi\n\n", wantErr: true, kind: KindNetwork, status: 200},
		{name: "html page", contentType: "text/html", body: "<html><body>Welcome</body></html>", wantErr: true, kind: KindNetwork, status: 200,
			message: "stream ended before any reply (Content-Type text/html)"},
		{name: "only done", body: "data: [DONE]\n\n", want: Reply{}},
		{name: "malformed chunk", body: "data: {\"choices\":[\n\n", wantErr: true, kind: KindServer, status: 200},
		{name: "odd field types", body: `data: {"choices":[{"index":0,"delta":{"reasoning_text":"a","content":null}}]}` + "\n\n" +
			`data: {"choices":[{"index":0,"delta":{"reasoning":{"x":1},"content":"b"},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}}` + "\n\n",
			want: Reply{Content: "b", Reasoning: "a", ReasoningField: FieldReasoningText, FinishReason: "stop", Usage: usage(3, 2, 5)}},
		{name: "reasoning field order", body: `data: {"choices":[{"index":0,"delta":{"reasoning_content":"","reasoning":"r1","reasoning_text":"x"}}]}` + "\n\n" +
			`data: {"choices":[{"index":0,"delta":{"reasoning_content":"r2","reasoning":"y"}}]}` + "\n\n" + chunkJSON("c", "stop"),
			want: Reply{Content: "c", Reasoning: "r1r2", ReasoningField: FieldReasoning, FinishReason: "stop"}}, // the first field seen
		{name: "second choice ignored", body: `data: {"choices":[{"index":1,"delta":{"content":"other"}},{"index":0,"delta":{"content":"mine"},"finish_reason":"stop"}]}` + "\n\n",
			want: Reply{Content: "mine", FinishReason: "stop"}},
		{name: "json 200 error string", contentType: "application/json",
			body:    `{"error":"Trying to keep the first 15857 tokens when context the overflows. However, the model is loaded with context length of only 4096 tokens, which is not enough."}`,
			wantErr: true, kind: KindOverflow, status: 200, limit: 4096, prompt: 15857},
		{name: "sse labelled as json", contentType: "application/json", body: chunkJSON("a", "") + chunkJSON("b", "stop") + "data: [DONE]\n\n",
			want: Reply{Content: "ab", FinishReason: "stop"}},
		{name: "json 200 without choices", contentType: "application/json", body: `{"object":"list"}`, wantErr: true, kind: KindServer, status: 200},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
				ct := tc.contentType
				if ct == "" {
					ct = "text/event-stream"
				}
				w.Header().Set("Content-Type", ct)
				_, _ = io.WriteString(w, tc.body)
			})
			reply, err := New(Config{BaseURL: srv.URL}).Stream(context.Background(), hi, nil)
			reply = untimed(t, reply)
			if !tc.wantErr {
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(reply, tc.want) {
					t.Errorf("reply %s, want %s", dump(reply), dump(tc.want))
				}
				return
			}
			e := asError(t, err)
			if e.Kind != tc.kind || e.Status != tc.status || e.ContextLimit != tc.limit ||
				e.PromptTokens != tc.prompt || e.MaxTokensCause != tc.maxCause {
				t.Errorf("got kind %v status %d limit %d prompt %d cause %v (%v)",
					e.Kind, e.Status, e.ContextLimit, e.PromptTokens, e.MaxTokensCause, err)
			}
			if tc.message != "" && e.Message != tc.message {
				t.Errorf("message %q, want %q", e.Message, tc.message)
			}
		})
	}
}

func TestConnectionDropMidStream(t *testing.T) {
	t.Parallel()
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		conn, buf, err := w.(http.Hijacker).Hijack()
		if err != nil {
			t.Error(err)
			return
		}
		defer conn.Close()
		chunk := chunkJSON("Hel", "")
		fmt.Fprintf(buf, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n%x\r\n%s\r\n", len(chunk), chunk)
		_ = buf.Flush() // then the connection closes without the final chunk
	})
	var got string
	_, err := New(Config{BaseURL: srv.URL}).Stream(context.Background(), hi, func(d Delta) { got += d.Content })
	e := asError(t, err)
	if e.Kind != KindNetwork || !e.Retryable() {
		t.Fatalf("kind %v: %v", e.Kind, err)
	}
	if got != "Hel" {
		t.Errorf("deltas = %q", got)
	}
}

// recorder is a server that keeps each request body and answers with a
// short stream, or with what reject returns when it is not empty.
type recorder struct {
	mu     sync.Mutex
	bodies []map[string]any
	auth   []string
	paths  []string
}

func (rec *recorder) server(t *testing.T, reject func(body map[string]any) string) *httptest.Server {
	return newServer(t, func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		if r.Method == http.MethodPost {
			if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
				t.Errorf("request body: %v", err)
			}
		}
		rec.mu.Lock()
		rec.bodies = append(rec.bodies, body)
		rec.auth = append(rec.auth, strings.Join(r.Header.Values("Authorization"), "|"))
		rec.paths = append(rec.paths, r.Method+" "+r.URL.Path)
		rec.mu.Unlock()
		if r.Method == http.MethodGet {
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{"object":"list","data":[{"id":"a"},{"id":"b"}]}`)
			return
		}
		if reject != nil {
			if msg := reject(body); msg != "" {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusBadRequest)
				_, _ = io.WriteString(w, msg)
				return
			}
		}
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, chunkJSON("ok", "stop")+"data: [DONE]\n\n")
	})
}

func TestStreamOptionsRejectedThenRemembered(t *testing.T) {
	t.Parallel()
	var rec recorder
	srv := rec.server(t, func(body map[string]any) string {
		if _, ok := body["stream_options"]; ok {
			return `{"error":{"message":"Unrecognized request argument supplied: stream_options","type":"invalid_request_error"}}`
		}
		return ""
	})
	c := New(Config{BaseURL: srv.URL})
	for i := range 2 {
		reply, err := c.Stream(context.Background(), hi, nil)
		if err != nil || reply.Content != "ok" {
			t.Fatalf("call %d: %+v, %v", i, reply, err)
		}
	}
	var sent []bool
	for _, b := range rec.bodies {
		_, ok := b["stream_options"]
		sent = append(sent, ok)
	}
	if want := []bool{true, false, false}; !reflect.DeepEqual(sent, want) {
		t.Errorf("stream_options sent per request = %v, want %v", sent, want)
	}
}

func TestStreamOptionsOtherBadRequestNotRetried(t *testing.T) {
	t.Parallel()
	var rec recorder
	srv := rec.server(t, func(map[string]any) string { return `{"error":{"message":"bad messages"}}` })
	_, err := New(Config{BaseURL: srv.URL}).Stream(context.Background(), hi, nil)
	if e := asError(t, err); e.Kind != KindBadRequest || len(rec.bodies) != 1 {
		t.Errorf("kind %v after %d requests", e.Kind, len(rec.bodies))
	}
}

func TestRequestBody(t *testing.T) {
	t.Parallel()
	zero, half, hundred := 0.0, 0.5, 100
	cases := []struct {
		name        string
		temperature *float64
		maxTokens   *int
		wantTemp    any // nil: absent
		wantMax     any
	}{
		{"unset", nil, nil, nil, nil},
		{"zero temperature", &zero, nil, float64(0), nil},
		{"set", &half, &hundred, 0.5, float64(100)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var rec recorder
			srv := rec.server(t, nil)
			req := Request{
				Params: Params{Model: "devstral", Temperature: tc.temperature, MaxTokens: tc.maxTokens},
				Messages: []Message{
					{Role: RoleSystem, Content: "sys"},
					{Role: RoleUser, Content: "a"},
					{Role: RoleUser, Content: "b"},
				},
			}
			if _, err := New(Config{BaseURL: srv.URL}).Stream(context.Background(), req, nil); err != nil {
				t.Fatal(err)
			}
			body := rec.bodies[0]
			for _, k := range []string{"tools", "tool_choice", "functions", "function_call"} {
				if _, ok := body[k]; ok {
					t.Errorf("request has %q", k)
				}
			}
			if body["model"] != "devstral" || body["stream"] != true {
				t.Errorf("model %v stream %v", body["model"], body["stream"])
			}
			if so, _ := body["stream_options"].(map[string]any); so["include_usage"] != true {
				t.Errorf("stream_options = %v", body["stream_options"])
			}
			wantMsgs := []any{
				map[string]any{"role": "system", "content": "sys"},
				map[string]any{"role": "user", "content": "a\n\nb"},
			}
			if !reflect.DeepEqual(body["messages"], wantMsgs) {
				t.Errorf("messages = %v, want normalised %v", body["messages"], wantMsgs)
			}
			if body["temperature"] != tc.wantTemp {
				t.Errorf("temperature = %v, want %v", body["temperature"], tc.wantTemp)
			}
			if body["max_tokens"] != tc.wantMax {
				t.Errorf("max_tokens = %v, want %v", body["max_tokens"], tc.wantMax)
			}
			if tc.temperature != nil && *tc.temperature == 0 {
				// llama.cpp samples garbage with a tiny positive
				// temperature; only 0 itself means greedy decoding there.
				if _, present := body["temperature"]; !present {
					t.Errorf("temperature 0 must reach the server as 0, it was left out")
				}
			}
		})
	}
}

func TestBearerHeaderAndPaths(t *testing.T) {
	t.Parallel()
	for _, key := range []string{"", "sk-test"} {
		t.Run("key="+key, func(t *testing.T) {
			t.Parallel()
			var rec recorder
			srv := rec.server(t, nil)
			c := New(Config{BaseURL: srv.URL + "/v1/", APIKey: key})
			if _, err := c.Stream(context.Background(), hi, nil); err != nil {
				t.Fatal(err)
			}
			models, err := c.Models(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(models, []string{"a", "b"}) {
				t.Errorf("models = %q", models)
			}
			want := ""
			if key != "" {
				want = "Bearer " + key
			}
			if !reflect.DeepEqual(rec.auth, []string{want, want}) {
				t.Errorf("Authorization headers = %q, want %q twice", rec.auth, want)
			}
			if wantPaths := []string{"POST /v1/chat/completions", "GET /v1/models"}; !reflect.DeepEqual(rec.paths, wantPaths) {
				t.Errorf("paths = %q, want %q", rec.paths, wantPaths)
			}
		})
	}
}

func TestModelNotFoundWithoutModelsEndpoint(t *testing.T) {
	t.Parallel()
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNotFound)
		_, _ = io.WriteString(w, `{"error":{"message":"model 'x' not found"}}`)
	})
	_, err := New(Config{BaseURL: srv.URL}).Stream(context.Background(), hi, nil)
	e := asError(t, err)
	if e.Kind != KindModelNotFound || e.Models != nil {
		t.Errorf("kind %v models %q", e.Kind, e.Models)
	}
}

func TestGoOpenAIValidationIsBadRequest(t *testing.T) {
	t.Parallel()
	var rec recorder
	srv := rec.server(t, nil)
	n := 10
	req := Request{Params: Params{Model: "o1-mini", MaxTokens: &n}, Messages: hi.Messages}
	_, err := New(Config{BaseURL: srv.URL}).Stream(context.Background(), req, nil)
	if e := asError(t, err); e.Kind != KindBadRequest || e.Retryable() {
		t.Errorf("kind %v: %v", e.Kind, err)
	}
	if len(rec.bodies) != 0 {
		t.Errorf("%d requests reached the server", len(rec.bodies))
	}
}

// TestWatcherSplitReads feeds SSE one byte at a time: lines split across
// reads must still be recognised.
func TestWatcherSplitReads(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		body string
		errs []string
		done bool
	}{
		{"llama.cpp error line", "error: {\"code\":400}\n\ndata: [DONE]\n\n", []string{`{"code":400}`}, true},
		{"crlf", "data: {\"choices\":[]}\r\n\r\ndata: {\"error\":{\"message\":\"x\"}}\r\n\r\ndata: [DONE]\r\n\r\n", []string{`{"error":{"message":"x"}}`}, true},
		{"event error then normal", "event: error\ndata: {\"message\":\"m\"}\n\nevent: message\ndata: {\"choices\":[]}\n\n", []string{`{"message":"m"}`}, false},
		{"comments and ids", ": ping\nid: 4\ndata: {\"choices\":[]}\n\n", nil, false},
		{"no final newline", "error: {\"x\":1}", []string{`{"x":1}`}, false},
		{"done not a prefix", "data: [DONE]x\n", nil, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			d := &callDoer{}
			body := &watchedBody{rc: io.NopCloser(iotest.OneByteReader(strings.NewReader(tc.body))), d: d}
			if _, err := io.Copy(io.Discard, bufio.NewReaderSize(body, 16)); err != nil {
				t.Fatal(err)
			}
			var errs []string
			for _, e := range d.lines.errs {
				errs = append(errs, string(e))
			}
			if !reflect.DeepEqual(errs, tc.errs) || d.lines.done != tc.done {
				t.Errorf("errs %q done %v, want %q %v", errs, d.lines.done, tc.errs, tc.done)
			}
		})
	}
}

// A server that sends only keep-alives while it works on the prompt is
// reported through Request.Alive, before any piece of the reply: the
// caller shows the user the server is there (SPEC §10).
func TestKeepAlivesReachAlive(t *testing.T) {
	t.Parallel()
	alive := make(chan struct{})
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		startSSE(w)
		writeSSE(w, ": keep-alive\n\n")
		select {
		case <-alive:
		case <-r.Context().Done():
			return
		}
		writeSSE(w, chunkJSON("done", "stop")+"data: [DONE]\n\n")
	})
	c := New(Config{BaseURL: srv.URL})
	req := hi
	var calls atomic.Int32
	var deltaBeforeAlive atomic.Bool
	req.Alive = func() {
		if calls.Add(1) == 1 {
			close(alive)
		}
	}
	reply, err := c.Stream(context.Background(), req, func(Delta) {
		if calls.Load() == 0 {
			deltaBeforeAlive.Store(true)
		}
	})
	if err != nil || reply.Content != "done" {
		t.Fatalf("reply %+v, %v", reply, err)
	}
	if calls.Load() < 1 || deltaBeforeAlive.Load() {
		t.Errorf("Alive called %d times, a piece of the reply before it: %v", calls.Load(), deltaBeforeAlive.Load())
	}
}

// A server that closes a kept-alive connection as the next request comes
// (llama-server closes one idle for 5 s) costs nothing: the request goes
// again on a new connection. CI's real doctor probe once met "network
// error: EOF" so.
func TestServerClosedKeptAliveConnection(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	served := map[string]int{} // requests per client connection
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		served[r.RemoteAddr]++
		n := served[r.RemoteAddr]
		mu.Unlock()
		if n == 2 {
			// The second request on a connection finds it closed, with
			// nothing answered, as when the server's keep-alive ran out.
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				conn.Close()
			}
			return
		}
		startSSE(w)
		writeSSE(w, chunkJSON("Hello", "stop")+"data: [DONE]\n\n")
	})
	c := New(Config{BaseURL: srv.URL})
	for i := range 3 {
		r, err := c.Stream(context.Background(), hi, nil)
		if err != nil || r.Content != "Hello" {
			t.Fatalf("request %d: %q, %v", i+1, r.Content, err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(served) < 2 {
		t.Errorf("the requests used %d connections; the closed one was not replaced", len(served))
	}
}
