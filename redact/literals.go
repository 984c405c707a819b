package redact

import "strings"

// literals finds the secret values and their encoded forms in a text:
// leftmost first, the longest where several start at the same byte, never
// overlapping (what strings.Replacer does, at several times its speed).
// Every form is MinValueLen bytes or more, so each position is screened
// by its first four bytes: a bit in a small table, set for the first four
// bytes of every form, rules out nearly every position with one load and
// one multiplication; the rare position that passes is compared with the
// forms that start with those four bytes.
type literals struct {
	bits    [1 << (literalBits - 6)]uint64
	byStart map[uint32][]int // first four bytes → indexes in texts, longest first
	texts   []string         // longest first
	marks   []string         // the placeholder of each text
}

const literalBits = 16

func newLiterals(texts, marks []string) *literals {
	l := &literals{byStart: map[uint32][]int{}, texts: texts, marks: marks}
	for i, t := range texts {
		k := start4(t, 0)
		h := hash4(k)
		l.bits[h>>6] |= 1 << (h & 63)
		l.byStart[k] = append(l.byStart[k], i)
	}
	return l
}

func start4(s string, i int) uint32 {
	return uint32(s[i]) | uint32(s[i+1])<<8 | uint32(s[i+2])<<16 | uint32(s[i+3])<<24
}

func hash4(k uint32) uint32 { return (k * 0x9E3779B1) >> (32 - literalBits) }

// replace returns s with every form replaced by its placeholder.
func (l *literals) replace(s string) string {
	var b strings.Builder
	done := 0
	for i := 0; i+MinValueLen <= len(s); {
		k := start4(s, i)
		if h := hash4(k); l.bits[h>>6]&(1<<(h&63)) == 0 {
			i++
			continue
		}
		n := 0
		for _, j := range l.byStart[k] {
			if strings.HasPrefix(s[i:], l.texts[j]) {
				if done == 0 {
					b.Grow(len(s))
				}
				b.WriteString(s[done:i])
				b.WriteString(l.marks[j])
				n = len(l.texts[j])
				break
			}
		}
		if n == 0 {
			i++
			continue
		}
		i += n
		done = i
	}
	if done == 0 {
		return s
	}
	b.WriteString(s[done:])
	return b.String()
}
