package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/devagent/dev/bgproc"
	"github.com/devagent/dev/capture"
	"github.com/devagent/dev/parser"
	"github.com/devagent/dev/shell"
)

// Command is the tool's name, as the protocol spells it.
const Command = "COMMAND"

// CommandTool runs a shell command in the working directory.
type CommandTool struct{}

// Name implements Tool.
func (CommandTool) Name() string { return Command }

// Doc implements Tool.
func (CommandTool) Doc() Doc {
	return describe(Command, "command", parser.InputCommand, ReachAnything, struct {
		Shell          string
		HeadKB, TailKB int
	}{bgproc.Shell, capture.OutputHead >> 10, capture.OutputTail >> 10})
}

// commandArg is the command: the raw text, or the content of the code block
// the input starts with.
func commandArg(input string) string {
	t := strings.TrimSpace(input)
	if isFence(t) {
		if blocks := parser.CodeBlocks(t); len(blocks) > 0 {
			return strings.TrimSpace(blocks[0].Content)
		}
	}
	return t
}

// Check implements Tool.
func (CommandTool) Check(input string) error {
	if commandArg(input) == "" {
		return fmt.Errorf("COMMAND needs a shell command: the raw text, or one fenced code block, e.g.:\n%s", CommandTool{}.Doc().Example)
	}
	return nil
}

// Run implements Tool.
func (t CommandTool) Run(ctx context.Context, env *Env, input string) Result {
	command := commandArg(input)
	if err := t.Check(input); err != nil {
		return Result{Tool: Command, ExitCode: -1}.fail(err.Error())
	}
	j := job{tool: Command, command: command, input: input}
	if rest, ok := shell.Background(command); ok {
		j.command, j.background = rest, true
	}
	return runCommand(ctx, env, j)
}

// CommandText is the command a COMMAND input holds, as COMMAND runs it.
func CommandText(input string) string { return commandArg(input) }
