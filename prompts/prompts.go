// Package prompts owns every text dev sends to a model on its own behalf: the
// worker's system prompt (protocol, tools, mode, project context, AGENTS.md
// instructions), the request wrapper and the format reminder. Templates are
// embedded markdown files rendered with text/template.
package prompts

import (
	"embed"
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

// UserRequest wraps a user's request so the model can tell it from tool data.
func UserRequest(text string) string {
	return "<user_request>\n" + strings.TrimSpace(text) + "\n</user_request>"
}

// FormatReminder is appended to every format error sent to the model.
func FormatReminder() string {
	return render("reminder.md", nil)
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

// CutOff tells the model its reply hit the server's output limit; empty
// says whether nothing but reasoning came before the cut.
func CutOff(empty bool) string {
	if empty {
		return "Your reply was cut off before any answer: the reasoning used the whole output budget. Think less and answer with the template."
	}
	return "Your reply was cut off (the server's output limit was reached) before it was complete. Reply again, shorter: one tool, and split large files into several steps."
}
