package llm

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"
)

// pathServer serves each fixture at its "METHOD /path" and 404 elsewhere.
func pathServer(t *testing.T, routes map[string]fixture) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f, ok := routes[r.Method+" "+r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		f.serve(w)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestDiscover(t *testing.T) {
	t.Parallel()
	jsonBody := func(s string) fixture {
		return fixture{status: 200, header: http.Header{"Content-Type": {"application/json"}}, body: []byte(s)}
	}
	cases := []struct {
		name   string
		routes map[string]string // path → fixture file, or inline JSON when it starts with {
		model  string
		want   ServerInfo
	}{
		{"vLLM", map[string]string{"GET /v1/models": "documented/vllm-models.txt"}, "Qwen/Qwen3-8B",
			ServerInfo{Kind: ServerVLLM, Window: 32768, Source: "GET /v1/models max_model_len"}},
		{"vLLM serves one model whatever the request calls it", map[string]string{"GET /v1/models": "documented/vllm-models.txt"}, "qwen",
			ServerInfo{Kind: ServerVLLM, Window: 32768, Source: "GET /v1/models max_model_len"}},
		{"Ollama model loaded, named without :latest", map[string]string{
			"GET /v1/models": "ollama-0.17.4/models.txt", "GET /api/ps": "ollama-0.17.4/api-ps.txt",
			"GET /api/version": "ollama-0.17.4/api-version.txt"}, "tiny-loop",
			ServerInfo{Kind: ServerOllama, Window: 256, Source: "GET /api/ps context_length", Version: "0.17.4"}},
		{"Ollama model not loaded: the server is known, the window is not", map[string]string{
			"GET /v1/models": "ollama-0.17.4/models.txt", "GET /api/ps": "ollama-0.17.4/api-ps.txt"}, "tiny-agent",
			ServerInfo{Kind: ServerOllama, Source: "GET /api/ps"}},
		{"Ollama known by its version alone", map[string]string{"GET /api/version": "ollama-0.17.4/api-version.txt"}, "tiny",
			ServerInfo{Kind: ServerOllama, Source: "GET /api/version", Version: "0.17.4"}},
		{"a version of another server is no Ollama", map[string]string{"GET /api/version": `{"error":"Unexpected endpoint or method. (GET /api/version)"}`}, "m",
			ServerInfo{}},
		{"llama.cpp n_ctx per slot, not times total_slots", map[string]string{"GET /props": "documented/llamacpp-props.txt"}, "m",
			ServerInfo{Kind: ServerLlamaCpp, Window: 8192, Source: "GET /props default_generation_settings.n_ctx", Version: "b7120-3f9a0e1c2", Slots: 4}},
		{"LM Studio model not loaded", map[string]string{"GET /api/v1/models": "documented/lmstudio-api-v1-models.txt"}, "openai/gpt-oss-20b",
			ServerInfo{Kind: ServerLMStudio, Source: "GET /api/v1/models"}},
		{"OpenRouter context_length in the model list", map[string]string{
			"GET /v1/models": `{"data":[{"id":"a/b","context_length":1000},{"id":"qwen/qwen3-coder","context_length":262144}]}`}, "qwen/qwen3-coder",
			ServerInfo{Window: 262144, Source: "GET /v1/models context_length"}},
		{"a specific server wins over a generic field", map[string]string{
			"GET /v1/models": `{"data":[{"id":"m","context_length":1000000}]}`, "GET /props": "documented/llamacpp-props.txt"}, "m",
			ServerInfo{Kind: ServerLlamaCpp, Window: 8192, Source: "GET /props default_generation_settings.n_ctx", Version: "b7120-3f9a0e1c2", Slots: 4}},
		{"nothing answers", map[string]string{}, "m", ServerInfo{}},
		{"garbage answers", map[string]string{"GET /props": `{"default_generation_settings":"no"}`, "GET /api/ps": `{"models":{}}`,
			"GET /v1/models": `{"data":[{"id":"m","max_model_len":"lots"}]}`, "GET /api/version": `{"version":7}`}, "m", ServerInfo{}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			routes := map[string]fixture{}
			for path, src := range tc.routes {
				if src[0] == '{' {
					routes[path] = jsonBody(src)
				} else {
					routes[path] = loadFixture(t, src)
				}
			}
			srv := pathServer(t, routes)
			got := New(Config{BaseURL: srv.URL + "/v1/"}).Discover(context.Background(), tc.model)
			if got != tc.want {
				t.Errorf("Discover = %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestDiscoverProbesOnceAndSendsTheKey(t *testing.T) {
	t.Parallel()
	props := loadFixture(t, "documented/llamacpp-props.txt")
	var calls, unauthorised atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		if r.Header.Get("Authorization") != "Bearer k" {
			unauthorised.Add(1)
		}
		if r.URL.Path == "/props" {
			props.serve(w)
			return
		}
		http.NotFound(w, r)
	}))
	t.Cleanup(srv.Close)
	c := New(Config{BaseURL: srv.URL + "/v1", APIKey: "k"})
	first := c.Discover(context.Background(), "m")
	n := calls.Load()
	second := c.Discover(context.Background(), "m")
	if first != second || first.Window != 8192 {
		t.Errorf("Discover = %+v then %+v", first, second)
	}
	if n != 7 || calls.Load() != n {
		t.Errorf("%d probe requests, then %d after a second Discover; want 7, then no more", n, calls.Load())
	}
	if unauthorised.Load() != 0 {
		t.Errorf("%d probes without the API key", unauthorised.Load())
	}
}

func TestDiscoverGivesUpOnASilentServer(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	t.Cleanup(func() { close(release); srv.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if got := New(Config{BaseURL: srv.URL + "/v1"}).Discover(ctx, "m"); got != (ServerInfo{}) {
		t.Errorf("Discover = %+v, want nothing learned", got)
	}
}

func TestDiscoverUnreachable(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	if got := New(Config{BaseURL: url + "/v1"}).Discover(context.Background(), "m"); got != (ServerInfo{}) {
		t.Errorf("Discover = %+v, want nothing learned", got)
	}
}
