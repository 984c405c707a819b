package tools

import (
	"context"
	"strings"
	"time"

	"github.com/devagent/dev/parser"
	"github.com/devagent/dev/textfmt"
)

// CustomSpec is a custom tool as the configuration describes it ("tools",
// SPEC §15).
type CustomSpec struct {
	Name        string // UPPER_SNAKE_CASE, checked by the configuration
	Description string
	Command     string        // a shell command line, run like COMMAND's
	Timeout     time.Duration // before the command moves to the background; 0 means Env.CommandTimeout
}

// InputVariable is the environment variable that holds a custom tool's
// input (also given on stdin).
const InputVariable = "DEV_TOOL_INPUT"

// maxInputVariable bounds the input given in InputVariable: the system
// refuses to start a command whose environment holds a string much larger
// (Linux: 128 KB). A larger input reaches the command on stdin only.
const maxInputVariable = 64 << 10

// CustomTool runs a configured command. Its input reaches the command on
// stdin and in $DEV_TOOL_INPUT, never in the command line, so no input can
// inject shell syntax; otherwise it runs like COMMAND (environment, output
// caps, full output file, backgrounding, SPEC §13's checks).
type CustomTool struct {
	spec CustomSpec
}

// NewCustomTool makes the tool of spec.
func NewCustomTool(spec CustomSpec) CustomTool { return CustomTool{spec: spec} }

// Name implements Tool.
func (t CustomTool) Name() string { return t.spec.Name }

// Doc implements Tool: the user's description, then what runs.
func (t CustomTool) Doc() Doc {
	return Doc{
		Name: t.spec.Name,
		Description: strings.TrimSpace(t.spec.Description) + "\n" +
			"Runs `" + textfmt.Summary(t.spec.Command, 120) + "`; the tool input (free text, may be empty) is given to it on stdin.",
		Input: parser.InputOptionalText,
	}
}

// Check implements Tool: any input will do, none included.
func (t CustomTool) Check(input string) (Checked, error) {
	return Bind(input, AsWritten, t.run)
}

func (t CustomTool) run(ctx context.Context, env *Env, input string) Result {
	j := job{tool: t.spec.Name, command: t.spec.Command, timeout: t.spec.Timeout, input: input, summary: t.spec.Command}
	if s := strings.TrimSpace(input); s != "" {
		j.summary = s
	}
	if input != "" {
		j.stdin = input
		if !strings.HasSuffix(input, "\n") {
			j.stdin += "\n" // line-reading programs see a whole line
		}
	}
	if len(input) <= maxInputVariable {
		j.env = []string{InputVariable + "=" + input}
	}
	return runCommand(ctx, env, j)
}
