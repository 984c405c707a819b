package llm

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// wireMessage is a streamed delta or a non-streamed message. go-openai's own
// delta type lacks reasoning and reasoning_text, so chunks are decoded here.
// Every field is lenient: content may be null, and an optional field of an
// unexpected type must not fail the reply.
type wireMessage struct {
	Content          lenientString `json:"content"`
	ReasoningContent lenientString `json:"reasoning_content"` // llama.cpp, DeepSeek, older vLLM
	Reasoning        lenientString `json:"reasoning"`         // vLLM, OpenRouter, Ollama
	ReasoningText    lenientString `json:"reasoning_text"`
}

// Reasoning fields, in the order a delta's are tried.
const (
	FieldReasoningContent = "reasoning_content"
	FieldReasoning        = "reasoning"
	FieldReasoningText    = "reasoning_text"
)

// reasoning returns the first non-empty reasoning field and its name.
func (m wireMessage) reasoning() (text, field string) {
	for _, f := range []struct {
		v    lenientString
		name string
	}{{m.ReasoningContent, FieldReasoningContent}, {m.Reasoning, FieldReasoning}, {m.ReasoningText, FieldReasoningText}} {
		if f.v != "" {
			return string(f.v), f.name
		}
	}
	return "", ""
}

type wireChoice struct {
	Index        lenientInt    `json:"index"`
	Delta        wireMessage   `json:"delta"`
	Message      wireMessage   `json:"message"`
	FinishReason lenientString `json:"finish_reason"` // null and "" both mean not finished
}

type wireUsage struct {
	PromptTokens        lenientInt        `json:"prompt_tokens"`
	CompletionTokens    lenientInt        `json:"completion_tokens"`
	TotalTokens         lenientInt        `json:"total_tokens"`
	PromptTokensDetails *wireTokenDetails `json:"prompt_tokens_details"`
}

type wireTokenDetails struct {
	CachedTokens *lenientInt `json:"cached_tokens"`
}

// UnmarshalJSON ignores a value that is not an object: an optional field
// of an unexpected shape must not fail the chunk.
func (d *wireTokenDetails) UnmarshalJSON(b []byte) error {
	type plain wireTokenDetails
	var v plain
	if json.Unmarshal(b, &v) == nil {
		*d = wireTokenDetails(v)
	}
	return nil
}

// wireTimings is llama.cpp's account of one request's work, sent with the
// last chunk (the usage chunk when usage is asked for).
type wireTimings struct {
	CacheN  *lenientInt `json:"cache_n"`  // prompt tokens reused from the slot's cache
	PromptN *lenientInt `json:"prompt_n"` // prompt tokens evaluated
	// The milliseconds spent evaluating the prompt and generating the
	// reply.
	PromptMs    *lenientFloat `json:"prompt_ms"`
	PredictedMs *lenientFloat `json:"predicted_ms"`
}

// UnmarshalJSON ignores a value that is not an object, as for
// wireTokenDetails.
func (t *wireTimings) UnmarshalJSON(b []byte) error {
	type plain wireTimings
	var v plain
	if json.Unmarshal(b, &v) == nil {
		*t = wireTimings(v)
	}
	return nil
}

// wireChunk is one SSE data payload, or a whole non-streamed completion.
type wireChunk struct {
	Choices []wireChoice    `json:"choices"`
	Usage   *wireUsage      `json:"usage"`
	Timings *wireTimings    `json:"timings"`
	Error   json.RawMessage `json:"error"`
}

// MaxReplyBytes bounds a reply, content and reasoning together. A longer
// one is cut there and ends as if the server had stopped it for length
// (finish_reason "length"): no model writes 8 MB on purpose, and memory
// must not grow with what a broken server sends.
const MaxReplyBytes = 8 << 20

// replyBuilder gathers a reply from chunks.
type replyBuilder struct {
	onDelta        func(Delta)
	content        strings.Builder
	reasoning      strings.Builder
	reasoningField string // the first field reasoning came in
	finish         string
	usage          *Usage
	cut            bool // the reply reached MaxReplyBytes; later pieces are dropped
	// From usage.prompt_tokens_details and llama.cpp's timings; nil when
	// not reported.
	usageCached, timingsCached, timingsProcessed *int
	serverTime                                   time.Duration // from the last timings
}

// add takes one payload. Payloads that are not JSON objects (`data: :
// keepalive` from proxies) are skipped. It returns the payload itself when
// it is an error object, or a decoding error for a malformed object.
func (b *replyBuilder) add(payload []byte) (errPayload []byte, err error) {
	payload = bytes.TrimSpace(payload)
	if len(payload) == 0 || payload[0] != '{' {
		return nil, nil
	}
	var ch wireChunk
	if err := json.Unmarshal(payload, &ch); err != nil {
		return nil, err
	}
	if e := bytes.TrimSpace(ch.Error); len(e) > 0 && string(e) != "null" {
		return payload, nil
	}
	for _, c := range ch.Choices {
		if c.Index != 0 {
			continue // dev never asks for n > 1
		}
		for _, m := range []wireMessage{c.Delta, c.Message} {
			reasoning, field := m.reasoning()
			d := Delta{Content: string(m.Content), Reasoning: reasoning, ReasoningField: field}
			if d.Content == "" && d.Reasoning == "" || b.cut {
				continue
			}
			b.bound(&d)
			if b.reasoningField == "" {
				b.reasoningField = field
			}
			b.content.WriteString(d.Content)
			b.reasoning.WriteString(d.Reasoning)
			if b.onDelta != nil {
				b.onDelta(d)
			}
		}
		if c.FinishReason != "" && !b.cut {
			b.finish = string(c.FinishReason)
		}
	}
	// All zeros means the server does not count (LM Studio): unknown.
	if u := ch.Usage; u != nil && (u.PromptTokens != 0 || u.CompletionTokens != 0 || u.TotalTokens != 0) {
		b.usage = &Usage{
			PromptTokens:     int(u.PromptTokens),
			CompletionTokens: int(u.CompletionTokens),
			TotalTokens:      int(u.TotalTokens),
		}
		if d := u.PromptTokensDetails; d != nil && d.CachedTokens != nil {
			b.usageCached = intOf(d.CachedTokens)
		}
	}
	if t := ch.Timings; t != nil && (t.PromptMs != nil || t.PredictedMs != nil) {
		b.serverTime = millis(t.PromptMs) + millis(t.PredictedMs)
	}
	if t := ch.Timings; t != nil && (t.CacheN != nil || t.PromptN != nil) {
		b.timingsCached, b.timingsProcessed = nil, nil
		if t.CacheN != nil {
			b.timingsCached = intOf(t.CacheN)
		}
		if t.PromptN != nil {
			b.timingsProcessed = intOf(t.PromptN)
		}
	}
	return nil, nil
}

// bound shortens d to what still fits in MaxReplyBytes, on character
// boundaries, and marks the reply cut when it does not all fit.
func (b *replyBuilder) bound(d *Delta) {
	room := MaxReplyBytes - b.content.Len() - b.reasoning.Len()
	if len(d.Reasoning)+len(d.Content) <= room {
		return
	}
	b.markCut()
	d.Reasoning = prefix(d.Reasoning, room)
	d.Content = prefix(d.Content, room-len(d.Reasoning))
}

// markCut ends the reply as cut for length.
func (b *replyBuilder) markCut() {
	b.cut, b.finish = true, "length"
}

// prefix is s cut to at most n bytes, not inside a character.
func prefix(s string, n int) string {
	if n <= 0 {
		return ""
	}
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// millis is a duration the server gave in milliseconds; 0 when it gave
// none, or one that makes no sense.
func millis(ms *lenientFloat) time.Duration {
	if ms == nil || !(*ms > 0) || *ms > 1e12 {
		return 0
	}
	return time.Duration(math.Round(float64(*ms) * float64(time.Millisecond)))
}

// lenientFloat is a number that may come as a string; anything else is
// 0, so that one odd field does not lose the others beside it.
type lenientFloat float64

func (n *lenientFloat) UnmarshalJSON(b []byte) error {
	var f float64
	if json.Unmarshal(b, &f) == nil {
		*n = lenientFloat(f)
		return nil
	}
	var s string
	if json.Unmarshal(b, &s) == nil {
		if v, err := strconv.ParseFloat(s, 64); err == nil {
			*n = lenientFloat(v)
		}
	}
	return nil
}

func intOf(n *lenientInt) *int {
	v := int(*n)
	return &v
}

// cache is what the server said about its prompt cache, nil when nothing:
// llama.cpp's timings first (they also say how much was processed), else
// the usage's cached tokens. A llama.cpp prompt is cache_n + prompt_n
// tokens, so with the usage either one gives the other (builds before
// cache_n sent prompt_n alone).
func (b *replyBuilder) cache() *PromptCache {
	prompt := -1
	if b.usage != nil {
		prompt = b.usage.PromptTokens
	}
	switch cached, processed := b.timingsCached, b.timingsProcessed; {
	case cached != nil && processed != nil:
		return &PromptCache{CachedTokens: *cached, ProcessedTokens: *processed}
	case cached != nil:
		return &PromptCache{CachedTokens: *cached, ProcessedTokens: max(prompt-*cached, 0)}
	case processed != nil && prompt >= 0:
		return &PromptCache{CachedTokens: max(prompt-*processed, 0), ProcessedTokens: *processed}
	case b.usageCached != nil && prompt >= 0:
		return &PromptCache{CachedTokens: *b.usageCached, ProcessedTokens: max(prompt-*b.usageCached, 0)}
	}
	return nil
}

// started reports whether the reply got anywhere: content or a finish reason.
func (b *replyBuilder) started() bool {
	return b.content.Len() > 0 || b.finish != ""
}

func (b *replyBuilder) reply() Reply {
	return Reply{
		Content:        b.content.String(),
		Reasoning:      b.reasoning.String(),
		ReasoningField: b.reasoningField,
		FinishReason:   b.finish,
		Usage:          b.usage,
		Cut:            b.cut,
		Cache:          b.cache(),
		ServerTime:     b.serverTime,
	}
}
