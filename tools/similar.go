package tools

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

const (
	// maxSuggestions caps the similar names offered for a missing path.
	maxSuggestions = 5
	// suggestWalkLimit bounds the search for a file of the same name.
	suggestWalkLimit = 50_000
)

// similar lists up to maxSuggestions existing paths that the model may
// have meant by the missing abs: names close to the missing one in the
// nearest existing directory, then (for files) entries of the same name
// elsewhere under dir. Paths are shown as display does, directories with a
// trailing slash.
func similar(ctx context.Context, dir, abs string, file bool) []string {
	parent, missing := abs, ""
	for {
		if info, err := os.Stat(parent); err == nil && info.IsDir() {
			break
		}
		next := filepath.Dir(parent)
		if next == parent {
			return nil
		}
		missing, parent = filepath.Base(parent), next
	}
	var out []string
	seen := map[string]bool{}
	add := func(p string) {
		if !seen[p] && len(out) < maxSuggestions {
			seen[p] = true
			out = append(out, p)
		}
	}
	type cand struct {
		path string
		dist int
	}
	var close []cand
	entries, _ := os.ReadDir(parent)
	for _, e := range entries {
		if skipped(e.Name()) {
			continue
		}
		if d, ok := closeName(missing, e.Name()); ok {
			p := display(dir, filepath.Join(parent, e.Name()))
			if e.IsDir() {
				p += "/"
			}
			close = append(close, cand{p, d})
		}
	}
	sort.SliceStable(close, func(i, j int) bool { return close[i].dist < close[j].dist })
	for _, c := range close {
		add(c.path)
	}
	if file && len(out) < maxSuggestions {
		base := filepath.Base(abs)
		root, err := filepath.Abs(dir)
		if err != nil {
			return out
		}
		fsys, start, ign := openTree(root)
		s := scanTree(ctx, fsys, start, ign, 0, suggestWalkLimit)
		var visit func(n *node, rel string)
		visit = func(n *node, rel string) {
			for _, c := range n.children {
				p := rel + c.name
				if !c.dir && strings.EqualFold(c.name, base) {
					add(p)
				}
				if c.dir {
					visit(c, p+"/")
				}
			}
		}
		visit(s.root, "")
	}
	return out
}

// closeName reports whether name resembles want closely enough to suggest
// it, and how far apart they are.
func closeName(want, name string) (int, bool) {
	a, b := strings.ToLower(want), strings.ToLower(name)
	d := editDistance(a, b)
	limit := max(1, len([]rune(a))/3)
	stemA := strings.TrimSuffix(a, filepath.Ext(a))
	stemB := strings.TrimSuffix(b, filepath.Ext(b))
	switch {
	case d <= limit:
		return d, true
	case stemA != "" && stemA == stemB:
		return d, true
	case len(a) >= 4 && strings.Contains(b, a):
		return d, true
	}
	return d, false
}

// editDistance counts the insertions, deletions, substitutions and swaps of
// neighbours (the commonest typo) between a and b, in runes; names are
// short, and longer strings are cut to keep it cheap.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
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
