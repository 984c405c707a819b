package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/devagent/dev/parser"
)

// ToolHelp is the name of the tool that documents the others.
const ToolHelp = "TOOL_HELP"

// ToolHelpTool shows the whole documentation of a tool of its registry,
// so that tools listed in one line in the system prompt (MCP tools) cost
// their full description only when they are used.
type ToolHelpTool struct {
	registry *Registry
}

// Name implements Tool.
func (ToolHelpTool) Name() string { return ToolHelp }

// Doc implements Tool. The example names a tool of the registry listed in
// brief, when there is one.
func (t ToolHelpTool) Doc() Doc {
	d := describe(ToolHelp, "tool_help", parser.InputToolName, ReachNothing, nil)
	if t.registry != nil {
		for _, tool := range t.registry.tools {
			if _, self := tool.(ToolHelpTool); !self && tool.Doc().Brief != "" {
				d.Example = tool.Name()
				break
			}
		}
	}
	return d
}

// Check implements Tool.
func (t ToolHelpTool) Check(input string) (Checked, error) {
	return Bind(input, readHelp, t.run)
}

// readHelp reads the tool name in the input, without markup.
func readHelp(input string) (string, error) {
	line, _ := splitFirstLine(input)
	if name := strings.Trim(line, "`*\"' \t"); name != "" {
		return name, nil
	}
	return "", fmt.Errorf("%s needs a tool name, e.g.:\n%s", ToolHelp, ToolHelpTool{}.Doc().Example)
}

func (t ToolHelpTool) run(_ context.Context, _ *Env, name string) Result {
	r := Result{Tool: ToolHelp, Summary: name}
	tool, ok := t.registry.Lookup(name)
	if !ok {
		// The model may have changed the case: names of MCP tools are
		// case-sensitive, but a unique match is unambiguous.
		var found []Tool
		for _, c := range t.registry.tools {
			if strings.EqualFold(c.Name(), name) {
				found = append(found, c)
			}
		}
		if len(found) != 1 {
			return r.fail(fmt.Sprintf("there is no tool %q. The tools are: %s.", name, strings.Join(t.registry.Names(), ", ")))
		}
		tool = found[0]
	}
	r.OK, r.Output = true, helpText(tool.Doc())
	return r
}

// helpText is a tool's whole documentation.
func helpText(d Doc) string {
	var b strings.Builder
	b.WriteString(d.Name + "\n")
	b.WriteString(d.Description)
	if d.Schema != "" {
		b.WriteString("\n\nInput: one JSON object matching this schema:\n```json\n" + d.Schema + "\n```")
	}
	if d.Example != "" {
		b.WriteString("\n\nExample input:\n" + d.Example)
	}
	return b.String()
}
