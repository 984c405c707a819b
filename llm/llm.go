// Package llm talks to OpenAI-compatible chat servers: message and usage
// types, one streaming chat call over go-openai with the quirks of real local
// servers handled, typed errors the loop can act on, and discovery of what
// the server is and how large a context it gives a model.
package llm

import (
	"net/http"
	"time"
)

// Roles of chat messages.
const (
	RoleSystem    = "system"
	RoleUser      = "user"
	RoleAssistant = "assistant"
)

// Message is one chat message as sent to the server and stored in sessions.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// Usage is the server's token accounting for one request.
type Usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

// Params are the request parameters a conversation sends with every
// request: one type for the worker's, the auditor's and the summariser's
// requests (and dev doctor's probes), which differ only in their values.
type Params struct {
	Model       string
	Temperature *float64
	// MaxTokens caps the reply (max_tokens); nil sends none.
	MaxTokens *int
	// Thinking asks a reasoning model to think so much, in the dialect of
	// the server (see thinking.go); ThinkingAuto sends nothing.
	Thinking Thinking
	// Extra is merged into the request body: server knobs (top_k, min_p,
	// …). Its keys win over dev's optional ones; model, messages, stream
	// and stream_options are dev's (config refuses them).
	Extra map[string]any
	// Grammar is a GBNF grammar the reply must follow, sent in
	// GrammarField ("" is llama.cpp's "grammar"; see shape.go); Schema is a
	// JSON schema it must follow, sent as response_format. At most one is
	// set; neither sends no shape. A server that rejects the shape gets
	// the request again without it, and no shape for the client's
	// lifetime.
	Grammar      string
	GrammarField string
	Schema       *Schema
}

// Request is one chat completion: the parameters and the messages.
// Messages are normalised (see Normalize) by Stream before sending. Nil
// optional fields are not sent.
type Request struct {
	Params
	Messages []Message
	// LessThinking asks for less thinking than Thinking, for one retry of
	// a reply that was all reasoning.
	LessThinking bool
	// Stop, when set, sees every piece of the reply as it arrives; true
	// closes the request there (the server stops generating) and Stream
	// returns what came so far, Reply.Stopped set.
	Stop func(Delta) bool
	// Alive, when set, is told that the server sent bytes (keep-alive
	// comments while it processes a long prompt on a slow CPU, or the
	// reply), at most once a second: the caller can show that a server
	// that has sent no token yet is still there.
	Alive func()
}

// Delta is a piece of a streamed reply, passed to the caller as it arrives.
type Delta struct {
	Content   string
	Reasoning string
	// ReasoningField names the field Reasoning came in (FieldReasoning...),
	// "" when there is none.
	ReasoningField string
}

// Reply is a complete streamed reply.
type Reply struct {
	Content   string // raw content, <think> blocks included
	Reasoning string // from reasoning_content / reasoning / reasoning_text
	// ReasoningField names the field Reasoning came in (FieldReasoning...),
	// "" when there was none. Inline <think> blocks stay in Content.
	ReasoningField string
	FinishReason   string // "stop", "length", ... ("" when the server sent none)
	Usage          *Usage // nil when the server sent none, or only zeros
	// Stopped: Request.Stop closed the request before the server finished.
	Stopped bool
	// FirstByte is how long the first piece of the reply took to come (the
	// prompt's processing, on a local server); Duration the whole request.
	FirstByte, Duration time.Duration
	// Cut: dev cut the reply at MaxReplyBytes (or at a data line longer
	// than it could hold); FinishReason is then "length".
	Cut bool
	// Cache is what the server said about its prompt cache for this
	// request (SPEC §16's cachedTokens); nil when it said nothing.
	Cache *PromptCache
	// ServerTime is the server's own account of the time it worked on the
	// request (llama.cpp's timings.prompt_ms + predicted_ms): without the
	// network, queueing for a slot, or dev; 0 when it gave none.
	ServerTime time.Duration
	// Shaped is the form of the shape the request that got this reply
	// carried, as sent.
	Shaped Shape
	// ShapeRejected is the form of the shape the server rejected on this
	// request (the reply came from the request sent again without it): it
	// is the first such request of the client, and the last to carry a
	// shape. ShapeError is the server's words.
	ShapeRejected Shape
	ShapeError    string
}

// PromptCache is how much of one request's prompt a server took from its
// prompt cache instead of processing it again. llama.cpp reports it in
// `timings` (cache_n, prompt_n) and in usage.prompt_tokens_details
// .cached_tokens; vLLM (with prefix caching) and OpenAI only in the latter.
type PromptCache struct {
	CachedTokens int // prompt tokens reused from the cache
	// ProcessedTokens is the prompt tokens the server evaluated for this
	// request: llama.cpp's timings.prompt_n, else the usage's prompt tokens
	// less the cached ones; 0 when neither was reported.
	ProcessedTokens int
}

// Reused is the fraction of the prompt taken from the cache, 0 to 1 (0
// when nothing is known of the prompt's size).
func (p PromptCache) Reused() float64 {
	total := p.CachedTokens + p.ProcessedTokens
	if total <= 0 {
		return 0
	}
	return float64(p.CachedTokens) / float64(total)
}

// Config configures a Client.
type Config struct {
	BaseURL string // e.g. http://localhost:8005/v1
	APIKey  string // sent as a Bearer token only when not empty
	// IdleTimeout aborts a request when no byte arrives for this long
	// (keep-alive comments count as bytes). Zero means no limit.
	IdleTimeout time.Duration
	HTTPClient  *http.Client // nil: a client without a total timeout
}
