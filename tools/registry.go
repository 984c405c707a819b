package tools

import (
	"fmt"
	"maps"
	"strings"
)

// Registry is an ordered set of tools.
type Registry struct {
	tools []Tool
}

// NewRegistry makes a registry of tools in the given order (e.g. the audit's
// read-only set).
func NewRegistry(tools ...Tool) *Registry {
	return &Registry{tools: append([]Tool(nil), tools...)}
}

// Worker returns the worker's tools in the order they are documented.
func Worker() *Registry {
	return NewRegistry(
		ListDirectoryTool{},
		ReadFileTool{},
		WriteFileTool{},
		FindAndReplaceTool{},
		CommandTool{},
		ReadBackgroundTool{},
		ListBackgroundTool{},
		KillBackgroundTool{},
		UpdateTaskListTool{},
		AskUserTool{},
		DoneTool{},
	)
}

// Compose returns the worker's tools followed by extra (the custom tools,
// then the MCP tools), and TOOL_HELP when a tool is documented in brief.
// A name given twice, or the name of a built-in tool (TOOL_HELP included),
// is a *NameError: a configuration error.
func Compose(extra ...Tool) (*Registry, error) {
	r := Worker()
	taken := map[string]bool{ToolHelp: true}
	for _, t := range r.tools {
		taken[t.Name()] = true
	}
	builtin := maps.Clone(taken)
	brief := false
	for _, t := range extra {
		name := t.Name()
		if taken[name] {
			return nil, &NameError{Name: name, Builtin: builtin[name]}
		}
		taken[name] = true
		r.tools = append(r.tools, t)
		brief = brief || t.Doc().Brief != ""
	}
	if brief {
		r.tools = append(r.tools, ToolHelpTool{registry: r})
	}
	return r, nil
}

// NameError is a tool whose name is already taken.
type NameError struct {
	Name    string
	Builtin bool // taken by a built-in tool
}

func (e *NameError) Error() string {
	if e.Builtin {
		return fmt.Sprintf("the tool %s has the name of a built-in tool; rename it", e.Name)
	}
	return fmt.Sprintf("two tools are named %s; rename one", e.Name)
}

// Names lists the tool names in order.
func (r *Registry) Names() []string {
	names := make([]string, len(r.tools))
	for i, t := range r.tools {
		names[i] = t.Name()
	}
	return names
}

// Lookup finds a tool by canonical name.
func (r *Registry) Lookup(name string) (Tool, bool) {
	for _, t := range r.tools {
		if t.Name() == name {
			return t, true
		}
	}
	return nil, false
}

// Docs documents every tool, in order.
func (r *Registry) Docs() []Doc {
	docs := make([]Doc, len(r.tools))
	for i, t := range r.tools {
		docs[i] = t.Doc()
	}
	return docs
}

// Wrap renders r for the model, so it can tell data from instructions:
// <tool_result tool="READ_FILE" ok="true" path="a.go">…</tool_result>.
// The output is data: any tool_result tag inside it is neutralised so that
// file contents or command output cannot close the wrapper early or open a
// forged one.
func (r Result) Wrap() string {
	var b strings.Builder
	b.WriteString(`<tool_result tool="`)
	b.WriteString(escapeAttr(r.Tool))
	b.WriteString(`" ok="`)
	if r.OK {
		b.WriteString("true")
	} else {
		b.WriteString("false")
	}
	b.WriteByte('"')
	for _, a := range r.Attrs {
		b.WriteByte(' ')
		b.WriteString(attrName(a[0]))
		b.WriteString(`="`)
		b.WriteString(escapeAttr(a[1]))
		b.WriteByte('"')
	}
	b.WriteString(">\n")
	b.WriteString(neutraliseTags(strings.TrimSuffix(r.Output, "\n")))
	b.WriteString("\n</tool_result>")
	return b.String()
}

var attrEscaper = strings.NewReplacer(
	`&`, "&amp;", `"`, "&quot;", `<`, "&lt;", `>`, "&gt;",
	"\n", "&#10;", "\r", "&#13;", "\t", "&#9;",
)

func escapeAttr(s string) string { return attrEscaper.Replace(s) }

// attrName keeps an attribute name to the characters a tag allows, so a
// careless caller cannot break the opening tag.
func attrName(s string) string {
	var b strings.Builder
	for _, c := range s {
		if c == '_' || c == '-' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
			b.WriteRune(c)
		}
	}
	if b.Len() == 0 {
		return "attr"
	}
	return b.String()
}

const tagName = "tool_result"

// neutraliseTags escapes the '<' of every <tool_result or </tool_result in s
// (any case), leaving all other text as it is.
func neutraliseTags(s string) string {
	var b strings.Builder
	last := 0
	for i := 0; i < len(s); i++ {
		if s[i] != '<' {
			continue
		}
		j := i + 1
		if j < len(s) && s[j] == '/' {
			j++
		}
		if len(s)-j >= len(tagName) && strings.EqualFold(s[j:j+len(tagName)], tagName) {
			b.WriteString(s[last:i])
			b.WriteString("&lt;")
			last = i + 1
		}
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}
