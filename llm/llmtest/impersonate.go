package llmtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/devagent/dev/llm"
)

// Kind is server software the mock can impersonate.
type Kind string

// Kinds Impersonate knows.
const (
	Generic  Kind = "generic"
	LlamaCpp Kind = "llama.cpp"
	VLLM     Kind = "vLLM" // 0.11.0: grammars in structured_outputs.grammar
	// VLLMOld is vLLM 0.10.1, which reads grammars in guided_grammar.
	VLLMOld  Kind = "vLLM 0.10.1"
	Ollama   Kind = "Ollama"
	LMStudio Kind = "LM Studio"
	// OpenRouter answers /v1/models with its own fields per model
	// (pricing, top_provider, context_length).
	OpenRouter Kind = "OpenRouter"
	// SGLang 0.5.4: its model list (owned_by "sglang", max_model_len) and
	// /get_server_info; grammars in ebnf.
	SGLang Kind = "SGLang"
)

// Impersonate makes the server answer like kind, with its first model loaded
// in a context window of window tokens: the endpoints dev probes (llama.cpp's
// /props, vLLM's max_model_len in /v1/models, Ollama's /api/version and
// /api/ps, LM Studio's /api/v1/models, vLLM's /version, SGLang's
// /get_server_info), the model ids (Ollama's carry
// ":latest"), the reasoning field of its streams, and its answer to a model
// it does not serve (llama.cpp answers any name with its one model). The
// shapes follow llm/testdata/servers. Generic answers only the OpenAI
// endpoints. The server applies the shapes of replies the kind applies
// (shape.go). Call it before the server is used.
func (s *Server) Impersonate(kind Kind, window int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	loaded := ""
	if len(s.models) > 0 {
		loaded = s.models[0]
	}
	set := func(pattern string, v any) {
		body, _ := json.Marshal(v)
		s.routes[pattern] = route{http.StatusOK, string(body)}
	}
	exact := func(m string) bool { return slices.Contains(s.models, m) }
	openAINotFound := func(m string) (int, string) {
		return http.StatusNotFound, errorBody(fmt.Sprintf("The model `%s` does not exist or you do not have access to it.", m), "invalid_request_error", "model_not_found")
	}
	s.serves, s.unknownModel = exact, openAINotFound
	s.kind = kind
	switch kind {
	case LlamaCpp:
		s.reasoningField = llm.FieldReasoningContent
		s.unknownModel = nil
		set("GET /props", map[string]any{
			"default_generation_settings": map[string]any{"id": 0, "n_ctx": window, "params": map[string]any{"n_predict": -1}},
			"total_slots":                 1,
			"model_path":                  "/models/" + loaded + ".gguf",
			"build_info":                  "b7120-3f9a0e1c2",
		})
	case VLLM, VLLMOld:
		s.reasoningField = llm.FieldReasoning
		version := "0.11.0"
		if kind == VLLMOld {
			version = "0.10.1"
		}
		set("GET /version", map[string]string{"version": version})
		type model struct {
			ID          string `json:"id"`
			Object      string `json:"object"`
			OwnedBy     string `json:"owned_by"`
			MaxModelLen int    `json:"max_model_len"`
		}
		var data []model
		for _, m := range s.models {
			data = append(data, model{m, "model", "vllm", window})
		}
		set("GET /v1/models", map[string]any{"object": "list", "data": data})
		s.unknownModel = func(m string) (int, string) {
			body, _ := json.Marshal(map[string]any{"object": "error", "message": fmt.Sprintf("The model `%s` does not exist.", m),
				"type": "NotFoundError", "param": nil, "code": 404})
			return http.StatusNotFound, string(body)
		}
	case SGLang:
		s.reasoningField = llm.FieldReasoningContent
		set("GET /get_server_info", map[string]any{"model_path": loaded, "grammar_backend": "xgrammar", "version": "0.5.4"})
		type model struct {
			ID          string `json:"id"`
			Object      string `json:"object"`
			OwnedBy     string `json:"owned_by"`
			Root        string `json:"root"`
			MaxModelLen int    `json:"max_model_len"`
		}
		var data []model
		for _, m := range s.models {
			data = append(data, model{m, "model", "sglang", m, window})
		}
		set("GET /v1/models", map[string]any{"object": "list", "data": data})
	case Ollama:
		s.reasoningField = llm.FieldReasoning
		for i, m := range s.models {
			if !strings.Contains(m, ":") {
				s.models[i] = m + ":latest"
			}
		}
		if len(s.models) > 0 {
			loaded = s.models[0]
		}
		set("GET /api/version", map[string]string{"version": "0.17.4"})
		set("GET /api/ps", map[string]any{"models": []map[string]any{{"name": loaded, "model": loaded, "context_length": window}}})
		models := s.models
		s.serves = func(m string) bool {
			return slices.ContainsFunc(models, func(x string) bool { return llm.SameOllamaModel(x, m) })
		}
		s.unknownModel = func(m string) (int, string) {
			return http.StatusNotFound, errorBody(fmt.Sprintf("model '%s' not found", m), "api_error", "")
		}
	case LMStudio:
		s.reasoningField = llm.FieldReasoningContent
		var list []map[string]any
		for _, m := range s.models {
			instances := []map[string]any{}
			if m == loaded {
				instances = append(instances, map[string]any{"id": m, "config": map[string]any{"context_length": window}})
			}
			list = append(list, map[string]any{"type": "llm", "key": m, "loaded_instances": instances, "max_context_length": 131072})
		}
		set("GET /api/v1/models", map[string]any{"models": list})
	case OpenRouter:
		s.reasoningField = llm.FieldReasoning
		var data []map[string]any
		for _, m := range s.models {
			data = append(data, map[string]any{"id": m, "canonical_slug": m, "name": m, "context_length": window,
				"architecture": map[string]any{"modality": "text->text"},
				"pricing":      map[string]any{"prompt": "0.0000003", "completion": "0.0000012"},
				"top_provider": map[string]any{"context_length": window, "is_moderated": false}})
		}
		set("GET /v1/models", map[string]any{"data": data})
	}
}

func errorBody(message, typ, code string) string {
	e := map[string]any{"message": message, "type": typ, "param": nil, "code": nil}
	if code != "" {
		e["code"] = code
	}
	body, _ := json.Marshal(map[string]any{"error": e})
	return string(body)
}
