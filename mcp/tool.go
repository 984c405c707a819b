package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Tool is one tool of a connected server.
type Tool struct {
	Server      string // the server's name in the configuration
	Name        string // the tool's name as the server gives it
	Description string
	// Schema is the tool's input schema as the server gave it, indented.
	Schema string

	srv *Server
	// schema checks arguments before they are sent; nil when the server's
	// schema cannot be compiled here (then only the server checks them).
	schema *jsonschema.Resolved
	fields []string // the schema's top-level properties, for messages
}

func newTool(srv *Server, t *sdk.Tool) *Tool {
	tool := &Tool{Server: srv.Name, Name: t.Name, Description: strings.TrimSpace(t.Description), srv: srv}
	raw, err := json.Marshal(t.InputSchema)
	if err != nil || t.InputSchema == nil {
		raw = []byte(`{"type":"object"}`)
	}
	if indented, err := json.MarshalIndent(json.RawMessage(raw), "", "  "); err == nil {
		tool.Schema = string(indented)
	}
	var s jsonschema.Schema
	if json.Unmarshal(raw, &s) == nil {
		if resolved, err := s.Resolve(nil); err == nil {
			tool.schema = resolved
		}
		for name := range s.Properties {
			tool.fields = append(tool.fields, name)
		}
		slices.Sort(tool.fields)
	}
	return tool
}

// Validate checks args against the tool's input schema. The error, written
// for the model, names the fields missing or of the wrong type.
func (t *Tool) Validate(args map[string]any) error {
	if t.schema == nil {
		return nil
	}
	if args == nil {
		args = map[string]any{}
	}
	if err := t.schema.Validate(args); err != nil {
		return &InputError{Message: explain(err, t.fields)}
	}
	return nil
}

// InputError is arguments that do not match the tool's input schema.
type InputError struct{ Message string }

func (e *InputError) Error() string { return e.Message }

// Result is what a tool returned.
type Result struct {
	Content []Content
	// Structured is the structured content, as JSON, when the server gave
	// one (it usually repeats the text content too).
	Structured string
	// IsError is set when the tool reports that it failed.
	IsError bool
}

// Content is one item of a result, as plain values.
type Content struct {
	Type     string // text, image, audio, resource_link, resource, or what the server sent
	Text     string // text; the text of an embedded text resource
	MIMEType string
	Size     int64  // bytes of an image, audio or embedded blob; a link's declared size; -1 when unknown
	URI      string // resource link and embedded resource
	Name     string // resource link
}

// Call calls the tool with args (which Validate should have accepted),
// bounded by timeout. A call that gets no result is a *CallError saying why
// (timeout, interruption, the server gone or refusing); a tool that reports
// a failure is a Result with IsError.
func (t *Tool) Call(ctx context.Context, args map[string]any, timeout time.Duration) (Result, error) {
	if args == nil {
		args = map[string]any{}
	}
	if !t.srv.Connected() {
		return Result{}, &CallError{Err: ErrServerGone, Message: fmt.Sprintf("%s.%s: MCP server %q is not connected", t.Server, t.Name, t.Server)}
	}
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	res, err := t.srv.session.CallTool(cctx, &sdk.CallToolParams{Name: t.Name, Arguments: args})
	if err != nil {
		return Result{}, t.srv.callError(cctx, t.Name, timeout, err)
	}
	out := Result{IsError: res.IsError}
	for _, c := range res.Content {
		out.Content = append(out.Content, content(c))
	}
	if res.StructuredContent != nil {
		if b, err := json.Marshal(res.StructuredContent); err == nil {
			out.Structured = string(b)
		}
	}
	return out, nil
}

func content(c sdk.Content) Content {
	switch c := c.(type) {
	case *sdk.TextContent:
		return Content{Type: "text", Text: c.Text, Size: -1}
	case *sdk.ImageContent:
		return Content{Type: "image", MIMEType: c.MIMEType, Size: int64(len(c.Data))}
	case *sdk.AudioContent:
		return Content{Type: "audio", MIMEType: c.MIMEType, Size: int64(len(c.Data))}
	case *sdk.ResourceLink:
		size := int64(-1)
		if c.Size != nil {
			size = *c.Size
		}
		return Content{Type: "resource_link", URI: c.URI, Name: c.Name, MIMEType: c.MIMEType, Size: size}
	case *sdk.EmbeddedResource:
		out := Content{Type: "resource", Size: -1}
		if r := c.Resource; r != nil {
			out.URI, out.MIMEType, out.Text = r.URI, r.MIMEType, r.Text
			if r.Blob != nil {
				out.Size = int64(len(r.Blob))
			}
		}
		return out
	}
	kind := fmt.Sprintf("%T", c)
	var wire struct {
		Type string `json:"type"`
	}
	if b, err := json.Marshal(c); err == nil && json.Unmarshal(b, &wire) == nil && wire.Type != "" {
		kind = wire.Type
	}
	return Content{Type: kind, Size: -1}
}

// explain rewrites a jsonschema-go error, which names schema locations
// ("validating root: validating /properties/n: type: ..."), as fields of
// the input the model wrote. What it does not recognise it passes on.
func explain(err error, fields []string) string {
	msg := err.Error()
	var path []string
	for {
		rest, ok := strings.CutPrefix(msg, "validating ")
		if !ok {
			break
		}
		loc, after, ok := strings.Cut(rest, ": ")
		if !ok {
			break
		}
		path = fieldPath(loc)
		msg = after
	}
	field := strings.Join(path, "")
	where := ""
	if field != "" {
		where = fmt.Sprintf(" in %q", field)
	}
	switch {
	case strings.HasPrefix(msg, "required: missing properties: "):
		names := listed(strings.TrimPrefix(msg, "required: missing properties: "))
		return fmt.Sprintf("missing required field%s %s%s", pluralS(len(names)), quoteAll(names), where)
	case strings.HasPrefix(msg, "unexpected additional properties "):
		names := listed(strings.TrimPrefix(msg, "unexpected additional properties "))
		m := fmt.Sprintf("unknown field%s %s%s", pluralS(len(names)), quoteAll(names), where)
		if field == "" && len(fields) > 0 {
			m += "; the fields are " + quoteAll(fields)
		}
		return m
	case strings.HasPrefix(msg, "type: "):
		// "type: 1 has type \"integer\", want \"string\""
		var got, want string
		if i := strings.LastIndex(msg, " has type "); i >= 0 {
			got, want, _ = strings.Cut(msg[i+len(" has type "):], ", want ")
			value := strings.TrimPrefix(msg[:i], "type: ")
			if field == "" {
				return fmt.Sprintf("the input must be %s, got %s", wanted(want), strings.Trim(got, `"`))
			}
			return fmt.Sprintf("field %q must be %s, got %s %s", field, wanted(want), strings.Trim(got, `"`), shorten(value))
		}
	}
	if field == "" {
		return msg
	}
	return fmt.Sprintf("field %q: %s", field, msg)
}

// fieldPath turns a schema location (/properties/a/items/properties/b) into
// the input's path (a, [], .b).
func fieldPath(loc string) []string {
	if loc == "root" || !strings.HasPrefix(loc, "/") {
		return nil
	}
	segs := strings.Split(loc[1:], "/")
	var path []string
	for i := 0; i < len(segs); i++ {
		switch segs[i] {
		case "properties":
			if i+1 < len(segs) {
				name := strings.NewReplacer("~1", "/", "~0", "~").Replace(segs[i+1])
				if len(path) > 0 {
					name = "." + name
				}
				path = append(path, name)
				i++
			}
		case "items", "additionalItems":
			path = append(path, "[]")
		case "prefixItems":
			if i+1 < len(segs) {
				path = append(path, "["+segs[i+1]+"]")
				i++
			}
		case "$defs", "definitions":
			// A shared definition: where it was used is not known.
			path = nil
			i++
		}
	}
	return path
}

// listed reads the %q list of jsonschema-go: ["a" "b"].
func listed(s string) []string {
	s = strings.TrimSpace(s)
	s = strings.TrimSuffix(strings.TrimPrefix(s, "["), "]")
	var out []string
	for _, f := range strings.Fields(s) {
		out = append(out, strings.Trim(f, `"`))
	}
	return out
}

func quoteAll(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return strings.Join(q, ", ")
}

func pluralS(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// wanted reads the wanted type(s) of jsonschema-go: "string", or
// one of ["string" "null"].
func wanted(want string) string {
	if rest, ok := strings.CutPrefix(want, "one of "); ok {
		// Written "string, null" or ["string" "null"] depending on how
		// the schema spelled the types.
		kinds := listed(strings.ReplaceAll(strings.ReplaceAll(rest, ",", " "), `"`, ""))
		for i, k := range kinds {
			kinds[i] = article(k)
		}
		return strings.Join(kinds, " or ")
	}
	return article(strings.Trim(want, `"`))
}

func article(kind string) string {
	switch kind {
	case "integer", "object", "array":
		return "an " + kind
	}
	return "a " + kind
}

func shorten(s string) string {
	if len(s) > 40 {
		return s[:37] + "..."
	}
	return s
}
