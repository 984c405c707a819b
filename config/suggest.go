package config

import (
	"fmt"
	"strings"
)

func unknownKey(path, key string) string {
	if s := closestKey(key); s != "" {
		return fmt.Sprintf("%s: unknown key %q (did you mean %q?)", path, key, s)
	}
	return fmt.Sprintf("%s: unknown key %q (ignored)", path, key)
}

// closestKey returns the known key the user most likely meant, or "" when
// none is close enough to be a typo.
func closestKey(key string) string {
	lk := strings.ToLower(key)
	best, bestDist := "", 0
	for _, k := range keys() {
		d := editDistance(lk, strings.ToLower(k))
		// A third of the length tolerates one slip in short keys and a
		// few in long ones, without suggesting unrelated keys.
		limit := max(1, min(3, len(k)/3))
		if d <= limit && (best == "" || d < bestDist) {
			best, bestDist = k, d
		}
	}
	return best
}

// editDistance is the optimal string alignment distance: insertions,
// deletions, substitutions and transpositions of adjacent characters (the
// commonest typo) each cost 1.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
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
