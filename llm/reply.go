package llm

import (
	"bytes"
	"encoding/json"
	"strings"
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
	PromptTokens     lenientInt `json:"prompt_tokens"`
	CompletionTokens lenientInt `json:"completion_tokens"`
	TotalTokens      lenientInt `json:"total_tokens"`
}

// wireChunk is one SSE data payload, or a whole non-streamed completion.
type wireChunk struct {
	Choices []wireChoice    `json:"choices"`
	Usage   *wireUsage      `json:"usage"`
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
	}
}
