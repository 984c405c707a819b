package parser

import (
	"strings"
	"testing"
)

func TestInventionWatch(t *testing.T) {
	t.Parallel()
	template := "# Agent Response\n\n## Thoughts\nRead it.\n\n## Tool Choice\nREAD_FILE\n\n## Tool Input\nmain.go\n"
	tests := []struct {
		name  string
		reply string
		cut   string // the content kept; "" when nothing is invented
	}{
		{"a template alone", template, ""},
		{"a tool_result line", template + "\n<tool_result tool=\"READ_FILE\">\npackage main\n</tool_result>\n", template + "\n"},
		{"an indented tool_result line", template + "  <tool_result>\n", template},
		{"an Observation heading", template + "\n## Observation\nThe file says hello.\n", template + "\n"},
		{"a Result heading any level and case", template + "### result:\nok\n", template},
		{"a Tool Result heading in bold", template + "## **Tool Result**\nok\n", template},
		{"an Output heading", template + "# Output\nok\n", template},
		{"several templates, cut at the first invented result",
			template + "## Observation\nfake\n\n" + template + "## Observation\nfake again\n", template},
		{"a result heading before the template is complete", "# Agent Response\n## Tool Choice\nDONE\n## Output\nx\n## Tool Input\nsummary\n", ""},
		{"inside fenced code", template + "```\n## Output\n<tool_result>\n```\n", ""},
		{"inside a sloppily nested markdown block",
			"## Tool Choice\nWRITE_FILE\n## Tool Input\nREADME.md\n```markdown\n# Tool\n```bash\nrun it\n```\n## Output\nIt prints hi.\n```\n", ""},
		{"after the sloppy block closes", "## Tool Choice\nWRITE_FILE\n## Tool Input\nREADME.md\n```markdown\n```bash\nx\n```\n```\n## Output\nfake\n",
			"## Tool Choice\nWRITE_FILE\n## Tool Input\nREADME.md\n```markdown\n```bash\nx\n```\n```\n"},
		{"inside a think block", "<think>\n" + template + "## Observation\n</think>\n", ""},
		{"a think block, then the real template", "<think>\n" + template + "\n</think>\n" + template + "## Observation\nx\n",
			"<think>\n" + template + "\n</think>\n" + template},
		{"an orphan closing tag forgets the reasoning's template", template + "</think>\n## Observation\n", ""},
		{"other headings are content", template + "## Notes\n## Outputs\n## Resulting file\n", ""},
		{"a line that only mentions a tag", template + "see <tool_result> above\n", ""},
		{"the last line without a newline is not judged", template + "## Observation", ""},
		{"DONE's summary may have a Result heading", "# Agent Response\n## Tool Choice\nDONE\n\n## Tool Input\n## Result\n\nAdded it.\n## Output\nx\n", ""},
		{"DONE in bold, inline", "## Tool Choice: **DONE**\n## Tool Input\n## Result\nok\n", ""},
		{"a tool after DONE's template is watched again", "## Tool Choice\nDONE\n## Tool Input\n## Result\n## Tool Choice\nCOMMAND\n## Tool Input\nls\n## Output\nfake\n",
			"## Tool Choice\nDONE\n## Tool Input\n## Result\n## Tool Choice\nCOMMAND\n## Tool Input\nls\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			// Whole, and in pieces of every size from 1 to 7 bytes.
			for size := 0; size <= 7; size++ {
				var w InventionWatch
				at, found := 0, false
				for _, piece := range split(tt.reply, size) {
					if at, found = w.Feed(piece); found {
						break
					}
				}
				switch {
				case tt.cut == "" && found:
					t.Errorf("pieces of %d: cut at %d (%q), want no cut", size, at, tt.reply[:at])
				case tt.cut != "" && !found:
					t.Errorf("pieces of %d: no cut, want one after %q", size, tt.cut)
				case tt.cut != "" && tt.reply[:at] != tt.cut:
					t.Errorf("pieces of %d: kept %q, want %q", size, tt.reply[:at], tt.cut)
				}
			}
		})
	}
}

func split(s string, size int) []string {
	if size == 0 {
		return []string{s}
	}
	var out []string
	for len(s) > size {
		out = append(out, s[:size])
		s = s[size:]
	}
	return append(out, s)
}

func BenchmarkInventionWatch50MBLine(b *testing.B) {
	line := strings.Repeat("x", 50<<20)
	b.SetBytes(int64(len(line)))
	for b.Loop() {
		var w InventionWatch
		for i := 0; i < len(line); i += 4096 {
			w.Feed(line[i:min(i+4096, len(line))])
		}
	}
}
