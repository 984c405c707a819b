// Package shell reads command lines the way a POSIX shell (bash) would,
// without running anything. Words splits a line into the arguments a shell
// would pass to a program and says what in it a shell would act on; Parse
// finds every simple command a line would start: in pipelines, lists,
// subshells, functions, `$(…)` and backticks, in the command lines
// handed to other programs (`sh -c`, `eval`, `env`, `xargs`, `find -exec`,
// …), in the scripts given to a shell by a here-document or an echo
// piped in, and in the line's aliases; and it says what only the running
// shell can know (Word.Unknown, Command.Fill, Command.Opaque,
// Script.Values). Policies (which commands are denied, allowed or
// read-only) are the callers'; this package only reads. It is built on
// mvdan.cc/sh/v3/syntax.
package shell

import (
	"errors"
	"fmt"
	"path"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// maxDepth bounds how deeply command lines inside command lines (`sh -c
// "sh -c '…'"`) are read; deeper nesting is an error, not a blind spot.
const maxDepth = 8

// Word is one word of a command.
type Word struct {
	Raw string // as written, quotes and all
	// Text is the word after quote removal (quotes and backslashes gone);
	// expansions and substitutions stay as written ("$HOME", "$(date)").
	Text string
	// Static: no expansion, substitution, glob, brace or tilde, so Text is
	// exactly the argument the program receives.
	Static bool
	// Unknown: part of it is known only when the shell runs: a variable, a
	// command, arithmetic or process substitution, an ANSI-C or locale
	// string (or, in Command.Fill, what xargs reads). A word neither
	// Static nor Unknown holds only globs, braces or a tilde, which the
	// file system and the home directory settle.
	Unknown bool
	// Split: an unknown part is unquoted (or is "$@"), so the word may
	// become several words, or none.
	Split bool
	// Head and Tail are the literal text before the word's first unknown
	// part and after its last: "mkfs." and "" in `mkfs.$FS` (both Text
	// when nothing in it is unknown).
	Head, Tail string
}

// Redirect is a redirection of a command: `2>&1`, `> out.txt`, `<<EOF`.
type Redirect struct {
	Fd     string // the descriptor written before the operator ("2"), or ""
	Op     string // ">", ">>", "<", "&>", ">&", "<<", "<<<", …
	Target Word   // the file, descriptor or here-string; the here-document's delimiter for << and <<-
	// Heredoc is the body of a here-document, as written.
	Heredoc string
}

// Writes reports whether the redirection opens a file for writing (not a
// descriptor duplication such as `2>&1`).
func (r Redirect) Writes() bool {
	switch r.Op {
	case ">", ">>", ">|", "&>", "&>>", "<>":
		return true
	case ">&":
		// `>&file` writes a file; `>&2` and `>&-` duplicate or close.
		t := r.Target.Text
		return !(t == "-" || isDigits(t))
	}
	return false
}

// Command is a simple command: a program with its arguments.
type Command struct {
	Assigns   []Word // NAME=value words before the program
	Words     []Word // the program, then its arguments; empty for a bare redirection (`> f`)
	Redirects []Redirect
	// Via is "" for a command written in the line itself, else what runs
	// it: "sh -c", "eval", "env", "xargs", "find -exec", … (the innermost).
	Via string
	// Fill, for a command run by xargs or find -exec, is what its runner
	// puts in at run time: Placeholder (find's "{}", the string of xargs
	// -I) stands, in a word, for one of Fill's words (find: its starting
	// points, or what lies below them; xargs: what it reads, unknown);
	// without a placeholder, xargs appends Fill's word to the command.
	Fill        []Word
	Placeholder string
	// Opaque says why what the command runs cannot be read before it runs
	// ("a shell reading its commands from a pipe"), or is "".
	Opaque string
	// inPipe: the command reads a pipe; piped is the text written into
	// it, when the line shows it (`echo 'a; b' | sh`), for a shell that
	// reads its commands from it.
	inPipe bool
	piped  *string
}

// Name is the program as written (after quote removal), or "".
func (c Command) Name() string {
	if len(c.Words) == 0 {
		return ""
	}
	return c.Words[0].Text
}

// Program is the base name of the program (`/usr/bin/sudo` → `sudo`), or
// "" when it is not static (`$(which sudo)`).
func (c Command) Program() string {
	if len(c.Words) == 0 || !c.Words[0].Static {
		return ""
	}
	return path.Base(c.Words[0].Text)
}

// Args is the Text of every word, the program first.
func (c Command) Args() []string {
	out := make([]string, len(c.Words))
	for i, w := range c.Words {
		out[i] = w.Text
	}
	return out
}

// Func is a shell function defined in the line.
type Func struct {
	Name string
	// ForksItself: its body calls it in a pipeline or in the background, so
	// every call starts two or more: the shape of a fork bomb.
	ForksItself bool
}

// Script is what a command line would run.
type Script struct {
	Commands []Command // in the order they are written, outer before inner
	Funcs    []Func
	// Values are the words the line spells for its expansions to take:
	// the values it writes out (known, or globs and tildes) and assigns to
	// variables (X=v, export, local, declare, set --, for … in), defines
	// as aliases, decodes from ANSI-C strings, and prints with echo or
	// printf (what a command substitution may give).
	Values []string
}

// Error is a command line that cannot be read as shell.
type Error struct {
	Line string // the line (or the nested command line) that failed
	Via  string // where it was nested ("sh -c", "eval"), or ""
	Err  error
}

func (e *Error) Error() string {
	if e.Via != "" {
		return fmt.Sprintf("the command line given to %s cannot be read as shell: %v", e.Via, e.Err)
	}
	return fmt.Sprintf("the command cannot be read as shell: %v", e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

var errTooDeep = errors.New("command lines are nested too deeply")

// Parse finds every simple command that line would run. A line that is
// not valid shell (or nests command lines more than a few levels deep) is
// an *Error: callers that vet commands must refuse it.
func Parse(line string) (*Script, error) {
	s := &Script{}
	r := reader{script: s, aliases: map[string]string{}, piped: map[*syntax.Stmt]*string{}}
	if err := r.read(line, "", 0); err != nil {
		return nil, err
	}
	return s, nil
}

func parseFile(src string) (*syntax.File, error) {
	return syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
}

// reader collects the commands of one line and of the lines nested in it.
type reader struct {
	script  *Script
	aliases map[string]string // alias name → value, from the whole line
	// piped maps the statement reading a pipe to the text written into
	// it, when the writer is one the line shows (echo, printf, cat with
	// a here-document); nil text: unknown.
	piped map[*syntax.Stmt]*string
}

func (r *reader) read(src, via string, depth int) error {
	if depth > maxDepth {
		return &Error{Line: src, Via: via, Err: errTooDeep}
	}
	f, err := parseFile(src)
	if err != nil {
		return &Error{Line: src, Via: via, Err: err}
	}
	var nested []int // indexes in Commands, read after the walk so the order stays outer first
	syntax.Walk(f, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.Stmt:
			if c, ok := r.stmt(src, x, via); ok {
				r.script.Commands = append(r.script.Commands, c)
				nested = append(nested, len(r.script.Commands)-1)
			}
		case *syntax.BinaryCmd:
			if x.Op == syntax.Pipe || x.Op == syntax.PipeAll {
				r.piped[leftmost(x.Y)] = pipeText(src, rightmost(x.X))
			}
		case *syntax.ForClause:
			if it, ok := x.Loop.(*syntax.WordIter); ok {
				for _, w := range it.Items {
					r.value(word(src, w))
				}
			}
		case *syntax.FuncDecl:
			if x.Name != nil {
				r.script.Funcs = append(r.script.Funcs, Func{Name: x.Name.Value, ForksItself: forksItself(x)})
			}
		}
		return true
	})
	for _, i := range nested {
		if err := r.inner(i, depth); err != nil {
			return err
		}
	}
	for _, i := range nested {
		if err := r.alias(r.script.Commands[i], depth); err != nil {
			return err
		}
	}
	return nil
}

// value adds a word the line spells to the script's values, split as an
// unquoted expansion of it would be.
func (r *reader) value(w wordInfo) {
	if !w.Unknown && w.Text != "" { // static, or a glob or tilde the shell expands
		r.script.Values = append(r.script.Values, strings.Fields(w.Text)...)
	}
	for _, d := range w.decoded {
		r.script.Values = append(r.script.Values, strings.Fields(d)...)
	}
}

// leftmost is the first command of a pipeline: what reads the pipe when
// the pipeline is the right side of another.
func leftmost(st *syntax.Stmt) *syntax.Stmt {
	for {
		b, ok := st.Cmd.(*syntax.BinaryCmd)
		if !ok || (b.Op != syntax.Pipe && b.Op != syntax.PipeAll) {
			return st
		}
		st = b.X
	}
}

// rightmost is the last command of a pipeline: what writes into the next.
func rightmost(st *syntax.Stmt) *syntax.Stmt {
	for {
		b, ok := st.Cmd.(*syntax.BinaryCmd)
		if !ok || (b.Op != syntax.Pipe && b.Op != syntax.PipeAll) {
			return st
		}
		st = b.Y
	}
}

// pipeText is what st writes, when the line shows it: the arguments of
// echo or printf, or the here-document or here-string given to cat
// without a file. nil: something else, unknown before it runs.
func pipeText(src string, st *syntax.Stmt) *string {
	call, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) == 0 {
		return nil
	}
	prog := word(src, call.Args[0])
	if !prog.Static {
		return nil
	}
	var args []string
	for _, a := range call.Args[1:] {
		args = append(args, word(src, a).Text)
	}
	switch path.Base(prog.Text) {
	case "echo":
		for len(args) > 0 && (args[0] == "-n" || args[0] == "-e" || args[0] == "-E") {
			args = args[1:]
		}
		text := strings.Join(args, " ")
		return &text
	case "printf":
		if len(args) == 0 {
			return nil
		}
		text, _, err := format(args[0], args[1:])
		if err != nil {
			return nil
		}
		return &text
	case "cat":
		if len(args) > 0 {
			return nil
		}
		for _, rd := range st.Redirs {
			switch {
			case rd.Hdoc != nil:
				text := heredoc(src, rd.Hdoc)
				return &text
			case rd.Op == syntax.WordHdoc && rd.Word != nil:
				text := word(src, rd.Word).Text
				return &text
			}
		}
	}
	return nil
}

// stmt is the simple command of a statement, if it is one.
func (r *reader) stmt(src string, st *syntax.Stmt, via string) (Command, bool) {
	c := Command{Via: via}
	c.piped, c.inPipe = r.piped[st]
	switch x := st.Cmd.(type) {
	case *syntax.CallExpr:
		for _, a := range x.Assigns {
			c.Assigns = append(c.Assigns, assignWord(src, a))
			if a.Value != nil {
				r.value(word(src, a.Value))
			}
		}
		for _, w := range x.Args {
			info := word(src, w)
			c.Words = append(c.Words, info.Word)
			if len(info.decoded) > 0 {
				r.value(wordInfo{decoded: info.decoded})
			}
		}
		r.spelled(c)
		if len(c.Words) == 0 && len(st.Redirs) == 0 {
			return Command{}, false // only assignments: nothing runs
		}
	case *syntax.DeclClause:
		c.Words = append(c.Words, staticWord(x.Variant.Value))
		for _, a := range x.Args {
			c.Words = append(c.Words, assignWord(src, a))
			if a.Value != nil {
				r.value(word(src, a.Value))
			}
		}
	case nil:
		if len(st.Redirs) == 0 {
			return Command{}, false
		}
	default:
		return Command{}, false
	}
	for _, rd := range st.Redirs {
		c.Redirects = append(c.Redirects, redirect(src, rd))
	}
	return c, true
}

func redirect(src string, rd *syntax.Redirect) Redirect {
	out := Redirect{Op: rd.Op.String()}
	if rd.N != nil {
		out.Fd = rd.N.Value
	}
	if rd.Word != nil {
		out.Target = word(src, rd.Word).Word
	}
	if rd.Hdoc != nil {
		out.Heredoc = heredoc(src, rd.Hdoc)
	}
	return out
}

// heredoc is the body of a here-document as written, without the line
// that ends it (which the positions of its last literal take in).
func heredoc(src string, w *syntax.Word) string {
	var b strings.Builder
	for _, p := range w.Parts {
		if l, ok := p.(*syntax.Lit); ok {
			b.WriteString(l.Value)
			continue
		}
		b.WriteString(src[p.Pos().Offset():p.End().Offset()])
	}
	return b.String()
}

// staticWord is a word known as written.
func staticWord(text string) Word {
	return Word{Raw: text, Text: text, Static: true, Head: text, Tail: text}
}

// spelled adds to the script's values what c defines or prints: alias
// values (and the aliases themselves), set's arguments, and what echo
// and printf print.
func (r *reader) spelled(c Command) {
	switch c.Program() {
	case "alias":
		for _, w := range c.Words[1:] {
			if name, value, ok := strings.Cut(w.Text, "="); ok && w.Static {
				r.aliases[name] = value
				r.script.Values = append(r.script.Values, strings.Fields(value)...)
			}
		}
	case "set", "echo":
		for _, w := range c.Words[1:] {
			r.value(wordInfo{Word: w})
		}
	case "printf":
		for i, w := range c.Words[1:] {
			if i == 0 && w.Static {
				if text, _, err := format(w.Text, nil); err == nil {
					r.value(wordInfo{decoded: []string{text}})
				}
				continue
			}
			r.value(wordInfo{Word: w})
		}
	}
}

func assignWord(src string, a *syntax.Assign) Word {
	raw := src[a.Pos().Offset():a.End().Offset()]
	w := Word{Raw: raw, Text: raw, Unknown: true} // an array or an element: taken as unknown
	if a.Name != nil && a.Value != nil && a.Array == nil && a.Index == nil {
		v := word(src, a.Value)
		op := "="
		if a.Append {
			op = "+="
		}
		w.Text, w.Static, w.Unknown = a.Name.Value+op+v.Text, v.Static, v.Unknown
		w.Head, w.Tail = a.Name.Value+op+v.Head, v.Tail
	} else if a.Name != nil && a.Value == nil && a.Array == nil && a.Index == nil {
		w = staticWord(raw) // `export X`, `X=`
	}
	return w
}

// forksItself reports whether a function's body calls the function in a
// pipeline or in the background.
func forksItself(fd *syntax.FuncDecl) bool {
	name := fd.Name.Value
	calls := func(n syntax.Node) bool {
		found := false
		syntax.Walk(n, func(n syntax.Node) bool {
			if c, ok := n.(*syntax.CallExpr); ok && len(c.Args) > 0 && c.Args[0].Lit() == name {
				found = true
			}
			return !found
		})
		return found
	}
	found := false
	syntax.Walk(fd.Body, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.BinaryCmd:
			if (x.Op == syntax.Pipe || x.Op == syntax.PipeAll) && calls(x) {
				found = true
			}
		case *syntax.Stmt:
			if x.Background && calls(x) {
				found = true
			}
		}
		return !found
	})
	return found
}

// wordInfo is a Word and, when it is not static, what makes it so.
type wordInfo struct {
	Word
	why string
	// expandable: only globs, braces and a tilde make it dynamic, which a
	// shell expands from the file system and the home directory alone.
	expandable bool
	// decoded are its ANSI-C strings ($'\x72m'), as the shell reads them.
	decoded []string
}

// word removes quotes the way the shell does and notes what the shell
// would still expand.
func word(src string, w *syntax.Word) wordInfo {
	out := wordInfo{Word: Word{Raw: src[w.Pos().Offset():w.End().Offset()], Static: true}, expandable: true}
	var b strings.Builder
	first, last := -1, 0 // where the unknown parts start and end in b
	dynamic := func(why string, raw string, split bool) {
		if out.Static || out.expandable { // name the first reason a file system cannot settle
			out.why = why
		}
		out.Static, out.expandable = false, false
		if first < 0 {
			first = b.Len()
		}
		b.WriteString(raw)
		last = b.Len()
		out.Split = out.Split || split
	}
	for i, part := range w.Parts {
		raw := src[part.Pos().Offset():part.End().Offset()]
		switch x := part.(type) {
		case *syntax.Lit:
			if why := unquotedExpansion(x.Value, i == 0); why != "" && out.Static {
				out.Static, out.why = false, why
			}
			b.WriteString(unescape(x.Value, false))
		case *syntax.SglQuoted:
			if x.Dollar {
				if text, _, err := format(x.Value, nil); err == nil {
					out.decoded = append(out.decoded, text)
				}
				dynamic("an ANSI-C quoted string `$'…'`", raw, false)
				continue
			}
			b.WriteString(x.Value)
		case *syntax.DblQuoted:
			if x.Dollar {
				dynamic("a locale string `$\"…\"`", raw, false)
				continue
			}
			for _, q := range x.Parts {
				if l, ok := q.(*syntax.Lit); ok {
					b.WriteString(unescape(l.Value, true))
					continue
				}
				qraw := src[q.Pos().Offset():q.End().Offset()]
				dynamic(describe(q), qraw, strings.Contains(qraw, "@")) // "$@", "${a[@]}"
			}
		case *syntax.ParamExp, *syntax.CmdSubst:
			dynamic(describe(part), raw, true) // unquoted: split into words
		default:
			dynamic(describe(part), raw, false)
		}
	}
	out.Text = b.String()
	out.Head, out.Tail = out.Text, out.Text
	if first >= 0 {
		out.Unknown = true
		out.Head, out.Tail = out.Text[:first], out.Text[last:]
	}
	return out
}

// describe names a word part the shell expands.
func describe(p syntax.WordPart) string {
	switch x := p.(type) {
	case *syntax.ParamExp:
		return "a variable `$`"
	case *syntax.CmdSubst:
		if x.Backquotes {
			return "a command substitution with backquotes"
		}
		return "a command substitution `$(…)`"
	case *syntax.ArithmExp:
		return "an arithmetic expansion `$((…))`"
	case *syntax.ProcSubst:
		return "a process substitution"
	case *syntax.ExtGlob:
		return "an extended glob"
	case *syntax.BraceExp:
		return "a brace expansion"
	}
	return "an expansion"
}

// unquotedExpansion names what a shell expands in an unquoted literal: a
// glob, a brace expansion, or a leading tilde. Escaped characters do not
// count.
func unquotedExpansion(s string, first bool) string {
	if first && strings.HasPrefix(s, "~") {
		return "a tilde `~`"
	}
	open := -1
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\\':
			i++
		case '*', '?', '[':
			return fmt.Sprintf("a glob `%c`", c)
		case '{':
			open = i
		case '}':
			if open >= 0 && (strings.Contains(s[open:i], ",") || strings.Contains(s[open:i], "..")) {
				return "a brace expansion `{…}`"
			}
		}
	}
	return ""
}

// unescape removes the backslashes a shell removes: all of them outside
// quotes (a backslash-newline disappears), and inside double quotes only
// those before $ ` " \ and newline.
func unescape(s string, inDouble bool) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 == len(s) {
			b.WriteByte(c)
			continue
		}
		next := s[i+1]
		if inDouble && !strings.ContainsRune("$`\"\\\n", rune(next)) {
			b.WriteByte(c)
			continue
		}
		i++
		if next != '\n' {
			b.WriteByte(next)
		}
	}
	return b.String()
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// Background reports whether line ends with a lone `&` outside quotes (a
// server started as `npm run dev &`), and returns line without it. `&&`,
// a quoted `&` or one inside a subshell or a function is no such ending.
func Background(line string) (rest string, ok bool) {
	f, err := parseFile(line)
	if err != nil || len(f.Stmts) == 0 || len(f.Last) > 0 {
		return line, false
	}
	last := f.Stmts[len(f.Stmts)-1]
	if !last.Background || !last.Semicolon.IsValid() {
		return line, false
	}
	at := int(last.Semicolon.Offset())
	if at >= len(line) || line[at] != '&' || strings.TrimSpace(line[at+1:]) != "" {
		return line, false
	}
	return strings.TrimSpace(line[:at]), true
}

// Quote writes s as one word a POSIX shell reads back as s (for commands
// dev shows people to copy: the resume command, an MCP server's command
// line). A string no shell can hold (a NUL byte) is quoted as it is.
func Quote(s string) string {
	q, err := syntax.Quote(s, syntax.LangPOSIX)
	if err != nil {
		return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
	}
	return q
}

// format expands printf's format and $'…' as bash would. Each call gets
// a config of its own: given nil, mvdan.cc/sh (v3.14) prepares a config
// shared by all callers in place, a data race between two parses.
func format(f string, args []string) (string, int, error) {
	return expand.Format(&expand.Config{}, f, args)
}
