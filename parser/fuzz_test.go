package parser

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// FuzzParse: Parse never panics, errors are FormatErrors with a message, and
// an accepted reply's template parses back to the same response. The seed
// corpus in testdata/fuzz/FuzzParse holds every golden reply.
func FuzzParse(f *testing.F) {
	f.Add("# Agent Response\n\n## Tool Choice\nDONE")
	f.Add("## tool choice: write file\n```md\n```sh\n## Tool Choice\n```\n")
	f.Fuzz(func(t *testing.T, reply string) {
		r, err := Parse(reply, testTools)
		if err != nil {
			var fe *FormatError
			if !errors.As(err, &fe) || fe.Message == "" {
				t.Fatalf("Parse error %T %v, want a *FormatError with a message", err, err)
			}
			return
		}
		if len(r.Tools) == 0 {
			t.Fatal("Parse accepted a reply without tools")
		}
		for _, tool := range r.Tools {
			if !slices.Contains(testTools, tool.Name) {
				t.Fatalf("tool %q is not one of the valid names", tool.Name)
			}
		}
		checkRoundTrip(t, r)
	})
}

// FuzzCodeBlocks: CodeBlocks never panics; each block's content is whole
// lines of the input; and a block written back inside a longer fence reads
// back as itself.
func FuzzCodeBlocks(f *testing.F) {
	f.Add("\"README.md\"\n```markdown\n# T\n```bash\nnpm i\n```\nmore\n```\n")
	f.Add("````md\n```\n````\n~~~\n```go\n~~~")
	f.Add("```find\nx\n```\n\n```replace\ny\n```\n")
	f.Fuzz(func(t *testing.T, input string) {
		blocks := CodeBlocks(input)
		if strings.ContainsRune(input, '\r') {
			return
		}
		for _, b := range blocks {
			if b.Content != "" && !strings.HasSuffix(b.Content, "\n") {
				t.Fatalf("content %q does not end in a newline", b.Content)
			}
			if !strings.Contains(input+"\n", b.Content) {
				t.Fatalf("content %q is not part of the input", b.Content)
			}
			fence := strings.Repeat("~", longestRun(b.Content, '~')+3)
			again := CodeBlocks(fence + " " + b.Info + "\n" + b.Content + fence + "\n")
			if len(again) != 1 || !reflect.DeepEqual(again[0], b) {
				t.Fatalf("block %q written back reads as %q", b, again)
			}
		}
	})
}

func longestRun(s string, c byte) int {
	longest, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return longest
}

// fragments are the pieces FuzzFragments builds replies from: the
// template's lines in their lenient spellings, fences, thinking tags and
// markdown that changes what a line means.
var fragments = []string{
	"# Agent Response", "## Agent Response:", "## Thoughts", "### **thoughts:**", "## Thoughts: x",
	"## Task List", "## tasks", "## Task List: [x] a", "## Tool Choice", "## Tool Choice: DONE",
	"## **Tool Choice:** `COMMAND`", "## Tool Input", "## Tool Input: ls", "## Usage", "#",
	"DONE", "COMMAND", "write_file", "**READ_FILE**", "Write File.", "UNKNOWN_TOOL",
	"[x] a", "[~] b", "[ ] c", "- [ ] d", "1. [X] e", "[] f", "text", "", "  ", "    ## Tool Choice",
	"```", "```md", "```bash", "````", "````markdown", "~~~", "   ```", "``` `",
	"<think>", "</think>", "<THINKING>", "</thinking>", "`</think>`", "x </think> y", "<think>t</think>",
	"> ## Tool Choice", "- item", "  ## Tool Choice", "a", "---", "===", "<br>", "**Tool Choice:** DONE",
	"\t", "\r", "é", "\xff",
}

// FuzzFragments makes FuzzParse's checks on replies assembled from
// fragments, one line per input byte, which reaches the template's corners
// far sooner than random text.
func FuzzFragments(f *testing.F) {
	f.Add([]byte{0, 2, 26, 9, 15, 12, 28})
	f.Add([]byte{40, 0, 9, 15, 12, 32, 0, 9, 31, 9, 16, 12, 41})
	f.Fuzz(func(t *testing.T, picks []byte) {
		lines := make([]string, len(picks))
		for i, b := range picks {
			lines[i] = fragments[int(b)%len(fragments)]
		}
		reply := strings.Join(lines, "\n")
		r, err := Parse(reply, testTools)
		if err != nil {
			var fe *FormatError
			if !errors.As(err, &fe) || fe.Message == "" {
				t.Fatalf("Parse error %T %v, want a *FormatError with a message", err, err)
			}
			return
		}
		checkRoundTrip(t, r)
	})
}
