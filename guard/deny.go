// Package guard decides whether a command line may run under the user's
// rules (SPEC §13): the denied commands (a builtin list, and the
// denyCommands prefixes) and, for approvals, the allowCommands prefixes and
// the exact commands or files the user allowed "always". Every simple
// command of a line is checked, as package shell finds them: in pipelines,
// lists, subshells, `$(…)`, backticks, the strings given to `sh -c`, the
// here-documents and echoed text given to a shell, aliases, and what
// wrappers such as env, xargs and find -exec run. It runs nothing and
// keeps no global state.
//
// What dev cannot know before the shell runs is checked as if it could be
// anything a rule denies (see possible.go): `rm -rf $(echo ~)` is refused,
// and the refusal asks for the target written out. These rules guard
// against mistakes, not against a program that means to get around them
// (a script file, an interpreter, a command assembled from pieces): the
// OS sandbox is the layer that holds against those.
package guard

import (
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/devagent/dev/shell"
)

// Refusal is a command line refused by a deny rule. Its message is written
// for the model: what was refused, by which rule, and where the rule is set.
type Refusal struct {
	Command string // the simple command that matched, as written after quote removal
	Rule    string // the rule: "sudo", "rm -r/-f on / or ~", or the user's prefix
	Builtin bool   // a rule of the builtin list (else denyCommands)
	Via     string // what runs the command when it is nested ("sh -c", "env", …)
	// Unknown, when set, is what dev could not know before the shell runs
	// and took for something the rule denies: "`$X`", "what xargs reads".
	Unknown string
}

// Unreadable is the rule of a command that runs commands dev cannot read
// (`curl … | sh`): it could run anything a rule denies.
const Unreadable = "commands dev cannot read"

func (r *Refusal) Error() string {
	where := fmt.Sprintf("the entry %q of denyCommands in the configuration", r.Rule)
	switch {
	case r.Rule == Unreadable:
		where = "the denied-command rules (config denyCommands, denyBuiltinCommands)"
	case r.Builtin:
		where = fmt.Sprintf("the builtin rule %q (config denyBuiltinCommands)", r.Rule)
	}
	cmd := r.Command
	if r.Via != "" {
		cmd += " (run by " + r.Via + ")"
	}
	msg := fmt.Sprintf("the command `%s` is denied by %s. It was not started", cmd, where)
	if r.Unknown != "" {
		advice := "Write the program and its targets out as plain words (no variables, substitutions, globs after cd, xargs input or piped scripts), so they can be checked"
		if r.Rule == Unreadable {
			advice = "Write the script out in the command line itself (`sh -c '…'` with its commands as plain text, no variable, substitution or download making them), so its commands can be checked"
		}
		return msg + fmt.Sprintf(": %s is known only when the shell runs, so dev takes it for anything the rules deny. %s", r.Unknown, advice)
	}
	return msg + "; do not try to get around the rule: do the work another way, or tell the user what you need"
}

// Deny holds the denied-command rules. The zero value denies nothing; nil
// is not allowed (use Builtin for the default).
type Deny struct {
	builtin bool
	user    []prefix
}

// prefix is a user's command prefix, matched on whole words.
type prefix struct {
	text  string
	words []string
}

// NewDeny returns the rules: the user's prefixes (config denyCommands) and,
// when builtin is set, the builtin list. A prefix that is not one plain
// command is an error naming it.
func NewDeny(prefixes []string, builtin bool) (*Deny, error) {
	user, err := parsePrefixes(prefixes)
	if err != nil {
		return nil, err
	}
	return &Deny{builtin: builtin, user: user}, nil
}

// Builtin is the default rules: the builtin list and no user prefixes.
func Builtin() *Deny { return &Deny{builtin: true} }

// Enabled reports whether any rule is in force (else Check never parses).
func (d *Deny) Enabled() bool { return d.builtin || len(d.user) > 0 }

// Check returns nil when line may run, a *Refusal naming the rule it
// breaks, or a *shell.Error when the line cannot be read as shell (and so
// cannot be vetted: callers refuse it).
func (d *Deny) Check(line string) error {
	if !d.Enabled() {
		return nil
	}
	s, err := shell.Parse(line)
	if err != nil {
		return err
	}
	if d.builtin {
		for _, f := range s.Funcs {
			if f.ForksItself {
				return &Refusal{Command: f.Name + "() { … }", Rule: "fork bomb", Builtin: true}
			}
		}
	}
	l := newFacts(s)
	for _, c := range s.Commands {
		if c.Opaque != "" {
			return &Refusal{Command: render(c), Rule: Unreadable, Builtin: d.builtin, Via: c.Via, Unknown: "what " + c.Opaque + " runs"}
		}
		for _, v := range variants(c) {
			if d.builtin {
				if m := builtinRule(v, l); m.rule != "" {
					return &Refusal{Command: render(c), Rule: m.rule, Builtin: true, Via: c.Via, Unknown: m.unknown}
				}
			}
			for _, p := range d.user {
				if ok, unknown := p.denies(v, l); ok {
					return &Refusal{Command: render(c), Rule: p.text, Via: c.Via, Unknown: unknown}
				}
			}
		}
	}
	return nil
}

// render writes a command for a message: its words after quote removal.
func render(c shell.Command) string {
	s := strings.Join(c.Args(), " ")
	for _, r := range c.Redirects {
		s += " " + r.Fd + r.Op + " " + r.Target.Text
	}
	return strings.TrimSpace(s)
}

// parsePrefixes reads command prefixes as words, as the shell would split
// them. Each must be one plain command: an operator or a redirection could
// never match a single simple command.
func parsePrefixes(texts []string) ([]prefix, error) {
	var out []prefix
	for _, t := range texts {
		words, err := PrefixWords(t)
		if err != nil {
			return nil, err
		}
		out = append(out, prefix{text: strings.TrimSpace(t), words: words})
	}
	return out, nil
}

// PrefixWords splits a configured command prefix (denyCommands,
// allowCommands) into its words, or says why it is not one: empty, or
// not a single plain command.
func PrefixWords(t string) ([]string, error) {
	if strings.TrimSpace(t) == "" {
		return nil, errors.New("an entry is empty")
	}
	if i := strings.IndexAny(t, ";&|<>`\n\r"); i >= 0 {
		return nil, fmt.Errorf("%q contains %q: an entry is one command prefix, matched against each simple command of a line", t, t[i:i+1])
	}
	words, _, err := shell.Words(t)
	if err != nil {
		return nil, fmt.Errorf("%q: %w", t, err)
	}
	if len(words) == 0 {
		return nil, fmt.Errorf("%q has no words", t)
	}
	return words, nil
}

// allows compares an allowCommands prefix with the command's first
// words, exactly, assignments included, so that `LD_PRELOAD=x go test` is
// not `go test`. (Deny rules match more loosely: denies, in possible.go.)
func (p prefix) allows(c shell.Command) bool {
	var words []string
	for _, a := range c.Assigns {
		words = append(words, a.Text)
	}
	words = append(words, c.Args()...)
	if len(words) < len(p.words) {
		return false
	}
	for i, w := range p.words {
		if words[i] != w {
			return false
		}
	}
	return true
}

func anyText(words []shell.Word, texts ...string) bool {
	for _, w := range words {
		for _, t := range texts {
			if w.Text == t {
				return true
			}
		}
	}
	return false
}

// options returns the option words of a GNU-style command line: those
// starting with "-" before a "--" (GNU tools take options after operands
// too), and the operands.
func options(args []shell.Word) (opts, operands []shell.Word) {
	for i, a := range args {
		switch {
		case a.Text == "--":
			return opts, append(operands, args[i+1:]...)
		case len(a.Text) > 1 && a.Text[0] == '-':
			opts = append(opts, a)
		default:
			operands = append(operands, a)
		}
	}
	return opts, operands
}

// hasOption reports whether a short option letter (in a cluster: -rf) or
// a long option (or an abbreviation GNU getopt accepts: --rec) is given.
func hasOption(args []shell.Word, short string, long ...string) bool {
	opts, _ := options(args)
	for _, o := range opts {
		t := o.Text
		if strings.HasPrefix(t, "--") {
			name, _, _ := strings.Cut(t, "=")
			for _, l := range long {
				if len(name) >= 3 && strings.HasPrefix(l, name) {
					return true
				}
			}
			continue
		}
		if strings.ContainsAny(t[1:], short) {
			return true
		}
	}
	return false
}

func recursive(args []shell.Word) bool { return hasOption(args, "R", "--recursive") }

// isRoot reports whether a target is the root directory or everything in
// it: "/", "//", "/.", "/*", "/..".
func isRoot(t string) bool {
	if !strings.HasPrefix(t, "/") {
		return false
	}
	t = strings.TrimSuffix(t, "*")
	return path.Clean(t) == "/"
}

// isRootOrHome is isRoot, or the home directory or everything in it: "~",
// "~/", "~/*", "~user", "$HOME", "${HOME}/", "$HOME/*".
func isRootOrHome(t string) bool {
	if isRoot(t) {
		return true
	}
	var rest string
	switch {
	case strings.HasPrefix(t, "$HOME"):
		rest = t[len("$HOME"):]
	case strings.HasPrefix(t, "${HOME}"):
		rest = t[len("${HOME}"):]
	case strings.HasPrefix(t, "~"):
		rest = t[1:]
		if i := strings.IndexByte(rest, '/'); i >= 0 {
			rest = rest[i:]
		} else {
			rest = "" // ~ or ~user
		}
	default:
		return false
	}
	return rest == "" || isRoot(rest)
}

// isDevice reports whether a path is a device file that writing to can
// destroy data: anything under /dev except the harmless ones.
func isDevice(p string) bool {
	if !strings.HasPrefix(p, "/dev/") {
		return false
	}
	p = path.Clean(p)
	switch p {
	case "/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty",
		"/dev/stdout", "/dev/stderr", "/dev/stdin":
		return false
	}
	return !strings.HasPrefix(p, "/dev/fd/") && !strings.HasPrefix(p, "/dev/shm/") && !strings.HasPrefix(p, "/dev/pts/")
}
