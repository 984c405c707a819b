// Package textdist measures how far apart two short strings are, for the
// "did you mean" suggestions of config keys and file names.
package textdist

import (
	"slices"
	"strings"
)

// Distance is the optimal string alignment distance: insertions,
// deletions, substitutions and transpositions of adjacent characters (the
// commonest typo) each cost 1.
func Distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	// Names are short; cutting long strings keeps the cost quadratic in a constant.
	const maxLen = 128
	ra, rb = ra[:min(len(ra), maxLen)], rb[:min(len(rb), maxLen)]
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}

// Closest returns up to n of candidates, the likeliest meant by typed
// first: those that contain it or that it starts ("/mod" for "/model"),
// then by distance; candidates further than a third of their length away are
// left out, so that nonsense suggests nothing.
func Closest(candidates []string, typed string, n int) []string {
	type ranked struct {
		s string
		d int
	}
	var keep []ranked
	for _, c := range candidates {
		d := Distance(c, typed)
		switch {
		case typed != "" && (strings.Contains(c, typed) || strings.HasPrefix(typed, c)):
			d -= 1 << 20
		case d > max(1, len([]rune(c))/3):
			continue
		}
		keep = append(keep, ranked{c, d})
	}
	slices.SortStableFunc(keep, func(a, b ranked) int { return a.d - b.d })
	out := make([]string, 0, min(n, len(keep)))
	for _, r := range keep[:min(n, len(keep))] {
		out = append(out, r.s)
	}
	return out
}
