package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/devagent/dev/capture"
	"github.com/devagent/dev/mcp"
	"github.com/devagent/dev/parser"
	"github.com/devagent/dev/textfmt"
)

// BriefLineMax bounds the line the system prompt gives an MCP tool ("- " +
// name + ": " + brief + newline): at about 4 characters a token, 25 tokens
// a tool, so that many servers do not fill the context.
const BriefLineMax = 100

// MCPTool is a tool of an MCP server as a protocol tool named SERVER.TOOL.
// Its input is one JSON object, checked against the tool's input schema
// before anything is sent; the system prompt gives it one line and
// TOOL_HELP the rest.
type MCPTool struct {
	t *mcp.Tool
}

// NewMCPTools makes the protocol tools of a set's tools (mcp.Set.Tools).
func NewMCPTools(list []*mcp.Tool) []Tool {
	out := make([]Tool, len(list))
	for i, t := range list {
		out[i] = MCPTool{t: t}
	}
	return out
}

// Name implements Tool.
func (m MCPTool) Name() string { return m.t.Server + "." + m.t.Name }

// Doc implements Tool.
func (m MCPTool) Doc() Doc {
	name := m.Name()
	desc := m.t.Description
	if desc == "" {
		desc = "(The server gives no description.)"
	}
	return Doc{
		Name:        name,
		Description: fmt.Sprintf("Tool %q of the MCP server %q. %s", m.t.Name, m.t.Server, desc),
		Brief:       mcp.FirstSentence(m.t.Description, BriefLineMax-len("- : \n")-utf8.RuneCountInString(name)),
		Schema:      m.t.Schema,
		Input:       parser.InputJSON,
	}
}

// args reads the input: one JSON object, bare or in a code block; nothing
// at all is the empty object.
func (m MCPTool) args(input string) (map[string]any, error) {
	text := strings.TrimSpace(input)
	if isFence(text) {
		if blocks := parser.CodeBlocks(text); len(blocks) > 0 {
			text = strings.TrimSpace(blocks[0].Content)
		}
	}
	if text == "" {
		text = "{}"
	}
	var v any
	if err := json.Unmarshal([]byte(text), &v); err != nil {
		var syn *json.SyntaxError
		if errors.As(err, &syn) {
			// Offset counts the offending byte too.
			line, col := textPosition(text, int(syn.Offset)-1)
			return nil, fmt.Errorf("the input is not valid JSON (line %d, column %d: %s); write one JSON object such as %s", line, col, syn.Error(), m.example())
		}
		return nil, fmt.Errorf("the input is not valid JSON (%v); write one JSON object such as %s", err, m.example())
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("the input must be one JSON object such as %s, got %s", m.example(), jsonKind(v))
	}
	return obj, nil
}

// example is an input object with the schema's required fields.
func (m MCPTool) example() string {
	var s struct {
		Properties map[string]struct {
			Type any `json:"type"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	if json.Unmarshal([]byte(m.t.Schema), &s) != nil || len(s.Required) == 0 {
		return "{}"
	}
	parts := make([]string, 0, len(s.Required))
	for _, f := range s.Required {
		kind, _ := s.Properties[f].Type.(string)
		v := map[string]string{"string": `"…"`, "integer": "1", "number": "1", "boolean": "true", "array": "[…]", "object": "{…}"}[kind]
		if v == "" {
			v = "…"
		}
		parts = append(parts, fmt.Sprintf("%q: %s", f, v))
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

func jsonKind(v any) string {
	switch v.(type) {
	case []any:
		return "an array"
	case string:
		return "a string"
	case float64:
		return "a number"
	case bool:
		return "a boolean"
	case nil:
		return "null"
	}
	return fmt.Sprintf("%T", v)
}

// textPosition turns a byte offset into a 1-based line and column.
func textPosition(s string, off int) (line, col int) {
	off = max(0, min(off, len(s)))
	before := s[:off]
	line = strings.Count(before, "\n") + 1
	return line, utf8.RuneCountInString(before[strings.LastIndexByte(before, '\n')+1:]) + 1
}

// Check implements Tool: the input must be a JSON object the schema
// accepts.
func (m MCPTool) Check(input string) (Checked, error) {
	return Bind(input, m.read, m.run)
}

// read reads the input into the arguments of the call, checked against
// the tool's input schema.
func (m MCPTool) read(input string) (map[string]any, error) {
	args, err := m.args(input)
	if err == nil {
		err = m.t.Validate(args)
	}
	if err != nil {
		return nil, fmt.Errorf("%v. %s with input %s shows the tool's input schema", err, ToolHelp, m.Name())
	}
	return args, nil
}

func (m MCPTool) run(ctx context.Context, env *Env, args map[string]any) Result {
	name := m.Name()
	compact, _ := json.Marshal(args)
	r := Result{Tool: name, Summary: textfmt.Summary(string(compact), 80), ExitCode: 1}
	// The audit sees MCP calls among the commands run, as the approval
	// modes treat them as commands.
	r.Command = name + " " + textfmt.Summary(string(compact), 200)
	if v := env.approve(ctx, Action{Tool: name, Command: name, Input: string(compact), MCP: true}); !v.Allowed {
		return r.refuse(v.Why)
	}
	timeout := env.CommandTimeout
	if timeout <= 0 {
		timeout = defaultCommandTimeout
	}
	res, err := m.t.Call(ctx, args, timeout)
	if err != nil {
		return r.fail(err.Error() + ".")
	}
	out := capture.New(env.OutputDir, env.Spills)
	_, _ = out.Write([]byte(renderContent(res)))
	out.Close()
	if res.IsError {
		return r.fail(fmt.Sprintf("%s reported an error:\n%s", name, out.String()))
	}
	r.OK, r.ExitCode, r.Output = true, 0, out.String()
	return r
}

// renderContent is a result as text: text as it came, other content
// summarised on a line of its own (type and size).
func renderContent(res mcp.Result) string {
	var parts []string
	for _, c := range res.Content {
		switch {
		case c.Type == "text":
			parts = append(parts, c.Text)
		case c.Type == "resource" && c.Text != "":
			parts = append(parts, fmt.Sprintf("[resource %s%s]\n%s", c.URI, paren(c.MIMEType), c.Text))
		case c.Type == "resource_link":
			parts = append(parts, fmt.Sprintf("[resource link: %s %s%s]", c.Name, c.URI, paren(c.MIMEType, sizeOf(c.Size))))
		case c.Type == "resource":
			parts = append(parts, fmt.Sprintf("[resource %s%s]", c.URI, paren(c.MIMEType, sizeOf(c.Size))))
		default:
			parts = append(parts, fmt.Sprintf("[%s content%s]", c.Type, paren(c.MIMEType, sizeOf(c.Size))))
		}
	}
	if len(parts) == 0 && res.Structured != "" {
		return res.Structured
	}
	return strings.Join(parts, "\n")
}

func sizeOf(n int64) string {
	if n < 0 {
		return ""
	}
	return textfmt.Size(n)
}

// paren writes the non-empty items as " (a, b)".
func paren(items ...string) string {
	var kept []string
	for _, s := range items {
		if s != "" {
			kept = append(kept, s)
		}
	}
	if len(kept) == 0 {
		return ""
	}
	return " (" + strings.Join(kept, ", ") + ")"
}
