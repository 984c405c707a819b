package tools

import (
	"fmt"
	"maps"
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

// Reach is what the tool named may change in the working directory;
// ReachAnything for a name it does not know.
func (r *Registry) Reach(name string) Reach {
	if t, ok := r.Lookup(name); ok {
		return t.Doc().Reach
	}
	return ReachAnything
}

// Docs documents every tool, in order.
func (r *Registry) Docs() []Doc {
	docs := make([]Doc, len(r.tools))
	for i, t := range r.tools {
		docs[i] = t.Doc()
	}
	return docs
}
