package llm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"
)

// longHistory is a request late in a long session: a system prompt and
// steps alternating a reply and a tool result, about size bytes in all,
// full of the <tool_result> tags and quotes histories hold.
func longHistory(size int) Request {
	req := Request{Model: "devstral-small-2507", Messages: []Message{{Role: RoleSystem, Content: strings.Repeat("You are dev. ", 300)}}}
	for i := 0; ; i++ {
		reply := fmt.Sprintf("# Agent Response\n\n## Thoughts\nStep %d: read the next file.\n\n## Tool Choice\nREAD_FILE\n\n## Tool Input\n\"src/f%d.go\"\n", i, i)
		result := fmt.Sprintf("<tool_result tool=\"READ_FILE\" ok=\"true\" path=\"src/f%d.go\">\n", i) +
			strings.Repeat("\tif err != nil && x < 3 { return fmt.Errorf(\"read: %w\", err) }\n", 8) + "</tool_result>"
		req.Messages = append(req.Messages, Message{Role: RoleAssistant, Content: reply}, Message{Role: RoleUser, Content: result})
		n := 0
		for _, m := range req.Messages {
			n += len(m.Content)
		}
		if n >= size {
			return req
		}
	}
}

// BenchmarkRequestBody builds the body of a chat request with a 200 KB
// history, as every step of a long session does: normalise the history,
// convert it and encode it. go-openai: what go-openai's encoding of the
// same request costs (see body.go).
func BenchmarkRequestBody(b *testing.B) {
	req := longHistory(200 << 10)
	for _, bc := range []struct {
		name   string
		encode func(openai.ChatCompletionRequest) ([]byte, error)
	}{
		{"dev", requestBody},
		{"go-openai", func(r openai.ChatCompletionRequest) ([]byte, error) { return json.Marshal(r) }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			body, err := bc.encode(chatRequest(req, true))
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := bc.encode(chatRequest(req, true)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// The body dev encodes is byte for byte the one go-openai would have sent.
func TestRequestBodyIsGoOpenAIs(t *testing.T) {
	t.Parallel()
	zero, warm, limit := 0.0, 0.7, 512
	msgs := []Message{
		{Role: RoleSystem, Content: "You are dev. <rules> & \"quotes\""},
		{Role: RoleUser, Content: "<user_request>fix a < b && c > d</user_request>"},
		{Role: RoleAssistant, Content: "# Agent Response\n\n## Thoughts\nhéllo wörld \u2028 \t tabs \x01 and invalid \xff utf-8"},
		{Role: RoleUser, Content: "   "},
		{Role: "tool", Content: "<tool_result tool=\"COMMAND\" ok=\"false\">exit 1</tool_result>"},
	}
	requests := map[string]Request{
		"plain":           {Model: "m", Messages: msgs},
		"temperature 0":   {Model: "m", Messages: msgs, Temperature: &zero},
		"sampling":        {Model: "qwen3:8b", Messages: msgs, Temperature: &warm, MaxTokens: &limit},
		"assistant first": {Model: "m", Messages: msgs[2:]},
		"no messages":     {Model: "m"},
		"long history":    longHistory(64 << 10),
	}
	for name, req := range requests {
		for _, usage := range []bool{true, false} {
			wire := chatRequest(req, usage)
			checkBody(t, fmt.Sprintf("%s, usage %v", name, usage), wire)
		}
	}
	// Fields the encoder does not know are not lost: go-openai encodes those.
	unknown := chatRequest(requests["plain"], true)
	unknown.TopP = 0.9
	checkBody(t, "a request field dev never sets", unknown)
	named := chatRequest(requests["plain"], true)
	named.Messages[1].Name = "ann"
	checkBody(t, "a message field dev never sets", named)
}

func checkBody(t *testing.T, name string, wire openai.ChatCompletionRequest) {
	t.Helper()
	got, err := requestBody(wire)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	want, err := json.Marshal(wire)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s: body\n%s\nwant go-openai's\n%s", name, got, want)
	}
}
