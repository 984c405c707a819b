package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"
)

// DiscoverTimeout bounds all of Discover's probes together.
const DiscoverTimeout = 2 * time.Second

// maxProbeBody bounds what one probe reads (OpenRouter's model list is large).
const maxProbeBody = 8 << 20

// ServerKind names the server software behind an API URL, as far as the
// probes of Discover can tell.
type ServerKind string

// Servers Discover recognises.
const (
	ServerUnknown  ServerKind = ""
	ServerVLLM     ServerKind = "vLLM"
	ServerLlamaCpp ServerKind = "llama.cpp"
	ServerOllama   ServerKind = "Ollama"
	ServerLMStudio ServerKind = "LM Studio"
	// ServerSGLang is recognised by its model list (owned_by "sglang").
	ServerSGLang ServerKind = "SGLang"
	// ServerOpenRouter is recognised by its model list (pricing and
	// top_provider per model), wherever it is reached from.
	ServerOpenRouter ServerKind = "OpenRouter"
)

// ServerInfo is what Discover learned about a server and a model.
type ServerInfo struct {
	Kind ServerKind
	// Window is the context window in tokens the server gives the model
	// now (prompt and reply together), 0 when the server does not say.
	Window int
	// Source says where Window came from, or what identified Kind when the
	// window is unknown: an endpoint and a field, e.g.
	// "GET /props default_generation_settings.n_ctx".
	Source string
	// Version is the server's version or build when it says (Ollama's
	// /api/version, llama.cpp's build_info, vLLM's /version, SGLang's
	// /get_server_info), "" otherwise.
	Version string
	// Slots is llama.cpp's total_slots (requests it serves at once), 0 when
	// unknown. Unless the server runs with a unified KV cache, -c is split
	// among them, and Window is one slot's share.
	Slots int
	// Reasoning: the chat template the server applies handles reasoning
	// (llama.cpp's /props chat_template mentions <think> or
	// enable_thinking): the model thinks unless told not to.
	Reasoning bool
}

// Discover asks the server, once per client and model, what it is and how
// large a context it gives model: vLLM's /v1/models max_model_len,
// llama.cpp's /props n_ctx (per slot, which is what one request gets),
// Ollama's /api/ps context_length of the loaded model (and /api/version),
// LM Studio's /api/v1/models context_length of the loaded instance,
// SGLang's /v1/models max_model_len (owned_by "sglang", and its version
// from /get_server_info), and a context_length in /v1/models (OpenRouter). The probes run together, bounded by
// DiscoverTimeout; a probe that fails or times out only means less is known,
// so Discover never returns an error. Paths other than /v1/models are taken
// from the server root: the base URL without its trailing /v1.
func (c *Client) Discover(ctx context.Context, model string) ServerInfo {
	c.discoverMu.Lock()
	defer c.discoverMu.Unlock()
	if info, ok := c.discovered[model]; ok {
		return info
	}
	ctx, cancel := context.WithTimeout(ctx, DiscoverTimeout)
	defer cancel()
	root := strings.TrimSuffix(c.base, "/v1")
	probes := []func() probeResult{
		func() probeResult { return c.probeModels(ctx, c.base+"/models", model) },
		func() probeResult { return c.probeProps(ctx, root+"/props") },
		func() probeResult { return c.probeOllama(ctx, root+"/api/ps", model) },
		func() probeResult { return c.probeLMStudio(ctx, root+"/api/v1/models", model) },
		func() probeResult { return c.probeOllamaVersion(ctx, root+"/api/version") },
		func() probeResult { return c.probeVLLMVersion(ctx, root+"/version") },
		func() probeResult { return c.probeSGLangInfo(ctx, root+"/get_server_info") },
	}
	results := make([]probeResult, len(probes))
	var wg sync.WaitGroup
	for i, p := range probes {
		wg.Go(func() { results[i] = p() })
	}
	wg.Wait()
	info := pickServer(results)
	if c.discovered == nil {
		c.discovered = map[string]ServerInfo{}
	}
	c.discovered[model] = info
	return info
}

// probeResult is one probe's finding; the zero value means nothing learned.
// Results are ranked by their order in Discover: an endpoint specific to one
// server wins over a generic one.
type probeResult struct {
	kind   ServerKind
	window int
	source string
	// generic marks a window from a field any server could send
	// (context_length in /v1/models): used only when no probe names a server.
	generic   bool
	reasoning bool
	// versionOnly: the probe gives kind's version, but answering it does
	// not make a server that kind (vLLM's /version is too plain a shape).
	versionOnly bool
	version     string
	slots       int
}

func pickServer(results []probeResult) ServerInfo {
	info := pickWindow(results)
	// What other probes of the same server learned.
	for _, r := range results {
		if info.Kind == ServerUnknown || r.kind != info.Kind {
			continue
		}
		if info.Version == "" {
			info.Version = r.version
		}
		if info.Slots == 0 {
			info.Slots = r.slots
		}
		info.Reasoning = info.Reasoning || r.reasoning
	}
	return info
}

func pickWindow(results []probeResult) ServerInfo {
	var info ServerInfo
	for _, r := range results {
		if r.kind != ServerUnknown && r.window > 0 {
			return ServerInfo{Kind: r.kind, Window: r.window, Source: r.source}
		}
	}
	for _, r := range results {
		if r.generic && r.window > 0 {
			info = ServerInfo{Window: r.window, Source: r.source}
			break
		}
	}
	for _, r := range results {
		if r.kind != ServerUnknown && !r.versionOnly {
			info.Kind = r.kind
			if info.Source == "" {
				info.Source = r.source
			}
			break
		}
	}
	return info
}

// getJSON fetches url and decodes a 200 JSON object into v.
func (c *Client) getJSON(ctx context.Context, url string, v any) bool {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return false
	}
	if c.cfg.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+c.cfg.APIKey)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxProbeBody))
	if err != nil || resp.StatusCode != http.StatusOK {
		return false
	}
	body = bytes.TrimSpace(body)
	return len(body) > 0 && body[0] == '{' && json.Unmarshal(body, v) == nil
}

// probeModels reads GET /v1/models: SGLang's owned_by "sglang" identifies
// SGLang, whose max_model_len is its window; vLLM's max_model_len
// identifies vLLM; a context_length (OpenRouter) is a window from a
// generic field.
func (c *Client) probeModels(ctx context.Context, url, model string) probeResult {
	var list struct {
		Data []struct {
			ID            string     `json:"id"`
			OwnedBy       string     `json:"owned_by"`
			MaxModelLen   lenientInt `json:"max_model_len"`
			ContextLength lenientInt `json:"context_length"`
			// OpenRouter's own fields.
			Pricing     json.RawMessage `json:"pricing"`
			TopProvider json.RawMessage `json:"top_provider"`
		} `json:"data"`
	}
	if !c.getJSON(ctx, url, &list) {
		return probeResult{}
	}
	for _, m := range list.Data {
		// vLLM serves one model, usually under the name requests use; with
		// one entry, it is the model whatever it is called.
		if m.ID != model && len(list.Data) > 1 {
			continue
		}
		switch {
		case m.OwnedBy == "sglang":
			return probeResult{kind: ServerSGLang, window: int(m.MaxModelLen), source: "GET /v1/models max_model_len"}
		case m.MaxModelLen > 0:
			return probeResult{kind: ServerVLLM, window: int(m.MaxModelLen), source: "GET /v1/models max_model_len"}
		case m.ID == model && len(m.Pricing) > 0 && len(m.TopProvider) > 0:
			return probeResult{kind: ServerOpenRouter, window: int(m.ContextLength), source: "GET /v1/models context_length"}
		case m.ContextLength > 0 && m.ID == model:
			return probeResult{window: int(m.ContextLength), source: "GET /v1/models context_length", generic: true}
		case m.OwnedBy == "vllm":
			return probeResult{kind: ServerVLLM, source: "GET /v1/models owned_by"}
		}
	}
	return probeResult{}
}

// probeProps reads llama.cpp's GET /props. n_ctx there is per slot: the
// server splits -c over its slots, and one request gets one slot.
func (c *Client) probeProps(ctx context.Context, url string) probeResult {
	var props struct {
		Settings *struct {
			NCtx lenientInt `json:"n_ctx"`
		} `json:"default_generation_settings"`
		TotalSlots   lenientInt    `json:"total_slots"`
		BuildInfo    lenientString `json:"build_info"`
		ChatTemplate lenientString `json:"chat_template"`
	}
	if !c.getJSON(ctx, url, &props) || props.Settings == nil {
		return probeResult{}
	}
	return probeResult{kind: ServerLlamaCpp, window: int(props.Settings.NCtx), source: "GET /props default_generation_settings.n_ctx",
		version: string(props.BuildInfo), slots: int(props.TotalSlots), reasoning: templateReasons(string(props.ChatTemplate))}
}

// templateReasons reports whether a chat template handles reasoning: it
// writes or strips <think> blocks, or reads enable_thinking.
func templateReasons(t string) bool {
	t = strings.ToLower(t)
	return strings.Contains(t, "<think>") || strings.Contains(t, "enable_thinking") || strings.Contains(t, "reasoning_content")
}

// probeOllama reads Ollama's GET /api/ps: the context_length of the loaded
// model is the window in use (api/show gives the trained maximum instead).
// A model not loaded yet has no entry.
func (c *Client) probeOllama(ctx context.Context, url, model string) probeResult {
	var ps struct {
		Models *[]struct {
			Name          string     `json:"name"`
			Model         string     `json:"model"`
			ContextLength lenientInt `json:"context_length"`
		} `json:"models"`
	}
	if !c.getJSON(ctx, url, &ps) || ps.Models == nil {
		return probeResult{}
	}
	r := probeResult{kind: ServerOllama, source: "GET /api/ps"}
	for _, m := range *ps.Models {
		if SameOllamaModel(m.Name, model) || SameOllamaModel(m.Model, model) {
			r.window = int(m.ContextLength)
			r.source = "GET /api/ps context_length"
			break
		}
	}
	return r
}

// probeOllamaVersion reads Ollama's GET /api/version, which answers whether
// or not a model is loaded. A non-empty version is required: other servers
// answer unknown paths with a 200 and an error object.
func (c *Client) probeOllamaVersion(ctx context.Context, url string) probeResult {
	var v struct {
		Version lenientString `json:"version"`
	}
	if !c.getJSON(ctx, url, &v) || v.Version == "" {
		return probeResult{}
	}
	return probeResult{kind: ServerOllama, source: "GET /api/version", version: string(v.Version)}
}

// probeVLLMVersion reads vLLM's GET /version ({"version":"0.11.0"}): the
// version decides the field that carries a grammar. It names vLLM only
// for a server other probes recognise as vLLM.
func (c *Client) probeVLLMVersion(ctx context.Context, url string) probeResult {
	var v struct {
		Version lenientString `json:"version"`
	}
	if !c.getJSON(ctx, url, &v) || v.Version == "" {
		return probeResult{}
	}
	return probeResult{kind: ServerVLLM, source: "GET /version", version: string(v.Version), versionOnly: true}
}

// probeSGLangInfo reads SGLang's GET /get_server_info: its server
// arguments (model_path among them) and version. It names SGLang only for
// a server its model list names so.
func (c *Client) probeSGLangInfo(ctx context.Context, url string) probeResult {
	var v struct {
		Version   lenientString `json:"version"`
		ModelPath lenientString `json:"model_path"`
	}
	if !c.getJSON(ctx, url, &v) || v.Version == "" || v.ModelPath == "" {
		return probeResult{}
	}
	return probeResult{kind: ServerSGLang, source: "GET /get_server_info", version: string(v.Version), versionOnly: true}
}

// SameOllamaModel reports whether two Ollama model names are the same model:
// "qwen3" is "qwen3:latest".
func SameOllamaModel(a, b string) bool {
	norm := func(s string) string {
		s = strings.ToLower(strings.TrimSpace(s))
		if s != "" && !strings.Contains(s, ":") {
			s += ":latest"
		}
		return s
	}
	return a != "" && norm(a) == norm(b)
}

// probeLMStudio reads LM Studio's GET /api/v1/models (0.4 and later): the
// context_length of a loaded instance of the model is the window in use;
// max_context_length is only what the model supports.
func (c *Client) probeLMStudio(ctx context.Context, url, model string) probeResult {
	var list struct {
		Models *[]struct {
			Key       string `json:"key"`
			Instances []struct {
				ID     string `json:"id"`
				Config struct {
					ContextLength lenientInt `json:"context_length"`
				} `json:"config"`
			} `json:"loaded_instances"`
		} `json:"models"`
	}
	if !c.getJSON(ctx, url, &list) || list.Models == nil {
		return probeResult{}
	}
	r := probeResult{kind: ServerLMStudio, source: "GET /api/v1/models"}
	for _, m := range *list.Models {
		for _, inst := range m.Instances {
			if (m.Key == model || inst.ID == model) && inst.Config.ContextLength > 0 {
				r.window = int(inst.Config.ContextLength)
				r.source = "GET /api/v1/models loaded_instances[].config.context_length"
				return r
			}
		}
	}
	return r
}
