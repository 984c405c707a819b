package tools

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/devagent/dev/parser"
	"github.com/devagent/dev/textfmt"
)

// FindAndReplace is the tool's name, as the protocol spells it.
const FindAndReplace = "FIND_AND_REPLACE_IN_FILE"

const (
	// MaxEditBytes is the largest file FIND_AND_REPLACE_IN_FILE edits.
	MaxEditBytes = 10 << 20
	// maxQuoted caps the lines quoted back when the find text is missing.
	maxQuoted = 30
	// maxListed caps the line numbers listed for several matches.
	maxListed = 20
)

// FindAndReplaceTool replaces one occurrence of a text in a file.
type FindAndReplaceTool struct{}

// Name implements Tool.
func (FindAndReplaceTool) Name() string { return FindAndReplace }

// Doc implements Tool.
func (FindAndReplaceTool) Doc() Doc {
	return describe(FindAndReplace, "find_and_replace_in_file", parser.InputFindReplace, ReachItsFiles, struct{ MaxMB int }{MaxEditBytes >> 20})
}

// edit is FIND_AND_REPLACE_IN_FILE's input as Check reads it.
type edit struct {
	path, find, replace string
}

func editArgs(input string) (edit, error) {
	example := func() string { return FindAndReplaceTool{}.Doc().Example }
	p, rest, ok := pathInput(input)
	if !ok {
		return edit{}, fmt.Errorf("FIND_AND_REPLACE_IN_FILE needs the file's path on the first line, then a ```find block and a ```replace block, e.g.:\n%s", example())
	}
	blocks := parser.CodeBlocks(rest)
	fi, ri := -1, -1
	for i, b := range blocks {
		word, _, _ := strings.Cut(strings.ToLower(b.Info), " ")
		switch {
		case word == "find" && fi < 0:
			fi = i
		case word == "replace" && ri < 0:
			ri = i
		}
	}
	// Unlabelled blocks stand in order: find first, then replace.
	for i := 0; fi < 0 && i < len(blocks); i++ {
		if i != ri {
			fi = i
		}
	}
	for i := fi + 1; ri < 0 && fi >= 0 && i < len(blocks); i++ {
		ri = i
	}
	for i := 0; ri < 0 && i < len(blocks); i++ {
		if i != fi {
			ri = i
		}
	}
	if fi < 0 || ri < 0 {
		return edit{}, fmt.Errorf("FIND_AND_REPLACE_IN_FILE for %s needs two fenced code blocks after the path, a ```find block (the exact current text) and a ```replace block (the new text); found %d. Expected:\n%s",
			p, len(blocks), example())
	}
	e := edit{
		path:    p,
		find:    strings.TrimSuffix(blocks[fi].Content, "\n"),
		replace: strings.TrimSuffix(blocks[ri].Content, "\n"),
	}
	if e.find == "" {
		return edit{}, fmt.Errorf("FIND_AND_REPLACE_IN_FILE for %s: the find block is empty. Put the exact text to replace in it (to create or rewrite a whole file, use WRITE_FILE)", p)
	}
	// Identical blocks are well formed: run refuses them (a reply shaped by
	// the server's grammar, which cannot compare two blocks, must never be
	// a format error).
	return e, nil
}

// Check implements Tool.
func (t FindAndReplaceTool) Check(input string) (Checked, error) {
	return Bind(input, editArgs, t.run)
}

func (FindAndReplaceTool) run(ctx context.Context, env *Env, e edit) Result {
	abs := resolve(env.Dir, e.path)
	disp := display(env.Dir, abs)
	r := Result{Tool: FindAndReplace, Summary: disp, Attrs: [][2]string{{"path", disp}}}
	if e.find == e.replace {
		return r.fail(fmt.Sprintf("the find and replace blocks for %s are identical, so nothing would change. Put the new text in the replace block.", disp))
	}
	if why := writeRefusal(env, abs); why != "" {
		return r.refuse(why)
	}
	if why := redactedRefusal(disp, e.replace); why != "" {
		return r.refuse(why)
	}
	info, err := os.Stat(abs)
	switch {
	case err != nil:
		return r.fail(missingMessage(ctx, env, abs, err, true))
	case info.IsDir():
		return r.fail(fmt.Sprintf("%s is a directory, not a file.", disp))
	case info.Size() > MaxEditBytes:
		return r.fail(fmt.Sprintf("%s is %s, more than the %d MB this tool edits; use COMMAND (e.g. sed) instead.", disp, textfmt.Size(info.Size()), MaxEditBytes>>20))
	}
	data, err := os.ReadFile(abs)
	if err != nil {
		return r.fail(fmt.Sprintf("cannot read %s: %s.", disp, fsErr(err)))
	}
	if isBinary(data[:min(len(data), sniffLen)]) {
		return r.fail(fmt.Sprintf("%s is a binary file; this tool edits text only.", disp))
	}
	out, msg, ok := applyEdit(string(data), e.find, e.replace, disp)
	if !ok {
		return r.fail(msg)
	}
	if v := env.approve(ctx, Action{Tool: FindAndReplace, Path: disp, Abs: abs, Existed: true, Old: string(data), New: out}); !v.Allowed {
		return r.refuse(v.Why)
	}
	if _, err := writeAtomic(abs, []byte(out)); err != nil {
		return r.fail(fmt.Sprintf("cannot write %s: %s.", disp, fsErr(err)))
	}
	r.OK, r.Output, r.Files = true, msg, []string{disp}
	return r
}

// applyEdit replaces the one occurrence of find in content. On success msg
// reports the lines changed; otherwise it says why and how to fix it.
func applyEdit(content, find, replace, disp string) (out, msg string, ok bool) {
	eol := "\n"
	if strings.Count(content, "\r\n")*2 > strings.Count(content, "\n") {
		eol = "\r\n"
	}
	f, rp := find, replace
	if eol == "\r\n" && !strings.Contains(find, "\r") {
		f = strings.ReplaceAll(find, "\n", eol)
		rp = strings.ReplaceAll(replace, "\n", eol)
	}
	var at []int
	for i := 0; ; {
		j := strings.Index(content[i:], f)
		if j < 0 {
			break
		}
		at = append(at, i+j)
		i += j + len(f)
	}
	switch len(at) {
	case 1:
		start := 1 + strings.Count(content[:at[0]], "\n")
		out = content[:at[0]] + rp + content[at[0]+len(f):]
		return out, editReport(disp, start, strings.Count(f, "\n")+1, rp, countLines(out), ""), true
	case 0:
	default:
		lines := make([]int, len(at))
		for i, a := range at {
			lines[i] = 1 + strings.Count(content[:a], "\n")
		}
		return "", severalMessage(disp, lines, ""), false
	}

	lines := splitLines(content)
	findLines := strings.Split(find, "\n")
	var matches []looseMatch
	for i := 0; i+len(findLines) <= len(lines); i++ {
		if m, ok := matchLoose(lines[i:i+len(findLines)], findLines); ok {
			m.line = i
			matches = append(matches, m)
		}
	}
	switch len(matches) {
	case 0:
		return "", missingFindMessage(disp, lines, findLines), false
	case 1:
	default:
		nums := make([]int, len(matches))
		for i, m := range matches {
			nums[i] = m.line + 1
		}
		return "", severalMessage(disp, nums, " (ignoring whitespace differences)"), false
	}
	m := matches[0]
	repl := strings.Split(replace, "\n")
	for i, l := range repl {
		switch {
		case strings.TrimSpace(l) == "":
			repl[i] = ""
		case m.deeper:
			repl[i] = m.indent + l
		case strings.HasPrefix(l, m.indent):
			repl[i] = l[len(m.indent):]
		default:
			repl[i] = strings.TrimLeft(l, " \t")
		}
	}
	startOff := lineOffset(content, m.line)
	last := m.line + len(findLines) - 1
	endOff := lineOffset(content, last) + len(strings.TrimSuffix(lines[last], "\r"))
	rp = strings.Join(repl, eol)
	out = content[:startOff] + rp + content[endOff:]
	note := "matched ignoring trailing whitespace"
	if m.indent != "" {
		sign := "-"
		if m.deeper {
			sign = "+"
		}
		note = fmt.Sprintf("matched ignoring whitespace; the replacement's indentation was adjusted by %s%s to fit", sign, describeIndent(m.indent))
	}
	return out, editReport(disp, m.line+1, len(findLines), rp, countLines(out), note), true
}

func editReport(disp string, start, oldLines int, replacement string, total int, note string) string {
	newLines := strings.Count(replacement, "\n") + 1
	var b strings.Builder
	fmt.Fprintf(&b, "Edited %s: replaced %s %s", disp, linesWord(oldLines), span(start, oldLines))
	if replacement == "" {
		b.WriteString(" with nothing")
	} else {
		fmt.Fprintf(&b, " with %s, now %s", textfmt.Plural(newLines, "line"), span(start, newLines))
	}
	fmt.Fprintf(&b, "; the file has %s.", textfmt.Plural(total, "line"))
	if note != "" {
		b.WriteString(" Note: " + note + ".")
	}
	return b.String()
}

func linesWord(n int) string {
	if n == 1 {
		return "line"
	}
	return "lines"
}

func span(start, n int) string {
	if n == 1 {
		return strconv.Itoa(start)
	}
	return fmt.Sprintf("%d-%d", start, start+n-1)
}

func severalMessage(disp string, lines []int, how string) string {
	shown := lines[:min(len(lines), maxListed)]
	nums := make([]string, len(shown))
	for i, n := range shown {
		nums[i] = strconv.Itoa(n)
	}
	list := strings.Join(nums, ", ")
	if len(lines) > len(shown) {
		list += ", …"
	}
	return fmt.Sprintf("the find text occurs %d times in %s%s, starting at lines %s; it must occur exactly once. Add neighbouring lines to the find block so that it matches one place only.",
		len(lines), disp, how, list)
}

// looseMatch is a match that ignores trailing whitespace and a uniform
// difference of indentation: the file's lines are indent deeper than the
// find text's (deeper), or that much shallower.
type looseMatch struct {
	line   int // 0-based first line
	indent string
	deeper bool
}

func matchLoose(file, find []string) (looseMatch, bool) {
	var m looseMatch
	set := false
	for j, q := range find {
		fl := strings.TrimRight(file[j], " \t\r")
		ql := strings.TrimRight(q, " \t\r")
		if fl == "" || ql == "" {
			if fl != ql {
				return m, false
			}
			continue
		}
		if !set {
			set = true
			switch {
			case strings.HasSuffix(fl, ql) && isIndent(fl[:len(fl)-len(ql)]):
				m.indent, m.deeper = fl[:len(fl)-len(ql)], true
				continue
			case strings.HasSuffix(ql, fl) && isIndent(ql[:len(ql)-len(fl)]):
				m.indent = ql[:len(ql)-len(fl)]
				continue
			default:
				return m, false
			}
		}
		if m.deeper && fl != m.indent+ql || !m.deeper && ql != m.indent+fl {
			return m, false
		}
	}
	return m, set
}

func isIndent(s string) bool { return strings.Trim(s, " \t") == "" }

func describeIndent(s string) string {
	spaces, tabs := strings.Count(s, " "), strings.Count(s, "\t")
	switch {
	case tabs == 0:
		return textfmt.Plural(spaces, "space")
	case spaces == 0:
		return textfmt.Plural(tabs, "tab")
	}
	return textfmt.Plural(tabs, "tab") + " and " + textfmt.Plural(spaces, "space")
}

// splitLines splits content into lines without their "\n" (a "\r" stays).
func splitLines(content string) []string {
	lines := strings.Split(content, "\n")
	if len(lines) > 1 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// lineOffset is the byte offset where 0-based line n starts.
func lineOffset(content string, n int) int {
	off := 0
	for ; n > 0; n-- {
		off += strings.IndexByte(content[off:], '\n') + 1
	}
	return off
}

// missingFindMessage quotes the lines of the file most like the find text,
// with their numbers, so the model can copy the real text.
func missingFindMessage(disp string, lines, find []string) string {
	start, ok := closestWindow(lines, find)
	var b strings.Builder
	fmt.Fprintf(&b, "the find text does not occur in %s, not even ignoring trailing whitespace and indentation.", disp)
	if !ok {
		fmt.Fprintf(&b, " No lines of the file resemble it. Read the file (READ_FILE \"%s\") and copy the text to change exactly into the find block.", disp)
		return b.String()
	}
	n := min(len(find), len(lines)-start, maxQuoted)
	end := start + n
	width := len(strconv.Itoa(end))
	fmt.Fprintf(&b, " The most similar lines of the file are %s:\n", span(start+1, n))
	for i := start; i < end; i++ {
		fmt.Fprintf(&b, "%*d| %s\n", width, i+1, strings.ToValidUTF8(strings.TrimSuffix(lines[i], "\r"), "\uFFFD"))
	}
	fmt.Fprintf(&b, "Copy the text exactly as the file has it into the find block (without the line numbers), or read it again with READ_FILE \"%s\" %d-%d.",
		disp, start+1, end)
	return b.String()
}

// closestWindow finds where a window of len(find) lines agrees most with
// find: the most lines equal after collapsing whitespace, or failing that,
// the line most like find's first non-blank line by shared character pairs.
func closestWindow(lines, find []string) (int, bool) {
	if len(lines) == 0 {
		return 0, false
	}
	norm := func(s string) string { return strings.Join(strings.Fields(s), " ") }
	nf := make([]string, len(find))
	for i, f := range find {
		nf[i] = norm(f)
	}
	nl := make([]string, len(lines))
	for i, l := range lines {
		nl[i] = norm(l)
	}
	best, bestScore := 0, 0
	for i := 0; i+len(find) <= len(lines) || i == 0; i++ {
		score := 0
		for j := 0; j < len(find) && i+j < len(lines); j++ {
			if nf[j] != "" && nl[i+j] == nf[j] {
				score++
			}
		}
		if score > bestScore {
			best, bestScore = i, score
		}
	}
	if bestScore > 0 {
		return best, true
	}
	j := 0
	for j < len(nf) && nf[j] == "" {
		j++
	}
	if j == len(nf) {
		return 0, false
	}
	want := bigrams(nf[j])
	bestSim := 0.0
	for i, l := range nl {
		if s := dice(want, l); s > bestSim {
			best, bestSim = i, s
		}
	}
	if bestSim < 0.5 {
		return 0, false
	}
	return max(0, min(best-j, len(lines)-len(find))), true
}

func bigrams(s string) map[[2]rune]int {
	m := map[[2]rune]int{}
	r := []rune(s)
	for i := 0; i+1 < len(r); i++ {
		m[[2]rune{r[i], r[i+1]}]++
	}
	return m
}

// dice is the Sørensen–Dice coefficient of want's and s's character pairs.
func dice(want map[[2]rune]int, s string) float64 {
	r := []rune(s)
	if len(r) < 2 {
		return 0
	}
	total := 0
	for _, n := range want {
		total += n
	}
	used := make(map[[2]rune]int, len(want))
	shared := 0
	for i := 0; i+1 < len(r); i++ {
		g := [2]rune{r[i], r[i+1]}
		if used[g] < want[g] {
			used[g]++
			shared++
		}
	}
	return 2 * float64(shared) / float64(total+len(r)-1)
}
