package llm

import (
	"bytes"
	"encoding/json"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// serverError is what a server said about a failure, whatever shape it used:
// OpenAI's {"error":{...}}, vLLM's old top-level {"object":"error",...},
// llama.cpp's bare object in an `error:` event, {"error":"text"}, or plain text.
type serverError struct {
	message  string
	typ      string
	code     int    // numeric code, 0 when none
	codeText string // string code such as "context_length_exceeded"
	nPrompt  int    // llama.cpp n_prompt_tokens
	nCtx     int    // llama.cpp n_ctx
}

type errorFields struct {
	Message       lenientString   `json:"message"`
	Type          lenientString   `json:"type"`
	Code          json.RawMessage `json:"code"`
	NPromptTokens lenientInt      `json:"n_prompt_tokens"`
	NCtx          lenientInt      `json:"n_ctx"`
	Detail        lenientString   `json:"detail"` // FastAPI-based servers
}

const maxMessageLen = 2000

func parseServerError(body []byte) serverError {
	body = bytes.TrimSpace(body)
	var top struct {
		Error json.RawMessage `json:"error"`
		errorFields
	}
	if len(body) == 0 || body[0] != '{' || json.Unmarshal(body, &top) != nil {
		return serverError{message: clip(string(body))}
	}
	fields := top.errorFields
	switch raw := bytes.TrimSpace(top.Error); {
	case len(raw) > 0 && raw[0] == '{':
		var inner errorFields
		if json.Unmarshal(raw, &inner) == nil {
			fields = inner
		}
	case len(raw) > 0 && raw[0] == '"':
		var s string
		if json.Unmarshal(raw, &s) == nil {
			fields = errorFields{Message: lenientString(s)}
		}
	}
	se := serverError{
		message: cleanMessage(string(fields.Message)),
		typ:     string(fields.Type),
		nPrompt: int(fields.NPromptTokens),
		nCtx:    int(fields.NCtx),
	}
	if se.message == "" {
		se.message = cleanMessage(string(fields.Detail))
	}
	if se.message == "" {
		se.message = clip(string(body))
	}
	code := bytes.TrimSpace(fields.Code)
	var s string
	switch {
	case len(code) == 0 || string(code) == "null":
	case json.Unmarshal(code, &s) == nil:
		se.codeText = s
		se.code, _ = strconv.Atoi(s)
	default:
		var f float64
		if json.Unmarshal(code, &f) == nil {
			se.code = int(f)
		}
	}
	return se
}

// cleanMessage keeps what a person needs from a server message. A Jinja
// template failure comes as a trace whose only readable part is its last
// line, "... Jinja Exception: <reason>".
func cleanMessage(m string) string {
	m = strings.TrimSpace(m)
	if i := strings.LastIndex(m, "Jinja Exception:"); i >= 0 {
		m = m[i:]
		if j := strings.IndexByte(m, '\n'); j >= 0 {
			m = m[:j]
		}
		m = strings.TrimSpace(m)
	}
	return clip(m)
}

func clip(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > maxMessageLen {
		s = s[:maxMessageLen] + "…"
	}
	return s
}

// classify turns a failed response into an *Error. status is the HTTP
// status; inStream marks an error event inside a 200 stream, whose own code
// (if it is an HTTP error code) stands in for the status.
func classify(status int, header http.Header, body []byte, url string, inStream bool) *Error {
	return classifyError(status, header, parseServerError(body), url, inStream)
}

func classifyError(status int, header http.Header, se serverError, url string, inStream bool) *Error {
	e := &Error{Status: status, Message: se.message, URL: url}
	if header != nil {
		e.RetryAfter = parseRetryAfter(header.Get("Retry-After"), time.Now())
	}
	effective := status
	if inStream {
		effective = http.StatusInternalServerError // something broke mid-reply: worth a retry
		if se.code >= 400 && se.code <= 599 {
			effective = se.code
			e.Status = se.code
		}
	}
	if e.Message == "" {
		e.Message = http.StatusText(effective)
	}
	lower := strings.ToLower(e.Message)
	switch {
	case isOverflow(se, lower) || effective == http.StatusRequestEntityTooLarge:
		e.Kind = KindOverflow
		overflowNumbers(e, se)
	case isTemplateError(lower):
		e.Kind = KindBadRequest
	case (effective == http.StatusNotFound || effective == http.StatusBadRequest) && isModelNotFound(se, lower):
		e.Kind = KindModelNotFound
	case effective == http.StatusUnauthorized || effective == http.StatusForbidden:
		e.Kind = KindAuth
	case effective == http.StatusTooManyRequests || effective == http.StatusRequestTimeout:
		e.Kind = KindRateLimit
	case effective >= 500:
		e.Kind = KindServer
	case effective >= 400:
		e.Kind = KindBadRequest
	default:
		e.Kind = KindOther
	}
	return e
}

// Overflow wordings of the servers dev supports. Each is specific enough
// not to match an unrelated 400 (a malformed body says "unexpected EOF").
var overflowWordings = []string{
	"exceeds the available context size", // llama.cpp
	"context size has been exceeded",     // llama.cpp while decoding, LM Studio MLX
	"maximum context length",             // vLLM, OpenAI, OpenRouter
	"context_length_exceeded",            // OpenAI code, also seen in messages
	"exceeds the context window",         // OpenAI, newer wording
	"when context the overflows",         // LM Studio: "Trying to keep the first N tokens when context the overflows"
	"context length of only",             // LM Studio, same message
	"mid-generation context overflow",    // LM Studio: "Reached context length of N tokens with model ..."
	"exceeds context length",             // LM Studio, old: "Input length N exceeds context length M"
	"does not fit in context length",     // LM Studio 0.4: "Input does not fit in context length. The input has N tokens, ..."
}

func isOverflow(se serverError, lower string) bool {
	if se.typ == "exceed_context_size_error" || se.codeText == "context_length_exceeded" {
		return true
	}
	for _, w := range overflowWordings {
		if strings.Contains(lower, w) {
			return true
		}
	}
	return false
}

var (
	// The window, first match wins.
	limitPatterns = []*regexp.Regexp{
		regexp.MustCompile(`maximum context length is (\d+)`),                  // vLLM, OpenAI, OpenRouter
		regexp.MustCompile(`available context size \((\d+) tokens\)`),          // llama.cpp
		regexp.MustCompile(`context length of only (\d+)`),                     // LM Studio
		regexp.MustCompile(`reached context length of (\d+)`),                  // LM Studio
		regexp.MustCompile(`exceeds context length (\d+)`),                     // LM Studio, old
		regexp.MustCompile(`context length only supports (\d+)`),               // LM Studio 0.4
		regexp.MustCompile(`context window of (\d+)`),                          // generic
		regexp.MustCompile(`context (?:size|length|window) (?:is|of) (\d+)\b`), // generic
	}
	// The prompt size, first match wins. A second group, when present, is
	// the completion budget (max_tokens) the server added to the prompt.
	promptPatterns = []*regexp.Regexp{
		regexp.MustCompile(`\((\d+) in the messages, (\d+) in the completion\)`),  // vLLM old, OpenAI
		regexp.MustCompile(`(\d+) in your prompt; (\d+) for the completion`),      // OpenAI, older
		regexp.MustCompile(`your request has (\d+) input tokens(?: plus (\d+))?`), // vLLM new
		regexp.MustCompile(`your messages resulted in (\d+) tokens`),              // OpenAI
		regexp.MustCompile(`request \((\d+) tokens\) exceeds`),                    // llama.cpp
		regexp.MustCompile(`keep the first (\d+) tokens`),                         // LM Studio
		regexp.MustCompile(`input length (\d+) exceeds`),                          // LM Studio, old
		regexp.MustCompile(`the input has (\d+) tokens`),                          // LM Studio 0.4
		regexp.MustCompile(`requested (\d+) tokens`),                              // generic
	}
	// OpenRouter counts text input, tool input and output separately; each
	// part after the text input may be missing.
	openRouterParts = regexp.MustCompile(`\((\d+) of text input(?:, (\d+) of tool input)?(?:, (\d+) in the output)?\)`)
)

func overflowNumbers(e *Error, se serverError) {
	lower := strings.ToLower(e.Message)
	e.ContextLimit, e.PromptTokens = se.nCtx, se.nPrompt
	if e.ContextLimit == 0 {
		for _, re := range limitPatterns {
			if m := re.FindStringSubmatch(lower); m != nil {
				e.ContextLimit = atoi(m[1])
				break
			}
		}
	}
	completion := 0
	if m := openRouterParts.FindStringSubmatch(lower); m != nil {
		e.PromptTokens = atoi(m[1]) + atoi(m[2])
		completion = atoi(m[3])
	} else if e.PromptTokens == 0 {
		for _, re := range promptPatterns {
			if m := re.FindStringSubmatch(lower); m != nil {
				e.PromptTokens = atoi(m[1])
				if len(m) > 2 {
					completion = atoi(m[2])
				}
				break
			}
		}
	}
	// The prompt alone fits: the completion budget made the request too
	// large, and compressing history would not help.
	e.MaxTokensCause = completion > 0 && e.PromptTokens > 0 && e.ContextLimit > 0 &&
		e.PromptTokens < e.ContextLimit
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

// isTemplateError spots chat-template failures (llama.cpp --jinja, vLLM):
// the server reports them as 500, but the same request fails every time.
func isTemplateError(lower string) bool {
	return strings.Contains(lower, "jinja") ||
		strings.Contains(lower, "roles must alternate") ||
		strings.Contains(lower, "chat template")
}

var modelNotFound = regexp.MustCompile(`model\b.*\b(?:not found|does not exist|not exist)|model_not_found|(?:unknown|no such) model`)

func isModelNotFound(se serverError, lower string) bool {
	return se.codeText == "model_not_found" || modelNotFound.MatchString(lower)
}

// parseRetryAfter reads a Retry-After header: delay seconds or an HTTP date.
func parseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if secs, err := strconv.ParseInt(v, 10, 64); err == nil {
		if secs <= 0 {
			return 0
		}
		// Clamp before multiplying so huge values cannot overflow.
		return time.Duration(min(secs, int64(retryAfterLimit/time.Second))) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return d
		}
	}
	return 0
}

// lenientString decodes a JSON string and quietly ignores any other type,
// so an optional field of an unexpected shape cannot fail a whole chunk.
type lenientString string

func (s *lenientString) UnmarshalJSON(b []byte) error {
	var v string
	if json.Unmarshal(b, &v) == nil {
		*s = lenientString(v)
	}
	return nil
}

// lenientInt decodes a JSON number (or numeric string) and ignores the rest.
type lenientInt int

func (n *lenientInt) UnmarshalJSON(b []byte) error {
	var f float64
	if json.Unmarshal(b, &f) == nil {
		*n = lenientInt(f)
		return nil
	}
	var s string
	if json.Unmarshal(b, &s) == nil {
		if v, err := strconv.Atoi(s); err == nil {
			*n = lenientInt(v)
		}
	}
	return nil
}
