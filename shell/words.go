package shell

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// Operators are the characters that make a shell chain, redirect or
// substitute commands. Words and Fields report them wherever they appear,
// quoted or not.
const Operators = ";&|<>$`\n\r"

// Words splits line into words as a shell would: quotes and backslashes
// removed (`'-o' x` and `--o\utput` are "-o", "x" and "--output").
//
// special is "" when the line is one plain command whose words a program
// receives exactly as returned. Otherwise it names the first thing a shell
// would act on, so that running words without a shell would differ from
// running line with one: an operator character of Operators anywhere (even
// quoted), a glob, a tilde, a brace expansion, an assignment, a
// redirection, or a compound command. An unreadable line is an *Error.
func Words(line string) (words []string, special string, err error) {
	call, special, err := plain(line)
	if call == nil {
		return nil, special, err
	}
	for _, w := range call.Args {
		info := word(line, w)
		if !info.Static && special == "" {
			special = info.why
		}
		words = append(words, info.Text)
	}
	return words, special, nil
}

// Fields is Words with the expansions that depend only on the file system
// and the home directory done as a shell would do them: globs (matched in
// dir; a pattern matching nothing stays as written, and `*` skips dot
// files), braces, and a leading tilde (home). special then names only
// what remains: operators, variables, substitutions, assignments,
// redirections and compound commands. Callers that run the fields as an
// argument vector refuse a line whose special is not "", and check the
// fields, not the line: a glob can expand to a name that looks like an
// option.
func Fields(line, dir, home string) (fields []string, special string, err error) {
	call, special, err := plain(line)
	if call == nil {
		return nil, special, err
	}
	for _, w := range call.Args {
		if info := word(line, w); !info.expandable && special == "" {
			special = info.why
		}
	}
	if special != "" {
		return nil, special, nil
	}
	cfg := &expand.Config{
		Env:      expand.ListEnviron("PWD="+dir, "HOME="+home),
		ReadDir2: os.ReadDir,
	}
	fields, err = expand.Fields(cfg, call.Args...)
	if err != nil {
		return nil, "", &Error{Line: line, Err: err}
	}
	return fields, "", nil
}

// plain parses line and returns its command when it is one simple
// command; special names the first shell operator or structure found.
func plain(line string) (call *syntax.CallExpr, special string, err error) {
	if i := strings.IndexAny(line, Operators); i >= 0 {
		special = operatorName(line[i])
	}
	f, err := parseFile(line)
	if err != nil {
		return nil, special, &Error{Line: line, Err: err}
	}
	if len(f.Stmts) == 0 {
		return nil, special, nil
	}
	if special == "" && len(f.Stmts) > 1 {
		special = "several commands"
	}
	st := f.Stmts[0]
	call, ok := st.Cmd.(*syntax.CallExpr)
	if special == "" {
		switch {
		case !ok:
			special = "a compound command (" + firstWord(line) + ")"
		case st.Negated:
			special = "a negation `!`"
		case st.Background:
			special = "`&`"
		case len(st.Redirs) > 0:
			special = "a redirection"
		case len(call.Assigns) > 0:
			special = "a variable assignment"
		}
	}
	if !ok || len(call.Args) == 0 {
		return nil, special, nil
	}
	return call, special, nil
}

func operatorName(c byte) string {
	switch c {
	case '\n', '\r':
		return "a line break"
	case '`':
		return "a backquote"
	}
	return fmt.Sprintf("`%c`", c)
}

func firstWord(line string) string {
	f := strings.Fields(line)
	if len(f) == 0 {
		return ""
	}
	return "`" + f[0] + "`"
}

// globalValued lists, for programs whose options before a subcommand
// dev knows, those that take the next word as their value (`git -C dir
// status`).
var globalValued = map[string][]string{
	"git": {"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--super-prefix", "--config-env"},
}

// GlobalOption reports whether opt, an option given to prog before its
// subcommand, takes the next word as its value; known is false for a
// program whose options dev does not know (it may, or not).
func GlobalOption(prog, opt string) (takesValue, known bool) {
	valued, known := globalValued[prog]
	return known && slices.Contains(valued, opt), known
}
