package parser

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
)

// Grammar is a context-free grammar over characters, kept as a Go structure
// so that one value both prints as GBNF (llama.cpp's notation, which vLLM's
// xgrammar also reads) and draws random strings of its language (the
// property test: every reply it allows must parse). Rules are printed in
// the order they were added, root first, so the same grammar always prints
// the same bytes.
type Grammar struct {
	rules []rule
	index map[string]int
}

type rule struct {
	name string
	body expr
}

// expr is a GBNF expression.
type expr interface {
	write(b *strings.Builder, top bool)
}

type (
	lit string // a literal string
	ref string // another rule
	seq []expr // one after the other
	alt []expr // one of
	// rep repeats e at least min and at most max times (max < 0: no
	// bound). Only ?, * and + are printed: llama.cpp expands {m,n} into
	// many rules and refuses grammars with many of them.
	rep struct {
		e        expr
		min, max int
	}
	// charClass is a set of characters: the ranges, or everything but them.
	charClass struct {
		not    bool
		ranges []charRange
	}
)

type charRange struct{ lo, hi rune }

// newGrammar starts a grammar whose root rule is body.
func newGrammar(body expr) *Grammar {
	g := &Grammar{index: map[string]int{}}
	g.add("root", body)
	return g
}

// add defines a rule; a name defined twice keeps its first body.
func (g *Grammar) add(name string, body expr) ref {
	if _, ok := g.index[name]; !ok {
		g.index[name] = len(g.rules)
		g.rules = append(g.rules, rule{name, body})
	}
	return ref(name)
}

// GBNF prints the grammar, one rule a line.
func (g *Grammar) GBNF() string {
	var b strings.Builder
	for _, r := range g.rules {
		b.WriteString(r.name)
		b.WriteString(" ::= ")
		r.body.write(&b, true)
		b.WriteByte('\n')
	}
	return b.String()
}

func (l lit) write(b *strings.Builder, _ bool) {
	b.WriteByte('"')
	for _, c := range string(l) {
		switch c {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\t':
			b.WriteString(`\t`)
		case '\r':
			b.WriteString(`\r`)
		default:
			b.WriteRune(c)
		}
	}
	b.WriteByte('"')
}

func (r ref) write(b *strings.Builder, _ bool) { b.WriteString(string(r)) }

func (s seq) write(b *strings.Builder, top bool) {
	if !top && len(s) > 1 {
		b.WriteByte('(')
	}
	for i, e := range s {
		if i > 0 {
			b.WriteByte(' ')
		}
		e.write(b, false)
	}
	if !top && len(s) > 1 {
		b.WriteByte(')')
	}
}

func (a alt) write(b *strings.Builder, top bool) {
	if !top {
		b.WriteByte('(')
	}
	for i, e := range a {
		if i > 0 {
			b.WriteString(" | ")
		}
		e.write(b, true)
	}
	if !top {
		b.WriteByte(')')
	}
}

func (r rep) write(b *strings.Builder, _ bool) {
	switch inner := r.e.(type) {
	case rep:
		b.WriteByte('(')
		inner.write(b, true)
		b.WriteByte(')')
	case seq:
		if len(inner) > 1 {
			b.WriteByte('(')
			inner.write(b, true)
			b.WriteByte(')')
		} else {
			inner.write(b, false)
		}
	default:
		inner.write(b, false)
	}
	switch {
	case r.min == 0 && r.max == 1:
		b.WriteByte('?')
	case r.min == 0 && r.max < 0:
		b.WriteByte('*')
	case r.min == 1 && r.max < 0:
		b.WriteByte('+')
	default:
		// Not used by the reply grammar; printed exactly all the same.
		b.WriteString("{" + strconv.Itoa(r.min) + ",")
		if r.max >= 0 {
			b.WriteString(strconv.Itoa(r.max))
		}
		b.WriteByte('}')
	}
}

func (c charClass) write(b *strings.Builder, _ bool) {
	b.WriteByte('[')
	if c.not {
		b.WriteByte('^')
	}
	// A '-' is literal last, and a '^' anywhere but first: neither needs
	// an escape (older llama.cpp builds and xgrammar know few escapes).
	var caret, dash bool
	for _, r := range c.ranges {
		switch {
		case r.lo == r.hi && r.lo == '-':
			dash = true
			continue
		case r.lo == r.hi && r.lo == '^':
			caret = true
			continue
		}
		writeClassChar(b, r.lo)
		if r.hi != r.lo {
			b.WriteByte('-')
			writeClassChar(b, r.hi)
		}
	}
	if caret {
		b.WriteByte('^')
	}
	if dash {
		b.WriteByte('-')
	}
	b.WriteByte(']')
}

func writeClassChar(b *strings.Builder, c rune) {
	switch c {
	case '\n':
		b.WriteString(`\n`)
	case '\t':
		b.WriteString(`\t`)
	case '\r':
		b.WriteString(`\r`)
	case '\\', ']', '[':
		b.WriteByte('\\')
		b.WriteRune(c)
	default:
		// Control characters and anything past ASCII as escapes, which
		// llama.cpp and xgrammar both read: invisible blanks stay legible.
		switch {
		case c < 0x20 || c == 0x7f:
			fmt.Fprintf(b, `\x%02X`, c)
		case c > 0xffff:
			fmt.Fprintf(b, `\U%08X`, c)
		case c > 0x7e:
			fmt.Fprintf(b, `\u%04X`, c)
		default:
			b.WriteRune(c)
		}
	}
}

// Helpers that build expressions.

func opt(e expr) rep  { return rep{e, 0, 1} }
func star(e expr) rep { return rep{e, 0, -1} }
func plus(e expr) rep { return rep{e, 1, -1} }

// chars is the class of the given characters; a "a-z" style range is
// written as such.
func chars(set string) charClass { return charClass{ranges: parseRanges(set)} }

// except is every character but the given ones.
func except(set string) charClass { return charClass{not: true, ranges: parseRanges(set)} }

func parseRanges(set string) []charRange {
	rs := []rune(set)
	var out []charRange
	for i := 0; i < len(rs); i++ {
		if i+2 < len(rs) && rs[i+1] == '-' {
			out = append(out, charRange{rs[i], rs[i+2]})
			i += 2
			continue
		}
		out = append(out, charRange{rs[i], rs[i]})
	}
	return out
}

func (c charClass) has(r rune) bool {
	in := false
	for _, cr := range c.ranges {
		if cr.lo <= r && r <= cr.hi {
			in = true
			break
		}
	}
	return in != c.not
}

// Generate draws one string of the grammar's language at random, for
// property tests. Repetitions are short and nesting shallow, so that a
// draw ends; pool are the characters a class may yield (a class yields
// its own characters and those of pool it allows). visit, when set, is
// called with each rule name as the walk enters it.
func (g *Grammar) Generate(r *rand.Rand, pool []rune, visit func(rule string)) string {
	gen := generator{g: g, r: r, pool: pool, visit: visit}
	var b strings.Builder
	gen.expr(&b, ref("root"), 0)
	return b.String()
}

type generator struct {
	g     *Grammar
	r     *rand.Rand
	pool  []rune
	visit func(string)
}

// maxDepth bounds recursion: deeper, repetitions take their minimum.
const maxDepth = 40

func (gen *generator) expr(b *strings.Builder, e expr, depth int) {
	switch e := e.(type) {
	case lit:
		b.WriteString(string(e))
	case ref:
		if gen.visit != nil {
			gen.visit(string(e))
		}
		gen.expr(b, gen.g.rules[gen.g.index[string(e)]].body, depth+1)
	case seq:
		for _, x := range e {
			gen.expr(b, x, depth)
		}
	case alt:
		gen.expr(b, e[gen.r.IntN(len(e))], depth)
	case rep:
		n := e.min
		if depth < maxDepth {
			limit := e.max
			if limit < 0 {
				limit = e.min + 6
			}
			// Mostly few: the walk must end, and short texts with many
			// special characters find more than long ones.
			for n < limit && gen.r.IntN(3) > 0 {
				n++
			}
		}
		for range n {
			gen.expr(b, e.e, depth+1)
		}
	case charClass:
		b.WriteRune(gen.char(e))
	}
}

// char picks a character of c: from the pool when the pool has some,
// else from c's own ranges (a class of excluded characters without pool
// characters cannot be drawn from: it falls back to 'x' if allowed).
func (gen *generator) char(c charClass) rune {
	var ok []rune
	for _, p := range gen.pool {
		if c.has(p) {
			ok = append(ok, p)
		}
	}
	if !c.not {
		for _, cr := range c.ranges {
			ok = append(ok, cr.lo, cr.hi)
		}
	}
	if len(ok) == 0 {
		return 'x'
	}
	return ok[gen.r.IntN(len(ok))]
}
