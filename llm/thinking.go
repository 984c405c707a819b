package llm

import (
	"bytes"
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"strings"
)

// Thinking is how much a reasoning model is asked to think.
type Thinking string

// Thinking levels; ThinkingAuto leaves it to the server and the model.
const (
	ThinkingAuto   Thinking = ""
	ThinkingOff    Thinking = "off"
	ThinkingLow    Thinking = "low"
	ThinkingMedium Thinking = "medium"
	ThinkingHigh   Thinking = "high"
)

// Dialect is how a server is asked for a thinking level.
type Dialect string

// The dialects of SPEC §14.
const (
	// DialectTemplate: chat_template_kwargs.enable_thinking, on or off
	// (vLLM, llama.cpp: the model's chat template reads it).
	DialectTemplate Dialect = "chat_template_kwargs.enable_thinking"
	// DialectEffort: reasoning_effort, none/low/medium/high (OpenAI, LM
	// Studio, Ollama, and any server not recognised).
	DialectEffort Dialect = "reasoning_effort"
	// DialectOpenRouter: reasoning.effort, none/low/medium/high.
	DialectOpenRouter Dialect = "reasoning.effort"
)

// Hosted names the hosted service an API URL points to ("OpenAI",
// "OpenRouter"), "" for any other.
func Hosted(baseURL string) string {
	u := strings.ToLower(baseURL)
	switch {
	case strings.Contains(u, "://api.openai.com"):
		return "OpenAI"
	case strings.Contains(u, "://openrouter.ai"):
		return "OpenRouter"
	}
	return ""
}

// DialectOf is the thinking dialect of a server of kind at baseURL.
func DialectOf(kind ServerKind, baseURL string) Dialect {
	switch {
	case kind == ServerVLLM || kind == ServerLlamaCpp:
		return DialectTemplate
	case kind == ServerOpenRouter, Hosted(baseURL) == "OpenRouter":
		return DialectOpenRouter
	}
	return DialectEffort
}

// less is the level a retry asks for after a reply that was all
// reasoning: off where the dialect has only on and off, else low, or off
// when low was asked already. ok is false when nothing is lower.
func (d Dialect) less(t Thinking) (Thinking, bool) {
	switch {
	case t == ThinkingOff:
		return t, false
	case d == DialectTemplate, t == ThinkingLow:
		return ThinkingOff, true
	}
	return ThinkingLow, true
}

// fields are the body fields that ask for level t in dialect d.
func (d Dialect) fields(t Thinking) map[string]any {
	if t == ThinkingAuto {
		return nil
	}
	effort := string(t)
	if t == ThinkingOff {
		effort = "none"
	}
	switch d {
	case DialectTemplate:
		return map[string]any{"chat_template_kwargs": map[string]any{"enable_thinking": t != ThinkingOff}}
	case DialectOpenRouter:
		return map[string]any{"reasoning": map[string]any{"effort": effort}}
	}
	return map[string]any{"reasoning_effort": effort}
}

// dialect is the thinking dialect of this client's server for model, from
// what Discover learned of it (nothing yet: from the URL alone).
func (c *Client) dialect(model string) Dialect {
	return DialectOf(c.known(model).Kind, c.base)
}

// known is what Discover learned of the server for model (nothing yet: the
// zero ServerInfo).
func (c *Client) known(model string) ServerInfo {
	c.discoverMu.Lock()
	defer c.discoverMu.Unlock()
	return c.discovered[model]
}

// extraFields are the fields a request adds to the body beyond go-openai's:
// the thinking level in the server's dialect and the shape in its field,
// then Extra, whose keys win. An object both set (chat_template_kwargs,
// reasoning, structured_outputs, response_format) is merged, Extra's keys
// winning.
func (c *Client) extraFields(req Request) map[string]any {
	t := req.Thinking
	if req.LessThinking {
		t, _ = c.dialect(req.Model).less(t)
	}
	fields := c.dialect(req.Model).fields(t)
	if shape := shapeFields(req.Params); shape != nil {
		fields = maps.Clone(fields)
		if fields == nil {
			fields = map[string]any{}
		}
		maps.Copy(fields, shape)
	}
	if len(req.Extra) == 0 {
		return fields
	}
	out := maps.Clone(fields)
	if out == nil {
		out = make(map[string]any, len(req.Extra))
	}
	for k, v := range req.Extra {
		mine, isObject := out[k].(map[string]any)
		theirs, theirsObject := v.(map[string]any)
		if isObject && theirsObject {
			merged := maps.Clone(mine)
			maps.Copy(merged, theirs)
			v = merged
		}
		out[k] = v
	}
	return out
}

// withFields adds fields to a JSON object body, keys sorted (the same
// request gives the same bytes).
func withFields(body []byte, fields map[string]any) ([]byte, error) {
	if len(fields) == 0 {
		return body, nil
	}
	end := bytes.LastIndexByte(body, '}')
	if end < 0 {
		return nil, errors.New("the request body is not a JSON object")
	}
	out := append([]byte(nil), body[:end]...)
	empty := bytes.HasSuffix(bytes.TrimSpace(out), []byte("{"))
	for _, k := range slices.Sorted(maps.Keys(fields)) {
		key, err := json.Marshal(k)
		if err != nil {
			return nil, err
		}
		value, err := json.Marshal(fields[k])
		if err != nil {
			return nil, err
		}
		if !empty {
			out = append(out, ',')
		}
		empty = false
		out = append(append(append(out, key...), ':'), value...)
	}
	return append(out, body[end:]...), nil
}
