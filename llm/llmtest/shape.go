package llmtest

import (
	"encoding/json"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/devagent/dev/parser"
)

// What a server does with the shape of a request (SPEC §18), as the mock
// imitates it: a server applies the fields it reads and ignores the
// others. Applied, a grammar or a schema that allows one string only (dev
// doctor's probe) is answered with that string whatever the script says,
// as a real model would be forced to; the JSON form of the reply is
// answered with the scripted reply in that form.

// applies are the shape fields each server reads.
var applies = map[Kind][]string{
	Generic:    {"response_format"}, // OpenAI reads response_format
	OpenRouter: {"response_format"},
	LlamaCpp:   {"grammar", "response_format"},
	VLLM:       {"structured_outputs.grammar", "response_format"},
	VLLMOld:    {"guided_grammar", "response_format"},
	SGLang:     {"ebnf", "response_format"},
	Ollama:     {"response_format"},
	LMStudio:   {"response_format"},
}

// schemaOf finds the JSON schema of a request body's response_format, as
// sent (the order of its properties is the order a model writes them), and
// the name it was given.
func schemaOf(body []byte) (schema, name string) {
	var req struct {
		ResponseFormat *struct {
			JSONSchema *struct {
				Name   string          `json:"name"`
				Schema json.RawMessage `json:"schema"`
			} `json:"json_schema"`
		} `json:"response_format"`
	}
	if json.Unmarshal(body, &req) != nil || req.ResponseFormat == nil || req.ResponseFormat.JSONSchema == nil {
		return "", ""
	}
	return string(req.ResponseFormat.JSONSchema.Schema), req.ResponseFormat.JSONSchema.Name
}

// literalGrammar matches a grammar that allows one string: root ::= "…".
var literalGrammar = regexp.MustCompile(`^root\s*::=\s*("(?:[^"\\]|\\.)*")\s*$`)

// only is the one string a grammar or a schema allows, and whether it
// allows only one: a literal root, or an object whose every property is a
// const.
func only(grammar, schema string) (string, bool) {
	if m := literalGrammar.FindStringSubmatch(strings.TrimSpace(grammar)); m != nil {
		s, err := strconv.Unquote(m[1])
		return s, err == nil
	}
	if schema == "" {
		return "", false
	}
	var s struct {
		Type       string                     `json:"type"`
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if json.Unmarshal([]byte(schema), &s) != nil || s.Type != "object" || len(s.Properties) == 0 {
		return "", false
	}
	obj := map[string]any{}
	for name, p := range s.Properties {
		var c struct {
			Const *string `json:"const"`
		}
		if json.Unmarshal(p, &c) != nil || c.Const == nil {
			return "", false
		}
		obj[name] = *c.Const
	}
	out, _ := json.Marshal(obj)
	return string(out), true
}

// inJSON is a reply in the template written in the JSON form of schema (the
// reply schema dev sends): its thoughts, tasks and calls, each call's input
// in the fields the schema gives its tool. A reply that does not parse, or
// calls a tool the schema lacks, stays as it is.
func inJSON(reply, schema string) string {
	var s struct {
		Properties struct {
			Calls struct {
				Items json.RawMessage `json:"items"`
			} `json:"calls"`
		} `json:"properties"`
	}
	if json.Unmarshal([]byte(schema), &s) != nil || s.Properties.Calls.Items == nil {
		return reply
	}
	var union struct {
		AnyOf []callSchema `json:"anyOf"`
	}
	var calls []callSchema
	if json.Unmarshal(s.Properties.Calls.Items, &union) == nil && len(union.AnyOf) > 0 {
		calls = union.AnyOf
	} else {
		var one callSchema
		if json.Unmarshal(s.Properties.Calls.Items, &one) != nil {
			return reply
		}
		calls = []callSchema{one}
	}
	fields := map[string][]string{}
	var names []string
	for _, c := range calls {
		var tool struct {
			Const string `json:"const"`
		}
		if json.Unmarshal(c.Properties["tool"].raw, &tool) != nil || tool.Const == "" {
			return reply
		}
		names = append(names, tool.Const)
		fields[tool.Const] = c.order
	}
	resp, err := parser.Parse(reply, names)
	if err != nil {
		return reply
	}
	var out strings.Builder
	out.WriteString(`{"thoughts": ` + quote(resp.Thoughts) + `, "tasks": [`)
	for i, t := range resp.Tasks {
		if i > 0 {
			out.WriteString(", ")
		}
		out.WriteString(`{"status": ` + quote(string(t.Status)) + `, "text": ` + quote(t.Text) + `}`)
	}
	out.WriteString(`], "calls": [`)
	for i, c := range resp.Tools {
		if i > 0 {
			out.WriteString(", ")
		}
		out.WriteString(`{"tool": ` + quote(c.Name))
		for _, f := range callFields(fields[c.Name], c.Input) {
			out.WriteString(", " + quote(f[0]) + ": " + f[1])
		}
		out.WriteString("}")
	}
	out.WriteString("]}")
	return out.String()
}

// callFields are a tool input's values in the fields of its object, as
// JSON values, in the schema's order.
func callFields(fields []string, input string) [][2]string {
	line, rest, _ := strings.Cut(strings.TrimSpace(input), "\n")
	path := strings.Trim(strings.TrimSpace(line), "\"'`")
	blocks := parser.CodeBlocks(rest)
	var out [][2]string
	for _, f := range fields {
		switch f {
		case "path":
			p := path
			if m := rangeAfter.FindStringSubmatch(path); m != nil && slices.Contains(fields, "lines") {
				p = m[1]
				out = append(out, [2]string{"path", quote(p)}, [2]string{"lines", quote(m[2])})
				continue
			}
			out = append(out, [2]string{"path", quote(p)})
		case "lines":
		case "content", "find", "replace":
			i := map[string]int{"content": 0, "find": 0, "replace": 1}[f]
			text := ""
			if i < len(blocks) {
				text = blocks[i].Content
				if f != "content" {
					text = strings.TrimSuffix(text, "\n")
				}
			}
			out = append(out, [2]string{f, quote(text)})
		case "command":
			c := strings.TrimSpace(input)
			if blocks := parser.CodeBlocks(c); strings.HasPrefix(c, "```") && len(blocks) > 0 {
				c = strings.TrimSpace(blocks[0].Content)
			}
			out = append(out, [2]string{f, quote(c)})
		case "arguments":
			args := strings.TrimSpace(input)
			if !json.Valid([]byte(args)) {
				args = "{}"
			}
			out = append(out, [2]string{f, args})
		default: // summary, input
			if t := strings.TrimSpace(input); t != "" {
				out = append(out, [2]string{f, quote(t)})
			}
		}
	}
	return out
}

// rangeAfter is a path followed by a line range: "a.go 40-80".
var rangeAfter = regexp.MustCompile(`^(.*?)[ :](\d+-\d+)$`)

// callSchema is one tool's object in the reply schema, its property names
// kept in order.
type callSchema struct {
	Properties map[string]properties
	order      []string
}

type properties struct{ raw json.RawMessage }

func (p *properties) UnmarshalJSON(b []byte) error {
	p.raw = append(json.RawMessage(nil), b...)
	return nil
}

func (c *callSchema) UnmarshalJSON(b []byte) error {
	var s struct {
		Properties json.RawMessage `json:"properties"`
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	if err := json.Unmarshal(s.Properties, &c.Properties); err != nil {
		return err
	}
	// The order of the fields, as written.
	dec := json.NewDecoder(strings.NewReader(string(s.Properties)))
	if _, err := dec.Token(); err != nil {
		return err
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		if name, _ := tok.(string); name != "tool" {
			c.order = append(c.order, name)
		}
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return err
		}
	}
	return nil
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
