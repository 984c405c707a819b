package audit

import (
	"context"
	"errors"
	"fmt"
	"github.com/devagent/dev/parser"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/devagent/dev/shell"
	"github.com/devagent/dev/textfmt"
	"github.com/devagent/dev/tools"
)

// auditEnv is added to the environment of the auditor's commands: git
// takes no optional locks, so `git status` does not rewrite .git/index,
// and Python writes no .pyc files into the workspace. gitSafety adds what
// keeps git from running the repository's programs.
var auditEnv = []string{"GIT_OPTIONAL_LOCKS=0", "PYTHONDONTWRITEBYTECODE=1"}

// policy decides which commands the auditor may run, and how.
type policy struct {
	prefixes [][]string // allowed command prefixes, as words
}

func newPolicy(allowed []string) policy {
	var p policy
	for _, a := range allowed {
		// The configuration is read by the same splitter as the commands,
		// so a quoted prefix means what it says.
		words, _, err := shell.Words(a)
		if err != nil || len(words) == 0 {
			words = strings.Fields(a)
		}
		if len(words) > 0 {
			p.prefixes = append(p.prefixes, words)
		}
	}
	return p
}

// check splits command into the argument vector it runs as in dir (never
// through a shell, so quoting cannot hide an option; globs, braces and a
// tilde are expanded as sh would), or says why it may not run: shell
// syntax, a command outside the allowlist, or an option that writes files
// or runs programs. Options are checked after expansion, so a file named
// like an option cannot smuggle one in.
func (p policy) check(command, dir string) (argv []string, why string) {
	home, _ := os.UserHomeDir()
	words, special, err := shell.Fields(command, dir, home)
	switch {
	case err != nil:
		return nil, fmt.Sprintf("%v. The audit runs one plain command: a program and its arguments.", err)
	case special != "":
		return nil, fmt.Sprintf("the command contains %s. The audit runs one read-only command at a time, as plain words, without shell operators, redirection, variables or substitution.", special)
	case len(words) == 0:
		return nil, "the command is empty."
	}
	prefix := p.match(words)
	if prefix == nil {
		return nil, fmt.Sprintf("%q is not an allowed audit command. Allowed commands start with: %s.", strings.Join(words, " "), p.list())
	}
	if why := refusedOption(words, len(prefix)); why != "" {
		return nil, why
	}
	return words, ""
}

// refusal says why command may not run in the current directory, or ""
// when it may.
func (p policy) refusal(command string) string {
	_, why := p.check(command, ".")
	return why
}

// match returns the allowed prefix words start with, whole words only, so
// that `cat` allows `cat a.txt` but not `catastrophe`.
func (p policy) match(words []string) []string {
	for _, prefix := range p.prefixes {
		if len(words) >= len(prefix) && slices.Equal(words[:len(prefix)], prefix) {
			return prefix
		}
	}
	return nil
}

func (p policy) list() string {
	names := make([]string, len(p.prefixes))
	for i, words := range p.prefixes {
		names[i] = strings.Join(words, " ")
	}
	return strings.Join(names, ", ")
}

// prepare adjusts an allowed command so that it leaves the workspace as it
// was: pytest keeps no cache (.pytest_cache), and `go build` of a main
// package writes its binary nowhere instead of into the directory.
func prepare(argv []string) []string {
	key, at := commandKey(argv)
	var extra []string
	switch key {
	case "pytest":
		extra = []string{"-p", "no:cacheprovider"}
	case "go build":
		extra = []string{"-o", os.DevNull}
	default:
		return argv
	}
	out := slices.Clone(argv[:at])
	out = append(out, extra...)
	return append(out, argv[at:]...)
}

// commandKey names the command for the option table (`go test`, `git`,
// `pytest`), and says where its own arguments start.
func commandKey(argv []string) (key string, at int) {
	base := strings.TrimSuffix(path.Base(strings.ReplaceAll(argv[0], `\`, "/")), ".exe")
	switch {
	case base == "go" && len(argv) > 1:
		return "go " + argv[1], 2
	case strings.HasPrefix(base, "python") && len(argv) > 2 && argv[1] == "-m":
		return argv[2], 3
	}
	return base, 1
}

// ReadOnlyCommand is COMMAND as the auditor runs it: only the commands
// allowed (config auditCommands), as plain words, with the options that
// write files or run programs refused. Plan mode's COMMAND is this one.
func ReadOnlyCommand(allowed []string) tools.Tool { return commandTool{policy: newPolicy(allowed)} }

// commandTool is COMMAND restricted by the policy. Allowed commands run as
// argument vectors through the worker's command runner (same process
// group handling, timeouts, output caps and sandbox), after the deny rules.
type commandTool struct {
	policy policy
}

func (commandTool) Name() string { return tools.Command }

func (t commandTool) Doc() tools.Doc {
	return tools.Doc{
		Name: tools.Command,
		Description: "Runs one read-only command in the working directory and returns its exit code and output.\n" +
			"Allowed commands start with: " + t.policy.list() + ".\n" +
			"The command is split into words and run without a shell: no shell operators (; & | < > $ ` and line breaks), variables or substitutions; globs work. " +
			"Options that write files or run other programs are refused.",
		Example: "git diff",
		// One command on one line: a line break is refused anyway.
		Input: parser.InputLine,
	}
}

// Check reads the input as COMMAND does.
func (t commandTool) Check(input string) (tools.Checked, error) {
	return tools.Bind(input, tools.ReadCommand, t.run)
}

func (t commandTool) run(ctx context.Context, env *tools.Env, command string) tools.Result {
	argv, why := t.policy.check(command, env.Dir)
	if why != "" {
		return tools.Result{Tool: tools.Command, Summary: command, Command: command, ExitCode: -1,
			Output: "Refused: " + why}
	}
	extra := auditEnv
	if key, _ := commandKey(argv); key == "git" {
		// Only git gets the settings that keep it from running the
		// repository's programs: a project's tests and builds run its
		// code anyway, and may need git as the user set it up.
		extra = append(slices.Clone(extra), gitSafety(ctx, env.Dir, argv[1:gitSubcommand(argv)])...)
		argv = gitNoDriversArgs(argv)
		// GIT_OPTIONAL_LOCKS=0 keeps git status from refreshing the
		// index, but not git diff: git gets a copy of the index to
		// refresh, and the repository's own is never written.
		index, cleanup, err := indexCopy(ctx, env.Dir)
		if err != nil {
			return tools.Result{Tool: tools.Command, Summary: command, Command: command, ExitCode: -1,
				Output: fmt.Sprintf("Error: cannot prepare a copy of the git index for a read-only run: %v.", err)}
		}
		defer cleanup()
		if index != "" {
			extra = append(extra, "GIT_INDEX_FILE="+index)
		}
	}
	return tools.RunArgs(ctx, env, command, prepare(argv), extra)
}

// indexCopy copies the index of the repository holding dir to a temporary
// file and returns its path ("" outside a repository, or when there is no
// index yet) and how to remove it.
func indexCopy(ctx context.Context, dir string) (path string, cleanup func(), err error) {
	cleanup = func() {}
	git := exec.CommandContext(ctx, "git", "rev-parse", "--git-path", "index")
	git.Dir = dir
	git.Env = append(os.Environ(), auditEnv...)
	out, err := git.Output()
	if err != nil {
		return "", cleanup, nil // not a repository (or no git): nothing to protect
	}
	index := strings.TrimSpace(string(out))
	if !filepath.IsAbs(index) {
		index = filepath.Join(dir, index)
	}
	data, err := os.ReadFile(index)
	if errors.Is(err, fs.ErrNotExist) {
		return "", cleanup, nil
	}
	if err != nil {
		return "", cleanup, err
	}
	tmp, err := os.MkdirTemp("", "dev-audit-index-")
	if err != nil {
		return "", cleanup, err
	}
	cleanup = func() { _ = os.RemoveAll(tmp) }
	path = filepath.Join(tmp, "index")
	// The temporary directory is one the worker's commands may write
	// (sandboxed or not, and a background process may still run): the
	// copy is a new file, never one put at its path first (SPEC §13).
	if err := writeNew(path, data); err != nil {
		cleanup()
		return "", func() {}, err
	}
	return path, cleanup, nil
}

// writeNew writes data to a file it creates at path: it fails on
// anything already there, a link included.
func writeNew(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
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

func (t refusedTool) Name() string   { return t.name }
func (t refusedTool) Doc() tools.Doc { return tools.Doc{Name: t.name} }
func (t refusedTool) Check(input string) (tools.Checked, error) {
	return tools.Bind(input, tools.AsWritten, t.run)
}
func (t refusedTool) run(_ context.Context, _ *tools.Env, input string) tools.Result {
	return tools.Result{Tool: t.name, Summary: textfmt.FirstLine(input), Output: fmt.Sprintf(
		"Refused: %s is not available to the auditor, whose work is read-only. Use %s.", t.name, strings.Join(t.allowed, ", "))}
}
