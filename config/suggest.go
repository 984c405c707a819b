package config

import (
	"fmt"
	"strings"

	"github.com/devagent/dev/textdist"
)

func unknownKey(path, key string) string {
	if s := closestKey(key, keys()); s != "" {
		return fmt.Sprintf("%s: unknown key %q (did you mean %q?)", path, key, s)
	}
	return fmt.Sprintf("%s: unknown key %q (ignored)", path, key)
}

// closestKey returns the known key the user most likely meant, or "" when
// none is close enough to be a typo.
func closestKey(key string, known []string) string {
	lk := strings.ToLower(key)
	best, bestDist := "", 0
	for _, k := range known {
		d := textdist.Distance(lk, strings.ToLower(k))
		// A third of the length tolerates one slip in short keys and a
		// few in long ones, without suggesting unrelated keys.
		limit := max(1, min(3, len(k)/3))
		if d <= limit && (best == "" || d < bestDist) {
			best, bestDist = k, d
		}
	}
	return best
}
