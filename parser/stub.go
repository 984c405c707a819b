package parser

// Parse reads a reply (reasoning fields already separated by the client).
// toolNames are the tools valid in this conversation, used to resolve
// lenient spellings and to list the valid names in an unknown-tool error.
// The error, when not nil, is a *FormatError.
func Parse(reply string, toolNames []string) (Response, error) { panic("stub") }

// Template renders r as the normalised template stored in history.
func (r Response) Template() string { panic("stub") }

// StripThinking removes <think>…</think> blocks, an unclosed leading <think>
// and everything before an orphan </think>, returning the remaining content
// and the removed thinking text.
func StripThinking(s string) (content, thinking string) { panic("stub") }

// CodeBlock is one top-level fenced code block of a tool input.
type CodeBlock struct {
	Info    string // info string after the opening fence, e.g. "go", "find"
	Content string // lines between the opening and the matching closing fence, each ending in "\n"
}

// CodeBlocks returns the top-level fenced blocks of a tool input in order,
// matching each opening fence with its closing fence even when the model
// nested fences sloppily (see SPEC §1.5). An unclosed block runs to the end.
func CodeBlocks(input string) []CodeBlock { panic("stub") }
