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
