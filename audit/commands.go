package audit

import (
	"context"
	"fmt"
	"strings"

	"github.com/devagent/dev/textfmt"
	"github.com/devagent/dev/tools"
)

// shellOperators are refused anywhere in a command: each could chain,
// redirect or substitute another command behind an allowed prefix.
const shellOperators = ";&|<>$`\n\r"

// refusedOptions name an output file or run another program, so an allowed
// command could write to the workspace or run anything (`git diff
// --output=x`, `go test -exec 'rm -rf'`, `go vet -vettool=…`, `tree -o x`).
// Options with a value attached (`--output=x`, `-exec=x`) are refused too.
var refusedOptions = []string{"-o", "--output", "-exec", "--exec", "-toolexec", "--toolexec", "-vettool", "--vettool", "--ext-diff", "--open-files-in-pager", "-O"}

// policy decides which commands the auditor may run.
type policy struct {
	prefixes [][]string // allowed command prefixes, as words
}

func newPolicy(allowed []string) policy {
	var p policy
	for _, a := range allowed {
		if words := strings.Fields(a); len(words) > 0 {
			p.prefixes = append(p.prefixes, words)
		}
	}
	return p
}

// refusal says why command may not run, or "" when it may.
func (p policy) refusal(command string) string {
	if i := strings.IndexAny(command, shellOperators); i >= 0 {
		op := command[i : i+1]
		if op == "\n" || op == "\r" {
			op = "a line break"
		} else {
			op = "`" + op + "`"
		}
		return fmt.Sprintf("the command contains %s. The audit runs one read-only command at a time, without shell operators, redirection or substitution.", op)
	}
	words := strings.Fields(command)
	if !p.allows(words) {
		return fmt.Sprintf("%q is not an allowed audit command. Allowed commands start with: %s.", strings.Join(words, " "), p.list())
	}
	for _, w := range words[1:] {
		for _, opt := range refusedOptions {
			// A long option also matches its longer spellings (--output-dir).
			if w == opt || strings.HasPrefix(w, opt+"=") || (strings.HasPrefix(opt, "--") && strings.HasPrefix(w, opt)) {
				return fmt.Sprintf("the option %s could write files or run other programs; the audit is read-only.", w)
			}
		}
	}
	return ""
}

// allows matches whole words, so `cat` allows `cat a.txt` but not `catastrophe`.
func (p policy) allows(words []string) bool {
	for _, prefix := range p.prefixes {
		if len(words) < len(prefix) {
			continue
		}
		match := true
		for i, w := range prefix {
			if words[i] != w {
				match = false
				break
			}
		}
		if match {
			return true
		}
	}
	return false
}

func (p policy) list() string {
	names := make([]string, len(p.prefixes))
	for i, words := range p.prefixes {
		names[i] = strings.Join(words, " ")
	}
	return strings.Join(names, ", ")
}

// commandTool is COMMAND restricted by the policy; allowed commands run
// through the worker's COMMAND (same runner, timeouts and output caps).
type commandTool struct {
	policy policy
}

func (commandTool) Name() string { return tools.Command }

func (t commandTool) Doc() tools.Doc {
	return tools.Doc{
		Name: tools.Command,
		Description: "Runs one read-only command in the working directory and returns its exit code and output.\n" +
			"Allowed commands start with: " + t.policy.list() + ".\n" +
			"Refused: shell operators (; & | < > $ ` and line breaks) and options that write files or run other programs.",
		Example: "git diff",
	}
}

func (commandTool) Check(input string) error { return tools.CommandTool{}.Check(input) }

func (t commandTool) Run(ctx context.Context, env *tools.Env, input string) tools.Result {
	command := tools.CommandText(input)
	if why := t.policy.refusal(command); why != "" {
		return tools.Result{Tool: tools.Command, Summary: command, Command: command, ExitCode: -1,
			Output: "Refused: " + why}
	}
	return tools.CommandTool{}.Run(ctx, env, input)
}

// doneTool is DONE documented for the auditor: its input is the report.
type doneTool struct {
	tools.DoneTool
}

func (doneTool) Doc() tools.Doc {
	return tools.Doc{
		Name:        tools.Done,
		Description: "Ends the audit. Input: your report, ending with the line `Overall: PASS` or `Overall: FAIL`; for FAIL, what the agent must fix.",
		Example:     "| check | result |\n|---|---|\n| main.go prints the greeting | PASS |\n| go test ./... | FAIL: TestGreet expects a newline |\n\nOverall: FAIL\nAdd the newline to the greeting in main.go.",
	}
}

// refusedTool stands for a worker tool the auditor may not use, so that
// calling it gets an explanation instead of an unknown-tool error.
type refusedTool struct {
	name    string
	allowed []string
}

func (t refusedTool) Name() string     { return t.name }
func (t refusedTool) Doc() tools.Doc   { return tools.Doc{Name: t.name} }
func (refusedTool) Check(string) error { return nil }
func (t refusedTool) Run(_ context.Context, _ *tools.Env, input string) tools.Result {
	return tools.Result{Tool: t.name, Summary: textfmt.FirstLine(input), Output: fmt.Sprintf(
		"Refused: %s is not available to the auditor, whose work is read-only. Use %s.", t.name, strings.Join(t.allowed, ", "))}
}
