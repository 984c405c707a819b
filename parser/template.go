package parser

import "strings"

// Template renders r as the normalised template stored in history:
//
//	# Agent Response
//
//	## Thoughts
//	{thoughts}
//
//	## Task List
//	[x] done
//	[~] doing
//	[ ] to do
//
//	## Tool Choice
//	{NAME}
//
//	## Tool Input
//	{input}
//
// Sections are separated by one blank line; there is no trailing newline.
// Thoughts is omitted when empty and Task List when HasTaskList is false; a
// section with an empty body is its heading alone. One Tool Choice / Tool
// Input pair is written per tool. Parse(r.Template()) gives r back (without
// Reasoning and Warnings).
func (r Response) Template() string {
	var b strings.Builder
	b.WriteString(canonical[secAgentResponse])
	section := func(kind section, body string) {
		b.WriteString("\n\n")
		b.WriteString(canonical[kind])
		if body != "" {
			b.WriteByte('\n')
			b.WriteString(body)
		}
	}
	if r.Thoughts != "" {
		section(secThoughts, r.Thoughts)
	}
	if r.HasTaskList {
		section(secTaskList, TaskLines(r.Tasks))
	}
	for _, t := range r.Tools {
		section(secToolChoice, t.Name)
		section(secToolInput, t.Input)
	}
	return b.String()
}
