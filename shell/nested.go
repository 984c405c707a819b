package shell

import (
	"slices"
	"strings"
)

// Commands run other commands: a shell given a command line (`sh -c`,
// `eval`), or a wrapper given a program and its arguments (`env X=1 cmd`,
// `nice cmd`, `xargs cmd`, `find -exec cmd {} ;`). inner adds what c runs
// that way, with Via naming the runner.
//
// A shell's commands are read from `-c`, a here-document or here-string,
// or a pipe from echo, printf or cat with a here-document (`echo cmd |
// sh`); from another pipe (`curl … | sh`), a process substitution (`bash
// <(…)`) or a -c script the shell computes first (`sh -c "$(…)"`) they
// cannot be read, and the command is Opaque. A script file
// (`sh x.sh`, `sh < x.sh`) is not read. What xargs reads and what find
// finds are the Fill of the command they run.
func (r *reader) inner(i, depth int) error {
	c := r.script.Commands[i]
	prog := c.Program()
	if prog == "" {
		// An unknown program given -c may be a shell: read its line.
		if len(c.Words) > 0 && c.Words[0].Unknown {
			if line, ok := shellString(c.Words[1:]); ok {
				return r.shellLine(i, line, "-c", computedScript, depth)
			}
		}
		return nil
	}
	args := c.Words[1:]
	switch {
	case isShell(prog):
		if line, ok := shellString(args); ok {
			return r.shellLine(i, line, prog+" -c", computedScript, depth)
		}
		if operand, ok := firstOperand(args); ok && !readsStdin(args) {
			if procSubst(operand) {
				r.opaque(i, "a shell running what a process substitution prints")
			}
			return nil
		}
		for _, rd := range c.Redirects {
			switch rd.Op {
			case "<<", "<<-":
				return r.read(rd.Heredoc, prog+" <<", depth+1)
			case "<<<":
				return r.read(rd.Target.Text, prog, depth+1)
			case "<":
				return nil // a script file
			}
		}
		if c.piped != nil {
			return r.read(*c.piped, prog+" (piped)", depth+1)
		}
		if c.inPipe {
			r.opaque(i, "a shell reading its commands from a pipe")
		}
		return nil
	case prog == "source" || prog == ".":
		if len(args) > 0 && procSubst(args[0]) {
			r.opaque(i, "a shell running what a process substitution prints")
		}
		return nil
	case prog == "eval":
		return r.read(joinText(args), "eval", depth+1)
	case prog == "find":
		starts := FindStarts(args)
		for _, words := range findExecs(args) {
			if err := r.wrapped(Command{Words: words, Via: "find -exec", Fill: starts, Placeholder: "{}"}, depth); err != nil {
				return err
			}
		}
		return nil
	case prog == "xargs":
		rest, _, _ := wrappers[prog].skip(args)
		if len(rest) == 0 {
			return nil
		}
		reads := Word{Raw: "(what xargs reads)", Unknown: true, Split: true}
		placeholder := xargsReplace(args[:len(args)-len(rest)])
		return r.wrapped(Command{Words: rest, Via: "xargs", Fill: []Word{reads}, Placeholder: placeholder}, depth)
	}
	w, ok := wrappers[prog]
	if !ok {
		return nil
	}
	rest, line, hasLine := w.skip(args)
	if hasLine {
		return r.shellLine(i, line, prog, prog+" running a command line that is computed", depth)
	}
	if w.joinShell && len(rest) > 0 {
		return r.read(joinText(rest), prog, depth+1)
	}
	if len(rest) == 0 {
		return nil
	}
	return r.wrapped(Command{Words: rest, Via: prog, Fill: c.Fill, Placeholder: c.Placeholder}, depth)
}

// computedScript is why a shell whose -c script is computed is Opaque.
const computedScript = "a shell whose -c script is computed"

// shellLine reads the command line that command i gives a shell (`sh -c
// LINE`, `su -c LINE`). A line the shell computes first (`sh -c "$(…)"`,
// `bash -c "$X"`, backquotes) cannot be read before it runs, any more
// than a script piped into a shell: command i is then Opaque, for why.
func (r *reader) shellLine(i int, line Word, via, why string, depth int) error {
	if line.Unknown {
		r.opaque(i, why)
		return nil
	}
	return r.read(line.Text, via, depth+1)
}

// wrapped records a command a wrapper runs, and what it runs in turn.
func (r *reader) wrapped(c Command, depth int) error {
	if depth+1 > maxDepth {
		return &Error{Line: joinText(c.Words), Via: c.Via, Err: errTooDeep}
	}
	r.script.Commands = append(r.script.Commands, c)
	return r.inner(len(r.script.Commands)-1, depth+1)
}

// opaque marks command i as running what cannot be read.
func (r *reader) opaque(i int, why string) { r.script.Commands[i].Opaque = why }

// alias reads, for a command named like an alias the line defines, the
// command the alias makes of it. An alias's own commands are not
// expanded again (`alias ls='ls -F'`).
func (r *reader) alias(c Command, depth int) error {
	value, ok := r.aliases[c.Name()]
	if !ok || len(c.Words) == 0 || !c.Words[0].Static || c.Via == "alias" {
		return nil
	}
	return r.read(value+" "+joinRaw(c.Words[1:]), "alias", depth+1)
}

func joinRaw(words []Word) string {
	parts := make([]string, len(words))
	for i, w := range words {
		parts[i] = w.Raw
	}
	return strings.Join(parts, " ")
}

// readsStdin: the shell's -s option reads the commands from standard
// input whatever the operands.
func readsStdin(args []Word) bool {
	for _, a := range args {
		t := a.Text
		if len(t) < 2 || t[0] != '-' || strings.HasPrefix(t, "--") {
			break
		}
		if strings.ContainsRune(t[1:], 's') {
			return true
		}
	}
	return false
}

// firstOperand is a shell's script file or first operand, past its
// options; ok is false when it has none (then standard input is its script).
func firstOperand(args []Word) (operand Word, ok bool) {
	for i := 0; i < len(args); i++ {
		t := args[i].Text
		switch {
		case t == "--rcfile" || t == "--init-file":
			i++
		case strings.HasPrefix(t, "-") || strings.HasPrefix(t, "+"):
			if !strings.HasPrefix(t, "--") && strings.ContainsAny(t[1:], "oO") {
				i++
			}
		default:
			return args[i], true
		}
	}
	return Word{}, false
}

func procSubst(w Word) bool {
	return strings.HasPrefix(w.Raw, "<(") || strings.HasPrefix(w.Raw, ">(")
}

// xargsReplace is the replace string of xargs's options (-I R, -i[R],
// --replace[=R], -J R), or "".
func xargsReplace(opts []Word) string {
	for i, o := range opts {
		t := o.Text
		switch {
		case t == "-I" || t == "-J":
			if i+1 < len(opts) {
				return opts[i+1].Text
			}
		case strings.HasPrefix(t, "-I") || strings.HasPrefix(t, "-J"):
			return t[2:]
		case t == "-i" || t == "--replace":
			return "{}"
		case strings.HasPrefix(t, "-i"):
			return t[2:]
		case strings.HasPrefix(t, "--replace="):
			return strings.TrimPrefix(t, "--replace=")
		}
	}
	return ""
}

// FindStarts are the starting points of a find command line (its
// arguments, after the program): the words before the first expression
// (an option such as -name, `(`, `!`), after find's own -H, -L, -P, -D
// and -O options; "." when there are none.
func FindStarts(args []Word) []Word {
	i := 0
	for i < len(args) {
		t := args[i].Text
		if t == "-H" || t == "-L" || t == "-P" || strings.HasPrefix(t, "-O") {
			i++
			continue
		}
		if t == "-D" {
			i += 2
			continue
		}
		break
	}
	var starts []Word
	for ; i < len(args); i++ {
		t := args[i].Text
		if strings.HasPrefix(t, "-") && t != "-" || t == "(" || t == "!" || t == ")" || t == "," {
			break
		}
		starts = append(starts, args[i])
	}
	if len(starts) == 0 {
		starts = []Word{staticWord(".")}
	}
	return starts
}

func joinText(words []Word) string {
	parts := make([]string, len(words))
	for i, w := range words {
		parts[i] = w.Text
	}
	return strings.Join(parts, " ")
}

func isShell(prog string) bool {
	switch prog {
	case "sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "yash", "posh", "rbash":
		return true
	}
	return false
}

// shellString finds the command line of `sh [options] -c LINE [name args]`:
// -c may sit in a cluster (`-ec`, `-lc`), and -o / -O / +o take a value.
func shellString(args []Word) (Word, bool) {
	sawC := false
	for i := 0; i < len(args); i++ {
		t := args[i].Text
		switch {
		case t == "--" || t == "-":
			i++
			if sawC && i < len(args) {
				return args[i], true
			}
			return Word{}, false
		case t == "--rcfile" || t == "--init-file":
			i++
		case strings.HasPrefix(t, "--"):
		case len(t) > 1 && (t[0] == '-' || t[0] == '+'):
			for _, ch := range t[1:] {
				switch ch {
				case 'c':
					sawC = true
				case 'o', 'O':
					i++ // the option's name is the next word
				}
			}
		default:
			if sawC {
				return args[i], true
			}
			return Word{}, false
		}
	}
	return Word{}, false
}

// findExecs returns the commands of find's -exec, -execdir, -ok and -okdir
// actions, each up to its `;` or `+`.
func findExecs(args []Word) [][]Word {
	var out [][]Word
	for i := 0; i < len(args); i++ {
		switch args[i].Text {
		case "-exec", "-execdir", "-ok", "-okdir":
			j := i + 1
			for j < len(args) && args[j].Text != ";" && args[j].Text != "+" {
				j++
			}
			if j > i+1 {
				out = append(out, args[i+1:j])
			}
			i = j
		}
	}
	return out
}

// wrapper describes how a program that runs another one takes its options:
// the command starts at the first word that is not an option, an option's
// value, one of the leading operands, or (env) an assignment.
type wrapper struct {
	flags    string   // short options with a value (the rest of the word, or the next word)
	long     []string // long options with a value (as --opt=value, or the next word)
	operands int      // operands before the command (timeout's duration)
	assigns  bool     // NAME=value words before the command
	// line: the short and long options whose value is a whole command
	// line run by a shell (env -S, su -c, flock -c, script -c).
	line     string
	longLine []string
	// noRun: options after which the wrapper runs nothing (command -v
	// only prints what a name is).
	noRun string
	// joinShell: the remaining words are joined and run by a shell (watch).
	joinShell bool
}

// wrappers are the programs whose command is read. Options not listed are
// taken to have no value; a wrong guess only shifts where the command is
// thought to start, which makes it match no rule at all.
var wrappers = map[string]wrapper{
	"env":     {flags: "uC", long: []string{"--unset", "--chdir"}, assigns: true, line: "S", longLine: []string{"--split-string"}},
	"command": {noRun: "vV"},
	"builtin": {},
	"exec":    {flags: "a"},
	"nice":    {flags: "n", long: []string{"--adjustment"}},
	"nohup":   {},
	"time":    {flags: "fo", long: []string{"--format", "--output"}},
	"timeout": {flags: "sk", long: []string{"--signal", "--kill-after"}, operands: 1},
	"stdbuf":  {flags: "ioe", long: []string{"--input", "--output", "--error"}},
	"setsid":  {},
	"ionice":  {flags: "cnp", long: []string{"--class", "--classdata", "--pid"}},
	"taskset": {operands: 1},
	"xargs":   {flags: "aEdILnPs", long: []string{"--arg-file", "--delimiter", "--max-args", "--max-procs", "--max-chars", "--process-slot-var"}},
	"sudo":    {flags: "CDghpRrTtUu", long: []string{"--close-from", "--chdir", "--group", "--host", "--prompt", "--chroot", "--role", "--type", "--command-timeout", "--other-user", "--user"}},
	"doas":    {flags: "Cu"},
	"su":      {flags: "gGsw", long: []string{"--group", "--supp-group", "--shell", "--whitelist-environment"}, line: "c", longLine: []string{"--command", "--session-command"}, operands: -1},
	"flock":   {flags: "wEn", long: []string{"--timeout", "--conflict-exit-code"}, operands: 1, line: "c", longLine: []string{"--command"}},
	"script":  {flags: "EIOBTm", long: []string{"--echo", "--log-in", "--log-out", "--log-io", "--log-timing", "--logging-format"}, line: "c", longLine: []string{"--command"}, operands: -1},
	"watch":   {flags: "dnq", long: []string{"--differences", "--interval", "--equexit"}, joinShell: true},
	"busybox": {},
	"strace":  {flags: "abeEIoOpPsSuUX", long: []string{"--output", "--trace", "--signal", "--user"}},
	"chroot":  {operands: 1},
	"unshare": {},
	"nsenter": {flags: "tSG", long: []string{"--target"}},
}

// skip passes the wrapper's options and leading operands. It returns the
// command words, or the command line given as an option's value. A
// negative operands count means the wrapper runs only a command line
// option (`su -c`, `script -c`): its operands are not a command.
func (w wrapper) skip(args []Word) (rest []Word, line Word, hasLine bool) {
	operands := w.operands
	i := 0
	for ; i < len(args); i++ {
		t := args[i].Text
		if t == "--" {
			i++
			break
		}
		if strings.HasPrefix(t, "--") {
			name, value, hasValue := strings.Cut(t, "=")
			switch {
			case slices.Contains(w.longLine, name):
				if hasValue {
					return nil, Word{Raw: value, Text: value, Unknown: args[i].Unknown}, true
				}
				if i+1 < len(args) {
					return nil, args[i+1], true
				}
				return nil, Word{}, false
			case slices.Contains(w.long, name) && !hasValue:
				i++
			}
			continue
		}
		if len(t) > 1 && t[0] == '-' && !isDigits(t[1:]) { // `nice -10 cmd`: a number, not options
			stop := false
			for j := 1; j < len(t) && !stop; j++ {
				ch := t[j]
				switch {
				case strings.IndexByte(w.noRun, ch) >= 0:
					return nil, Word{}, false
				case strings.IndexByte(w.line, ch) >= 0:
					if j+1 < len(t) {
						return nil, Word{Raw: t[j+1:], Text: t[j+1:], Unknown: args[i].Unknown}, true
					}
					if i+1 < len(args) {
						return nil, args[i+1], true
					}
					return nil, Word{}, false
				case strings.IndexByte(w.flags, ch) >= 0:
					if j+1 == len(t) {
						i++ // the value is the next word
					}
					stop = true
				}
			}
			continue
		}
		if len(t) > 1 && t[0] == '-' {
			continue
		}
		if w.assigns && isAssignment(t) {
			continue
		}
		if operands < 0 {
			continue // an operand of a wrapper that takes no command words
		}
		if operands > 0 {
			operands--
			continue
		}
		break
	}
	if operands < 0 || i >= len(args) {
		return nil, Word{}, false
	}
	return args[i:], Word{}, false
}

func isAssignment(s string) bool {
	name, _, ok := strings.Cut(s, "=")
	if !ok || name == "" {
		return false
	}
	for i, c := range name {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}
