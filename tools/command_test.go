package tools

import (
	"strings"
	"testing"
)

func TestCommandArg(t *testing.T) {
	t.Parallel()
	tests := []struct{ input, want string }{
		{"go test ./...\n", "go test ./..."},
		{"\n```bash\nnpm install\nnpm test\n```\n", "npm install\nnpm test"},
		{"```\necho `date`\n```", "echo `date`"},
		{"cat <<EOF\n```\nx\n```\nEOF", "cat <<EOF\n```\nx\n```\nEOF"},
	}
	for _, tt := range tests {
		if got := commandArg(tt.input); got != tt.want {
			t.Errorf("commandArg(%q) = %q, want %q", tt.input, got, tt.want)
		}
	}
}

func TestCommandCheck(t *testing.T) {
	t.Parallel()
	for _, input := range []string{"", "  \n", "```sh\n```"} {
		call, err := CommandTool{}.Check(input)
		if call != nil || err == nil || !strings.HasPrefix(err.Error(), "COMMAND needs a shell command") {
			t.Errorf("Check(%q) = %v, %v", input, call, err)
		}
	}
}
