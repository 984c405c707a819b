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

// commandInput is COMMAND's input as Check reads it.
type commandInput struct {
	input   string // as the model wrote it, for the approval
	command string // the command line, a final lone & taken off
	// background: it ended with a lone `&` (see job.background).
	background bool
}

// ReadCommand reads a COMMAND input: the command line it holds, as
// COMMAND runs it; none is an error for the model. The auditor's COMMAND
// reads its input so.
func ReadCommand(input string) (string, error) {
	if command := commandArg(input); command != "" {
		return command, nil
	}
	return "", fmt.Errorf("COMMAND needs a shell command: the raw text, or one fenced code block, e.g.:\n%s", CommandTool{}.Doc().Example)
}

func readCommand(input string) (commandInput, error) {
	command, err := ReadCommand(input)
	if err != nil {
		return commandInput{}, err
	}
	in := commandInput{input: input, command: command}
	if rest, ok := shell.Background(command); ok {
		in.command, in.background = rest, true
	}
	return in, nil
}

// Check implements Tool.
func (t CommandTool) Check(input string) (Checked, error) {
	return Bind(input, readCommand, t.run)
}

func (CommandTool) run(ctx context.Context, env *Env, in commandInput) Result {
	return runCommand(ctx, env, job{tool: Command, command: in.command, input: in.input, background: in.background})
}

// CommandText is the command a COMMAND input holds, as COMMAND runs it.
func CommandText(input string) string { return commandArg(input) }
