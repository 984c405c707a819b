package tools

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/devagent/dev/ignore"
	"github.com/devagent/dev/textdist"
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
		if ignore.Skipped(e.Name()) {
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
		fsys, start, ign := ignore.Open(root)
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
	d := textdist.Distance(a, b)
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
