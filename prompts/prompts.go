// Package prompts owns the texts dev sends to a model on its own behalf
// outside the history's messages (package history writes those): the
// worker's system prompt (protocol, tools, mode, project context, AGENTS.md
// instructions), the format reminder and example, the summarisation prompt,
// the auditor's prompt and request, and the probes of dev doctor. Templates
// are embedded markdown files rendered with text/template.
package prompts

import (
	"embed"
	"strconv"
	"strings"
	"text/template"
)

//go:embed templates/*.md
var files embed.FS

// Tool documents one tool in the system prompt.
type Tool struct {
	Name        string
	Description string
	Example     string // an example `## Tool Input` body
	// Brief, when set, replaces the description and the example with one
	// line in the list of tools documented on demand (MCP tools): TOOL_HELP
	// gives the rest.
	Brief string
}

// Instruction is the content of one AGENTS.md file.
type Instruction struct {
	Path    string
	Content string
}

// System is everything the worker's system prompt is built from.
type System struct {
	Dir          string
	Interactive  bool // ASK_USER is available
	Tools        []Tool
	Project      *Project // nil: no project section
	Instructions []Instruction
}

// Render returns the system prompt.
func (s System) Render() string {
	return render("system.md", s)
}

// FullTools are the tools documented in full, in order.
func (s System) FullTools() []Tool {
	var out []Tool
	for _, t := range s.Tools {
		if t.Brief == "" {
			out = append(out, t)
		}
	}
	return out
}

// BriefTools are the tools listed in one line each, in order.
func (s System) BriefTools() []Tool {
	var out []Tool
	for _, t := range s.Tools {
		if t.Brief != "" {
			out = append(out, t)
		}
	}
	return out
}

// FormatExample is a short task done in the template: the turns of a
// conversation, the user's first, then the assistant's and the user's in
// turn. It is shown to a model as an earlier conversation once its replies
// could not be parsed: small models copy a shape they have seen more
// readily than they follow one described.
func FormatExample() []string {
	turns := strings.Split(render("example", nil), "\n-----\n")
	for i := range turns {
		turns[i] = strings.TrimSpace(turns[i])
	}
	return turns
}

// FormatReminder is appended to every format error sent to the model.
func FormatReminder() string {
	return render("reminder.md", nil)
}

// Summarize is the summarisation request of context compression (the brief's
// prompt): conversation, a transcript of the history, goes inside its
// <conversation> tags.
func Summarize(conversation string) string {
	return render("summarize.md", conversation)
}

// render executes an embedded template. The templates are constants that the
// tests render, so an error here is a programming error, not bad input.
func render(name string, data any) string {
	var b strings.Builder
	// All templates are parsed together so they can share definitions
	// (format.md); it costs microseconds, once per conversation.
	t, err := template.ParseFS(files, "templates/*.md")
	if err == nil {
		err = t.ExecuteTemplate(&b, name, data)
	}
	if err != nil {
		panic("prompts: " + name + ": " + err.Error())
	}
	return strings.TrimSpace(b.String()) + "\n"
}

// CutAtLimit tells the model its reply reached the output limit dev set,
// limit tokens (maxTokens, SPEC §18); empty says whether nothing but
// reasoning came before the cut.
func CutAtLimit(empty bool, limit int) string {
	n := strconv.Itoa(limit) // for a model: no separators to misread
	if empty {
		return "Your reply was cut off before any answer: the reasoning used the whole output budget of " + n + " tokens (maxTokens). Think less and answer with the template."
	}
	return "Your reply was cut off at the output limit of " + n + " tokens (maxTokens) before it was complete. Reply again, shorter: the template with one tool, and split large files into several steps."
}

// CutOff tells the model its reply hit the server's output limit; empty
// says whether nothing but reasoning came before the cut.
func CutOff(empty bool) string {
	if empty {
		return "Your reply was cut off before any answer: the reasoning used the whole output budget. Think less and answer with the template."
	}
	return "Your reply was cut off (the server's output limit was reached) before it was complete. Reply again, shorter: one tool, and split large files into several steps."
}

// PlanMode follows a request worked on in plan mode (SPEC §17): the model
// may only read, the commands it may run being those starting with one of
// commands (auditCommands), and its DONE is the plan.
func PlanMode(commands []string) string {
	return render("plan.md", strings.Join(commands, ", "))
}

// Init is /init's request: write or improve the project's AGENTS.md from
// what the model reads in the project, and change nothing else.
func Init() string { return render("init.md", nil) }

// CarryOut is the request that follows a plan the user approved.
func CarryOut(plan string) string { return render("carry_out.md", strings.TrimSpace(plan)) }
// JSONTool is a tool as the JSON form has it: its name and its fields, in
// order.
type JSONTool struct {
	Name   string
	Fields []JSONField
}

// JSONField is a field of a JSONTool.
type JSONField struct {
	Name     string
	Optional bool
}

// JSONForm tells the model to answer in the JSON form of the template
// (SPEC §18) and shows it, with each tool's fields and the most calls a
// reply holds. It goes with every request that carries the JSON form, in
// the messages: the system prompt stays as it is.
func JSONForm(tools []JSONTool, maxCalls int) string {
	return render("json", struct {
		Tools    []JSONTool
		MaxCalls int
	}{tools, maxCalls})
}
