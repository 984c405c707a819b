package parser

import "testing"

func TestStripThinking(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, content, thinking string
	}{
		{"no tags", "# Agent Response\nx", "# Agent Response\nx", ""},
		{"closed block", "<think>\nplan\n</think>\n\n# Agent Response", "\n\n# Agent Response", "plan"},
		{"any case", "<THINK>a</Think>b", "b", "a"},
		{"thinking tag", "<thinking>a</thinking>b", "b", "a"},
		{"mixed tag names", "<thinking>a</think>b", "b", "a"},
		{"several blocks", "<think>a</think>x<think>b</think>y", "xy", "a\n\nb"},
		{"empty block", "<think></think>x", "x", ""},
		{"unclosed leading", "  \n<think>reason\nmore", "", "reason\nmore"},
		{"unclosed after a closed block", "<think>a</think>\n<think>b", "", "a\n\nb"},
		{"unclosed not leading is content", "# Agent Response\nsee the <think> tag", "# Agent Response\nsee the <think> tag", ""},
		{"orphan closing tag", "reasoning\n</think>\n# Agent Response", "\n# Agent Response", "reasoning"},
		{"orphan at end", "all reasoning</think>", "", "all reasoning"},
		{"orphan after drafts", "# Agent Response\ndraft\n</think>\n# Agent Response\nfinal",
			"\n# Agent Response\nfinal", "# Agent Response\ndraft"},
		{"closing tag in thoughts is content",
			"# Agent Response\n## Thoughts\nstray </think> x\n## Tool Choice\nDONE",
			"# Agent Response\n## Thoughts\nstray </think> x\n## Tool Choice\nDONE", ""},
		{"closing tag in tool input is content",
			"## Tool Choice\nCOMMAND\n## Tool Input\ngrep '</think>' .",
			"## Tool Choice\nCOMMAND\n## Tool Input\ngrep '</think>' .", ""},
		{"stray closing tag after a block is content", "<think>a</think>b</think>c", "b</think>c", "a"},
		{"tags in a fence are content", "x\n```md\n<think>y</think>\n</think>\n```\n", "x\n```md\n<think>y</think>\n</think>\n```\n", ""},
		{"tags in a sloppy nested fence are content",
			"```markdown\n```bash\necho\n```\n<think>y</think>\n```\n",
			"```markdown\n```bash\necho\n```\n<think>y</think>\n```\n", ""},
		{"orphan in a tilde fence is content", "~~~\n</think>\n~~~\nrest", "~~~\n</think>\n~~~\nrest", ""},
		{"tags in inline code are content", "use `<think>x</think>` here", "use `<think>x</think>` here", ""},
		{"fence inside thinking does not hide the closing tag", "<think>\n```go\nfunc\n</think>\nafter", "\nafter", "```go\nfunc"},
		{"not a tag", "<thinker>a</thinks> <think", "<thinker>a</thinks> <think", ""},
		{"crlf", "<think>a</think>\r\nb\r\n", "\r\nb\r\n", "a"},
		{"block mid line", "a <think>b</think> c", "a  c", "b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			content, thinking := StripThinking(tt.in)
			if content != tt.content || thinking != tt.thinking {
				t.Errorf("StripThinking(%q)\n got  (%q, %q)\n want (%q, %q)", tt.in, content, thinking, tt.content, tt.thinking)
			}
		})
	}
}
