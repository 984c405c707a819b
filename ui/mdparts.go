package ui

// MarkdownPart is a piece of a markdown text: a GFM pipe table (Table: its
// rows of cells, the header first) or the text between tables.
type MarkdownPart struct {
	Text  string
	Table [][]string
}

// MarkdownParts cuts the GFM pipe tables out of src (outside fenced code)
// as the terminal's renderer finds them, for the session browser's: one
// reading of an answer's tables for both.
func MarkdownParts(src string) []MarkdownPart {
	parts := splitTables(src)
	out := make([]MarkdownPart, len(parts))
	for i, p := range parts {
		out[i] = MarkdownPart{Text: p.text, Table: p.table}
	}
	return out
}
