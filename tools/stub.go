package tools

// Registry is an ordered set of tools.
type Registry struct{}

// Worker returns the worker's tools in the order they are documented.
func Worker() *Registry { panic("stub") }

// Names lists the tool names in order.
func (r *Registry) Names() []string { panic("stub") }

// Lookup finds a tool by canonical name.
func (r *Registry) Lookup(name string) (Tool, bool) { panic("stub") }

// Docs documents every tool, in order.
func (r *Registry) Docs() []Doc { panic("stub") }

// Wrap renders r for the model, so it can tell data from instructions:
// <tool_result tool="READ_FILE" path="a.go" ok="true">…</tool_result>.
func (r Result) Wrap() string { panic("stub") }

// Tree renders dir as LIST_DIRECTORY does, limited to depth levels and
// maxEntries lines, skipping .git, node_modules and ignored paths.
func Tree(dir string, depth, maxEntries int) string { panic("stub") }
