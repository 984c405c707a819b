package parser

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// bigWriteFile is a reply whose WRITE_FILE input holds size bytes of a
// markdown file with headings, nested fences and thinking tags in it.
func bigWriteFile(size int) (reply, content string) {
	var b strings.Builder
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, "## Section %d\n\nSome text with <think>tags</think> and `code`.\n```bash\necho %d\n```\n\n", i, i)
	}
	content = b.String()
	reply = "<think>\nA big file.\n</think>\n# Agent Response\n\n## Thoughts\nWrite the big file.\n\n## Task List\n[~] Write it\n\n" +
		"## Tool Choice\nWRITE_FILE\n\n## Tool Input\n\"big.md\"\n```markdown\n" + content + "```\n\n## Tool Choice\nDONE\n\n## Tool Input\nWritten."
	return reply, content
}

func TestParseBigWriteFile(t *testing.T) {
	t.Parallel()
	reply, content := bigWriteFile(1 << 20)
	r, err := Parse(reply, testTools)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Tools) != 2 || r.Tools[0].Name != "WRITE_FILE" || r.Tools[1].Name != "DONE" {
		t.Fatalf("tools = %v", len(r.Tools))
	}
	blocks := CodeBlocks(r.Tools[0].Input)
	if len(blocks) != 1 || blocks[0].Content != content {
		t.Fatalf("WRITE_FILE content was not kept whole (%d blocks)", len(blocks))
	}
}

func BenchmarkParse1MB(b *testing.B) {
	reply, _ := bigWriteFile(1 << 20)
	b.SetBytes(int64(len(reply)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(reply, testTools); err != nil {
			b.Fatal(err)
		}
	}
}

// TestParseAdversarialInputs guards against superlinear corners (goldmark
// took minutes over deeply nested block quotes before they were left out).
// Each 256 KiB input parses in milliseconds; a quadratic path takes seconds,
// far past the bound, which leaves room for slow machines and -race.
func TestParseAdversarialInputs(t *testing.T) {
	t.Parallel()
	const n = 256 << 10
	inputs := map[string]string{
		"nested quotes":      strings.Repeat("> ", n/2),
		"quote marks":        strings.Repeat(">", n) + "\n## Tool Choice\nDONE",
		"nested lists":       strings.Repeat("- ", n/2),
		"list items":         strings.Repeat("- a\n  ", n/6),
		"closing tags":       strings.Repeat("</think>", n/8),
		"opening tags":       strings.Repeat("<think>", n/7),
		"think blocks":       strings.Repeat("<think>a</think>", n/16),
		"code span tags":     strings.Repeat("`<think>", n/8),
		"empty blocks":       strings.Repeat("```\n", n/4),
		"nested fences":      "```md\n" + strings.Repeat("```go\n", n/6),
		"tool choices":       strings.Repeat("## Tool Choice\nDONE\n", n/20),
		"long tool line":     "## Tool Choice\n" + strings.Repeat("word ", n/5),
		"wrapped drafts":     strings.Repeat("```md\n# Agent Response\n```\n", n/28),
		"tasks":              "## Task List\n" + strings.Repeat("- [ ] x\n", n/8) + "## Tool Choice\nDONE",
		"setext":             strings.Repeat("a\n=\n", n/4),
		"tags in thoughts":   "# Agent Response\n## Thoughts\n" + strings.Repeat("<</think>", n/9) + "\n## Tool Choice\nDONE",
		"one long line":      strings.Repeat("x", n),
		"brackets":           strings.Repeat("[", n/2) + strings.Repeat("]", n/2),
		"emphasis":           strings.Repeat("*a_", n/3),
		"headings only":      strings.Repeat("#\n", n/2),
		"invalid utf-8":      strings.Repeat("\xff\xfe## Tool Choice\n", n/16),
		"carriage returns":   strings.Repeat("\r", n),
		"crlf tool inputs":   strings.Repeat("## Tool Choice\r\nCOMMAND\r\n## Tool Input\r\nls\r\n", n/48),
		"unclosed big fence": "# Agent Response\n## Tool Choice\nWRITE_FILE\n## Tool Input\n```\n" + strings.Repeat("## Tool Choice\n", n/15),
	}
	for name, in := range inputs {
		start := time.Now()
		_, _ = Parse(in, testTools)
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("%s: Parse of %d bytes took %v", name, len(in), d)
		}
	}
}

// BenchmarkParseLongLine parses a reply whose thoughts are one line of
// 50 MB (what a model that never ends its line sends; llm cuts replies at
// 8 MB, the parser must be linear all the same):
//
//	go test ./parser -run '^$' -bench ParseLongLine -benchtime 1x
func BenchmarkParseLongLine(b *testing.B) {
	line := strings.Repeat("word <b>*x* `y` [z] ", (50<<20)/20)
	reply := "# Agent Response\n\n## Thoughts\n" + line + "\n\n## Tool Choice\nDONE\n\n## Tool Input\n" + line + "\n"
	b.SetBytes(int64(len(reply)))
	b.ReportAllocs()
	for b.Loop() {
		r, err := Parse(reply, testTools)
		if err != nil || len(r.Thoughts) != len(line)-1 {
			b.Fatalf("%v: thoughts of %d bytes", err, len(r.Thoughts))
		}
	}
}
