// Package slashcmd reads the user's slash commands from markdown files
// (SPEC §15): .dev/commands/NAME.md in the working directory or one of its
// parents up to the repository root, and commands/NAME.md in the config
// directory; the project's win, the nearest first. A file a/b.md defines
// /a:b. Expanding "/NAME args" gives the file's content with $ARGUMENTS
// replaced, as the request to send. Pure functions of the files.
package slashcmd

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/devagent/dev/prompts"
)

// Command is one slash command.
type Command struct {
	Name        string // without the slash: "review", "git:commit"
	Description string // the front matter's description, else the first line of the body
	Path        string // the file
	Body        string // the file without its front matter
}

// Arguments is the placeholder replaced by what follows the command's name.
const Arguments = "$ARGUMENTS"

// maxFileBytes bounds a command file: a request, not a document.
const maxFileBytes = 256 << 10

// validName: the parts of a file's path, joined with ':'.
var validName = regexp.MustCompile(`^[A-Za-z0-9_.-]+(:[A-Za-z0-9_.-]+)*$`)

// Discover finds the commands of the project holding dir and of the user's
// config directory, by name. reserved are the built-in commands' names
// (help, exit, …): a file that would shadow one is left out with a warning.
// Warnings also name files that cannot be used.
func Discover(dir, configDir string, reserved []string) ([]Command, []string) {
	var roots []string
	chain := prompts.RepoChain(dir)
	for i := len(chain) - 1; i >= 0; i-- { // nearest first
		roots = append(roots, filepath.Join(chain[i], ".dev", "commands"))
	}
	if configDir != "" {
		roots = append(roots, filepath.Join(configDir, "commands"))
	}
	byName := map[string]Command{}
	var warnings []string
	for _, root := range roots {
		for _, c := range scan(root, &warnings) {
			switch {
			case slices.Contains(reserved, c.Name):
				warnings = append(warnings, fmt.Sprintf("%s: /%s is a built-in command; the file is ignored", c.Path, c.Name))
			case byName[c.Name].Path != "":
				// A nearer file already defines it.
			default:
				byName[c.Name] = c
			}
		}
	}
	cmds := make([]Command, 0, len(byName))
	for _, c := range byName {
		cmds = append(cmds, c)
	}
	sort.Slice(cmds, func(i, j int) bool { return cmds[i].Name < cmds[j].Name })
	return cmds, warnings
}

// scan reads the command files under root.
func scan(root string, warnings *[]string) []Command {
	var out []Command
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p != root { // a missing root is the usual case
				*warnings = append(*warnings, fmt.Sprintf("%s: %v", p, err))
			}
			return nil
		}
		if d.IsDir() || !strings.HasSuffix(d.Name(), ".md") {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		name := strings.ReplaceAll(filepath.ToSlash(strings.TrimSuffix(rel, ".md")), "/", ":")
		if !validName.MatchString(name) {
			*warnings = append(*warnings, fmt.Sprintf("%s: a command name has letters, digits, '_', '-' and '.'; the file is ignored", p))
			return nil
		}
		info, err := os.Stat(p)
		if err == nil && info.Size() > maxFileBytes {
			*warnings = append(*warnings, fmt.Sprintf("%s: larger than %d KB; the file is ignored", p, maxFileBytes>>10))
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			*warnings = append(*warnings, fmt.Sprintf("%s: %v", p, err))
			return nil
		}
		desc, body := frontMatter(strings.ReplaceAll(string(data), "\r\n", "\n"))
		if desc == "" {
			desc = firstLine(body)
		}
		out = append(out, Command{Name: name, Description: desc, Path: p, Body: body})
		return nil
	})
	return out
}

// frontMatter splits "---\ndescription: …\n---\nbody" into the description
// and the body. Only description is read; other keys are ignored.
func frontMatter(s string) (description, body string) {
	rest, ok := strings.CutPrefix(strings.TrimPrefix(s, "\ufeff"), "---\n")
	if !ok {
		return "", strings.TrimSpace(s)
	}
	head, body, ok := strings.Cut(rest, "\n---\n")
	if !ok {
		if h, found := strings.CutSuffix(rest, "\n---"); found {
			head, body, ok = h, "", true
		}
	}
	if !ok {
		return "", strings.TrimSpace(s) // no closing line: not front matter
	}
	for _, line := range strings.Split(head, "\n") {
		key, value, found := strings.Cut(line, ":")
		if found && strings.TrimSpace(key) == "description" {
			description = unquote(strings.TrimSpace(value))
		}
	}
	return description, strings.TrimSpace(body)
}

func unquote(v string) string {
	if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
		return v[1 : len(v)-1]
	}
	return v
}

// firstLine is the first non-empty line of a body, without a heading's #,
// shortened, to describe a command that has no description.
func firstLine(body string) string {
	for _, line := range strings.Split(body, "\n") {
		line = strings.TrimSpace(strings.TrimLeft(line, "# "))
		if line == "" {
			continue
		}
		if r := []rune(line); len(r) > 80 {
			line = string(r[:79]) + "…"
		}
		return line
	}
	return ""
}

// Parse splits a request "/NAME args" into the name and the arguments; ok
// is false when the request does not start with a slash and a name.
func Parse(request string) (name, args string, ok bool) {
	s := strings.TrimLeft(request, " \t")
	rest, found := strings.CutPrefix(s, "/")
	if !found || rest == "" || strings.ContainsAny(rest[:1], " \t\n/") {
		return "", "", false
	}
	name = rest
	if i := strings.IndexAny(rest, " \t\r\n"); i >= 0 {
		name, args = rest[:i], rest[i+1:]
	}
	return name, strings.TrimSpace(args), true
}

// Expand turns "/NAME args" into the request it stands for: the command's
// body with $ARGUMENTS replaced by args (when the body has no $ARGUMENTS,
// non-empty args are added after it, so they are never lost). ok is false
// when request is not one of cmds.
func Expand(cmds []Command, request string) (text string, cmd Command, ok bool) {
	name, args, ok := Parse(request)
	if !ok {
		return "", Command{}, false
	}
	cmd, ok = Lookup(cmds, name)
	if !ok {
		return "", Command{}, false
	}
	text = cmd.Body
	switch {
	case strings.Contains(text, Arguments):
		text = strings.ReplaceAll(text, Arguments, args)
	case args != "":
		text += "\n\n" + args
	}
	return strings.TrimSpace(text), cmd, true
}

// Lookup finds a command by name (without the slash).
func Lookup(cmds []Command, name string) (Command, bool) {
	for _, c := range cmds {
		if c.Name == name {
			return c, true
		}
	}
	return Command{}, false
}

// Complete lists "/NAME" for the commands whose name starts with prefix
// (what follows the slash), for Tab completion.
func Complete(cmds []Command, prefix string) []string {
	var out []string
	for _, c := range cmds {
		if strings.HasPrefix(c.Name, prefix) {
			out = append(out, "/"+c.Name)
		}
	}
	return out
}
