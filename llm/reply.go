package llm

import (
	"bytes"
	"encoding/json"
	"strings"
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

// replyBuilder gathers a reply from chunks.
type replyBuilder struct {
	onDelta        func(Delta)
	content        strings.Builder
	reasoning      strings.Builder
	reasoningField string // the first field reasoning came in
	finish         string
	usage          *Usage
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
			if d.Content == "" && d.Reasoning == "" {
				continue
			}
			if b.reasoningField == "" {
				b.reasoningField = field
			}
			b.content.WriteString(d.Content)
			b.reasoning.WriteString(d.Reasoning)
			if b.onDelta != nil {
				b.onDelta(d)
			}
		}
		if c.FinishReason != "" {
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
	}
}
