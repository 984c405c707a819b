package guard

import (
	"path"
	"slices"
	"strings"

	"github.com/devagent/dev/shell"
)

// What a line leaves unknown until the shell runs it is checked as if it
// could be anything a rule denies (SPEC §13), within reason, so that the
// everyday line still runs:
//
//   - An unknown argument (`$X`, `$(…)`, what xargs reads, a glob or `.`
//     after a cd elsewhere or past `..`) is any denied target: `/`, `~`, a
//     device. It is not one when its last path component is written out
//     (`"$OUT/build"`: whatever OUT is, that is no `/` and no `~`). It is
//     not taken for an option, unless the line spells one for it (`F=-rf`).
//   - An unknown program (`$X`, `$(…)`, a function or alias of the line) is
//     rm, chmod, chown, chgrp or dd when its arguments would break their
//     rule (`$X -rf ~`, `$X -rf $Y`): those rules need arguments that say
//     what they are. It is a program that any use denies (sudo, reboot,
//     mkfs, a one-word denyCommands entry, the program of any entry) only
//     when the line spells that name somewhere (`X=sudo; $X id`, `$(echo
//     sudo) id`) or the word shows part of it (`mkfs.$FS`): else every
//     `$CC`, `"$@"` or `$EDITOR` would be refused.
//   - A denyCommands prefix matches through options before a non-option
//     word (`git -C . clean` is `git clean`): dev knows git's options that
//     take a value, and tries both readings for other programs.

// facts are what a line says about its unknowns.
type facts struct {
	values  map[string]bool   // words the line spells for its expansions (shell.Script.Values)
	options []string          // those that look like options, each once
	targets []string          // those that are / or ~ (isRootOrHome)
	mkfs    bool              // one starts with "mkfs."
	spelled map[string]string // per option set asked for: the first of options that gives one, or ""
	funcs   map[string]bool   // functions the line defines
	// elsewhere is the first cd or pushd of the line away from the
	// working directory ("cd /"), or "": after it, a relative glob is any
	// target. Anywhere in the line, to stay on the safe side.
	elsewhere string
}

func newFacts(s *shell.Script) *facts {
	l := &facts{values: map[string]bool{}, funcs: map[string]bool{}, spelled: map[string]string{}}
	for _, v := range s.Values {
		if l.values[v] {
			continue
		}
		l.values[v] = true
		switch {
		case len(v) > 1 && v[0] == '-':
			l.options = append(l.options, v)
		case isRootOrHome(v):
			l.targets = append(l.targets, v)
		case strings.HasPrefix(v, "mkfs."):
			l.mkfs = true
		}
	}
	for _, f := range s.Funcs {
		l.funcs[f.Name] = true
	}
	for _, c := range s.Commands {
		if p := c.Program(); (p == "cd" || p == "pushd") && l.elsewhere == "" && away(c.Words[1:]) {
			l.elsewhere = render(c)
		}
	}
	return l
}

// away reports whether cd's arguments leave the working directory's
// tree: no target (home), `-`, an absolute path, `~`, `..`, or unknown.
func away(args []shell.Word) bool {
	var target *shell.Word
	for i := range args {
		if t := args[i].Text; (t == "-P" || t == "-L" || t == "-e" || t == "-@") && args[i].Static {
			continue
		}
		target = &args[i]
		break
	}
	if target == nil {
		return true
	}
	t := target.Text
	if target.Unknown || t == "-" || strings.HasPrefix(t, "/") || strings.HasPrefix(t, "~") {
		return true
	}
	return slices.Contains(strings.Split(t, "/"), "..")
}

// variants are the commands c may run as, with what xargs or find -exec
// put in (Fill) in place, and brace alternatives made words of their own
// (`{rm,-rf,~}` is `rm -rf ~`).
func variants(c shell.Command) []shell.Command {
	c = expandBraces(c)
	if len(c.Fill) == 0 {
		return []shell.Command{c}
	}
	if c.Placeholder == "" {
		v := c
		v.Words = append(slices.Clone(c.Words), c.Fill...)
		return []shell.Command{v}
	}
	var out []shell.Command
	for _, f := range c.Fill {
		v := c
		v.Words = slices.Clone(c.Words)
		for i, w := range v.Words {
			if !strings.Contains(w.Text, c.Placeholder) {
				continue
			}
			before, after, _ := strings.Cut(w.Text, c.Placeholder)
			n := shell.Word{Raw: w.Raw, Text: strings.ReplaceAll(w.Text, c.Placeholder, f.Text), Unknown: f.Unknown || w.Unknown, Split: f.Split}
			n.Head, n.Tail = n.Text, n.Text
			if n.Unknown {
				n.Head, n.Tail = before+f.Head, f.Tail+after
				if f.Raw != "" && !f.Static {
					n.Raw = f.Raw
				}
			}
			v.Words[i] = n
		}
		out = append(out, v)
	}
	return out
}

// expandBraces makes each brace alternative of c's words a word.
func expandBraces(c shell.Command) shell.Command {
	words := make([]shell.Word, 0, len(c.Words))
	changed := false
	for _, w := range c.Words {
		if w.Static || w.Unknown || !strings.Contains(w.Text, "{") {
			words = append(words, w)
			continue
		}
		alts, ok := braces(w.Text)
		switch {
		case !ok: // too many to read: unknown
			w.Unknown, w.Split, w.Head, w.Tail = true, true, "", ""
			words, changed = append(words, w), true
		case len(alts) == 1:
			words = append(words, w)
		default:
			for _, a := range alts {
				words = append(words, shell.Word{Raw: w.Raw, Text: a, Head: a, Tail: a})
			}
			changed = true
		}
	}
	if changed {
		c.Words = words
	}
	return c
}

// match is a rule a command breaks (or may break), and the unknown word
// that makes it possible ("" when the line says it plainly).
type match struct {
	rule, unknown string
}

// program is what runs c: its base name when the line tells it (a static
// word, or a static name after the last `/`: `$GOPATH/bin/tool`), else
// the unknown word, reduced to what it shows of the base name (Head and
// Tail). A function of the line, or a glob, is unknown too.
func program(c shell.Command, l *facts) (string, *shell.Word) {
	if len(c.Words) == 0 {
		return "", nil
	}
	w := c.Words[0]
	if w.Static && l.funcs[w.Text] {
		return "", &shell.Word{Raw: "the function " + w.Text, Unknown: true, Split: true}
	}
	text := w.Tail
	if !w.Unknown {
		text = w.Text
	}
	if i := strings.LastIndexByte(text, '/'); (!w.Unknown || i >= 0) && !strings.ContainsAny(text[i+1:], "*?[") {
		return path.Base(text), nil
	}
	u := w
	if !w.Unknown { // a glob in the name: s?do
		i := strings.IndexAny(text, "*?[")
		j := strings.LastIndexAny(text, "*?]")
		u.Head, u.Tail, u.Unknown = text[:i], text[j+1:], true
	}
	u.Head = u.Head[strings.LastIndexByte(u.Head, '/')+1:]
	return "", &u
}

// shows reports whether the unknown program u may be name: what it shows
// of itself fits, and the line spells the name or u shows two or more of
// its characters.
func (l *facts) shows(u *shell.Word, name string) bool {
	return fits(u, name) && (l.values[name] || len(u.Head)+len(u.Tail) >= 2)
}

// fits reports whether the unknown program u may be name as far as u
// shows: its literal start and end.
func fits(u *shell.Word, name string) bool {
	return len(u.Head)+len(u.Tail) <= len(name) && strings.HasPrefix(name, u.Head) && strings.HasSuffix(name, u.Tail)
}

// programRules are the builtin rules that any use of the program breaks.
var programRules = []string{"sudo", "su", "doas", "shutdown", "reboot", "halt", "poweroff"}

// builtinRule names the builtin rule c breaks or may break, or nothing.
func builtinRule(c shell.Command, l *facts) match {
	for _, r := range c.Redirects {
		if r.Writes() && isDevice(r.Target.Text) {
			return match{rule: "writing to a device in /dev"}
		}
	}
	prog, u := program(c, l)
	args := c.Words[min(1, len(c.Words)):]
	if u == nil {
		return knownRule(prog, args, l, false)
	}
	// The unknown program, unquoted, may bring its own arguments: those
	// the line spells.
	if u.Split {
		args = append([]shell.Word{{Raw: u.Raw, Text: carried, Unknown: true, Split: true}}, args...)
	}
	for _, name := range programRules {
		if l.shows(u, name) {
			return match{rule: name, unknown: "the program " + quote(u.Raw)}
		}
	}
	if l.shows(u, "mkfs") || strings.HasPrefix(u.Head, "mkfs.") || l.mkfs && fits(u, "mkfs.") {
		return match{rule: "mkfs", unknown: "the program " + quote(u.Raw)}
	}
	for _, name := range []string{"systemctl", "init", "telinit"} {
		if l.shows(u, name) {
			if m := knownRule(name, args, l, true); m.rule != "" {
				return match{rule: m.rule, unknown: "the program " + quote(u.Raw)}
			}
		}
	}
	// The names the line spells first: X=chmod; $X -R 777 / is a chmod
	// (that rm would be refused too is no news).
	names := []string{"rm", "chmod", "chown", "chgrp", "dd"}
	slices.SortStableFunc(names, func(a, b string) int {
		switch {
		case l.values[a] && !l.values[b]:
			return -1
		case l.values[b] && !l.values[a]:
			return 1
		}
		return 0
	})
	for _, name := range names {
		if fits(u, name) {
			if m := knownRule(name, args, l, true); m.rule != "" {
				m.unknown = join("the program "+quote(u.Raw), m.unknown)
				return m
			}
		}
	}
	return match{}
}

// may reports whether an unknown word may be the word w: any word but an
// option, which the line must spell.
func (l *facts) may(w string) bool {
	return !strings.HasPrefix(w, "-") || l.values[w]
}

// carried stands for the arguments an unknown program word may bring
// along: options and targets only the line spells.
const carried = "\x00carried"

// spellsTarget reports whether the line spells a target that denied
// refuses (each denied is a narrowing of isRootOrHome).
func (l *facts) spellsTarget(denied func(string) bool) bool {
	return slices.ContainsFunc(l.targets, denied)
}

// knownRule names the builtin rule that prog with args breaks. guessed:
// prog is only what an unknown program may be, so its options must all
// be its own (`$CC -fPIC -o x $SRC` is no rm: rm would refuse -P).
func knownRule(prog string, args []shell.Word, l *facts, guessed bool) match {
	switch {
	case prog == "sudo" || prog == "su" || prog == "doas":
		return match{rule: prog}
	case prog == "mkfs" || strings.HasPrefix(prog, "mkfs."):
		return match{rule: "mkfs"}
	case prog == "shutdown" || prog == "reboot" || prog == "halt" || prog == "poweroff":
		return match{rule: prog}
	case prog == "systemctl" && anyText(args, "poweroff", "reboot", "halt", "kexec", "soft-reboot"):
		return match{rule: "shutdown"}
	case (prog == "init" || prog == "telinit") && anyText(args, "0", "6"):
		return match{rule: "shutdown"}
	case prog == "rm":
		if guessed && !ownOptions(args, "dfiIrRv", rmLong) {
			return match{}
		}
		// Without -r, rm removes no directory: an unknown target is
		// dangerous only unquoted, when it may become a glob (`/*`).
		rec, whyR := l.option(args, "rR", "--recursive")
		force, whyF := l.option(args, "f", "--force")
		if rec || force {
			if hit, unknown := l.target(args, isRootOrHome, 0, rec); hit {
				return match{rule: "rm -r/-f on / or ~", unknown: join(join(whyR, whyF), unknown)}
			}
		}
	case prog == "chmod" || prog == "chown" || prog == "chgrp":
		// The first operand is the mode or the owner, unless --reference
		// gives it.
		skip := 1
		if hasOption(args, "", "--reference") {
			skip = 0
		}
		if recursive(args) {
			if hit, unknown := l.target(args, isRoot, skip, true); hit {
				return match{rule: prog + " -R on /", unknown: unknown}
			}
		}
	case prog == "dd":
		for _, a := range args {
			dev, ok := strings.CutPrefix(a.Text, "of=")
			switch {
			case ok && a.Unknown:
				return match{rule: "dd of=/dev/…", unknown: quote(a.Raw)}
			case ok && isDevice(dev):
				return match{rule: "dd of=/dev/…"}
			}
		}
	case prog == "find":
		if anyText(args, "-delete") {
			if hit, unknown := l.target(shell.FindStarts(args), isRootOrHome, 0, true); hit {
				return match{rule: "find -delete on / or ~", unknown: unknown}
			}
		}
	}
	return match{}
}

var rmLong = []string{"--force", "--interactive", "--one-file-system", "--no-preserve-root", "--preserve-root", "--recursive", "--dir", "--verbose", "--help", "--version"}

// ownOptions reports whether every option word written out is one the
// program has: short letters of short, long options (or abbreviations)
// of long.
func ownOptions(args []shell.Word, short string, long []string) bool {
	opts, _ := options(args)
	for _, o := range opts {
		t := o.Text
		if strings.HasPrefix(t, "--") {
			name, _, _ := strings.Cut(t, "=")
			if !slices.ContainsFunc(long, func(l string) bool { return len(name) >= 3 && strings.HasPrefix(l, name) }) {
				return false
			}
			continue
		}
		for _, ch := range t[1:] {
			if !strings.ContainsRune(short, ch) {
				return false
			}
		}
	}
	return true
}

// option reports whether args give one of the options, or may: an unknown
// word where the line spells such an option for it (F=-rf; rm $F ~).
func (l *facts) option(args []shell.Word, short string, long ...string) (bool, string) {
	if hasOption(args, short, long...) {
		return true, ""
	}
	i := slices.IndexFunc(args, func(a shell.Word) bool { return a.Unknown })
	if i < 0 {
		return false, ""
	}
	key := short + " " + strings.Join(long, " ")
	o, seen := l.spelled[key]
	if !seen {
		for _, v := range l.options {
			if hasOption([]shell.Word{{Text: v}}, short, long...) {
				o = v
				break
			}
		}
		l.spelled[key] = o
	}
	if o == "" {
		return false, ""
	}
	return true, quote(args[i].Raw) + " (the line sets it to " + o + ")"
}

// target reports whether an operand of args (past the first skip) is a
// denied target (denied says which), or may be one: unknown (but for a
// written-out last component; and only unquoted, when it may become a
// glob, unless quoted is set), a relative glob of everything after a cd
// elsewhere or past `..`; and names what was unknown.
func (l *facts) target(args []shell.Word, denied func(string) bool, skip int, quoted bool) (bool, string) {
	_, operands := options(args)
	operands = operands[min(skip, len(operands)):]
	for _, o := range operands {
		if o.Text == carried {
			if l.spellsTarget(denied) {
				return true, quote(o.Raw)
			}
			continue
		}
		if o.Unknown {
			if !namedTail(o) && (quoted || o.Split) {
				return true, quote(o.Raw)
			}
			continue
		}
		alts, ok := braces(o.Text)
		if !ok {
			return true, quote(o.Raw)
		}
		for _, t := range alts {
			if denied(t) {
				return true, ""
			}
			if ups, all := everything(t); all && (ups > 0 || l.elsewhere != "") {
				why := quote(o.Raw) + " after `" + l.elsewhere + "`"
				if ups > 0 {
					why = quote(o.Raw) + " (what lies above the working directory)"
				}
				return true, why
			}
		}
	}
	return false, ""
}

// namedTail reports whether an unknown word ends with a written-out name
// (`$OUT/build`): whatever comes before, it names no `/` or `~`.
func namedTail(w shell.Word) bool {
	i := strings.LastIndexByte(w.Tail, '/')
	if i < 0 {
		return false
	}
	last := w.Tail[i+1:]
	return last != "" && last != "." && last != ".." && !strings.ContainsAny(last, "*?[{~")
}

// everything reports whether a relative target is a whole directory or all
// of it (`.`, `*`, `./*`, `../..`, `../*`), and how many levels up.
func everything(t string) (ups int, all bool) {
	if strings.HasPrefix(t, "/") || strings.HasPrefix(t, "~") || strings.HasPrefix(t, "$") {
		return 0, false
	}
	var rest []string
	for _, c := range strings.Split(t, "/") {
		switch {
		case c == "" || c == ".":
		case c == ".." && len(rest) == 0:
			ups++
		default:
			rest = append(rest, c)
		}
	}
	if len(rest) == 0 {
		return ups, true
	}
	first := rest[0]
	return ups, strings.ContainsAny(first, "*?") && strings.Trim(first, "*?.") == ""
}

// Bounds of brace expansion: a word that expands to more is taken for
// an unknown one.
const (
	maxAlternatives = 256
	maxBraceBytes   = 64 << 10
)

// braces expands the brace alternatives of an unquoted word ({a,b}); a
// word without them is itself. ok is false past the bounds.
func braces(t string) (alts []string, ok bool) {
	out := []string{t}
	for round := 0; ; round++ {
		var next []string
		changed := false
		for _, s := range out {
			open := strings.IndexByte(s, '{')
			if open < 0 {
				next = append(next, s)
				continue
			}
			depth, end := 0, -1
			var commas []int
			for i := open; i < len(s) && end < 0; i++ {
				switch s[i] {
				case '{':
					depth++
				case '}':
					depth--
					if depth == 0 {
						end = i
					}
				case ',':
					if depth == 1 {
						commas = append(commas, i)
					}
				}
			}
			if end < 0 || len(commas) == 0 {
				next = append(next, s)
				continue
			}
			changed = true
			if len(next)+len(commas)+1 > maxAlternatives || (len(commas)+1)*len(s) > maxBraceBytes {
				return nil, false
			}
			from := open + 1
			for _, c := range append(commas, end) {
				next = append(next, s[:open]+s[from:c]+s[end+1:])
				from = c + 1
			}
		}
		out = next
		if !changed {
			return out, true
		}
		if round == 8 {
			return nil, false
		}
	}
}

// denies reports whether the user's prefix matches c, or may: see the top
// of this file; it names the unknown word the match needed.
func (p prefix) denies(c shell.Command, l *facts) (bool, string) {
	words := c.Words
	if len(words) == 0 {
		return false, ""
	}
	prog, u := program(c, l)
	name := p.words[0]
	switch {
	case u == nil && strings.Contains(name, "/"):
		if words[0].Text != name {
			return false, ""
		}
	case u == nil:
		if prog != name {
			return false, ""
		}
	case !l.shows(u, path.Base(name)):
		return false, ""
	}
	used := ""
	if u != nil {
		used = "the program " + quote(u.Raw)
		if u.Split { // it may bring some of the prefix's words along
			for k := 1; k <= len(p.words); k++ {
				if ok, why := p.rest(words[1:], k, path.Base(name), l); ok {
					return true, join(used, why)
				}
			}
			return false, ""
		}
	}
	ok, why := p.rest(words[1:], 1, path.Base(name), l)
	return ok, join(used, why)
}

// rest matches the prefix's words from i on with words, skipping options
// before a non-option prefix word; unknown words stand for one word
// (quoted) or any number (unquoted), of any value but an option the line
// does not spell. It remembers what it tried: the readings of options
// and unknown words branch.
func (p prefix) rest(words []shell.Word, i int, prog string, l *facts) (bool, string) {
	m := prefixMatch{p: p, words: words, prog: prog, l: l, seen: map[[2]int]bool{}}
	return m.from(0, i)
}

type prefixMatch struct {
	p     prefix
	words []shell.Word
	prog  string
	l     *facts
	seen  map[[2]int]bool // (word, prefix word) pairs that failed
}

// from matches words[j:] with the prefix's words from i on.
func (m *prefixMatch) from(j, i int) (bool, string) {
	if i == len(m.p.words) {
		return true, ""
	}
	if j == len(m.words) || m.seen[[2]int{j, i}] {
		return false, ""
	}
	ok, why := m.try(j, i)
	if !ok {
		m.seen[[2]int{j, i}] = true
	}
	return ok, why
}

func (m *prefixMatch) try(j, i int) (bool, string) {
	w, want := m.words[j], m.p.words[i]
	if w.Unknown {
		if !w.Split {
			if !m.l.may(want) {
				return false, ""
			}
			ok, why := m.from(j+1, i+1)
			return ok, join(quote(w.Raw), why)
		}
		for k := 0; i+k <= len(m.p.words) && (k == 0 || m.l.may(m.p.words[i+k-1])); k++ {
			if ok, why := m.from(j+1, i+k); ok {
				return true, join(quote(w.Raw), why)
			}
		}
		return false, ""
	}
	if w.Text == want {
		if ok, why := m.from(j+1, i+1); ok {
			return true, why
		}
	}
	if strings.HasPrefix(want, "-") || !strings.HasPrefix(w.Text, "-") || w.Text == "-" || w.Text == "--" {
		return false, ""
	}
	// An option before a word of the prefix: skip it, and its value.
	valued, known := shell.GlobalOption(m.prog, w.Text)
	attached := strings.Contains(w.Text, "=")
	if !valued || attached {
		if ok, why := m.from(j+1, i); ok {
			return true, why
		}
	}
	if (valued || !known) && !attached {
		return m.from(j+2, i)
	}
	return false, ""
}

func quote(raw string) string {
	if strings.HasPrefix(raw, "(") || strings.HasPrefix(raw, "the ") {
		return raw
	}
	return "`" + raw + "`"
}

// join lists what was unknown, each once: a bare mention (`$F`) goes when
// a longer one says more of it ("`$F` (the line sets it to -rf)", "the
// program `$X`").
func join(a, b string) string {
	var parts []string
	for _, p := range append(strings.Split(a, " and "), strings.Split(b, " and ")...) {
		if p != "" && !slices.Contains(parts, p) {
			parts = append(parts, p)
		}
	}
	var out []string
	for _, p := range parts {
		said := false
		for _, q := range parts {
			if q != p && (strings.HasPrefix(q, p+" (") || strings.HasSuffix(q, " "+p)) {
				said = true
			}
		}
		if !said {
			out = append(out, p)
		}
	}
	return strings.Join(out, " and ")
}
