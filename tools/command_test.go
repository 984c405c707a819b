package tools

import (
	"context"
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
		err := CommandTool{}.Check(input)
		if err == nil || !strings.HasPrefix(err.Error(), "COMMAND needs a shell command") {
			t.Errorf("Check(%q) = %v", input, err)
		}
		r := CommandTool{}.Run(context.Background(), newEnv(t, nil), input)
		if r.OK || r.ExitCode != -1 || !strings.HasPrefix(r.Output, "Error: COMMAND needs") {
			t.Errorf("Run(%q) = %+v", input, r)
		}
	}
}
