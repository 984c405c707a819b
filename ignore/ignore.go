// Package ignore decides which paths of a directory tree dev leaves alone:
// .git and node_modules always, and what the .gitignore files and
// .git/info/exclude of the enclosing git work tree exclude. Listings, file
// suggestions and checkpoints all skip the same paths through it.
package ignore

import (
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// Rules is one ignore file's patterns, chained to those of the files
// above it; later patterns and deeper files take precedence. A nil *Rules
// ignores nothing.
//
// go-git's Matcher tries every pattern against every component of a path,
// which for a large .gitignore costs seconds on a big tree. Here each
// pattern is filed under what any path it matches must contain (a name, an
// extension, a first component), so an entry is tried only against the
// patterns that can match it, in the same order: the answer is go-git's.
type Rules struct {
	parent   *Rules
	depth    int // the components of the directory the file applies to
	patterns []gitignore.Pattern
	generic  []int            // tried for every path
	names    map[string][]int // a name any component may have
	exts     map[string][]int // "*.ext": an extension any component may have
	firsts   map[string][]int // the first component below the directory
}

// WithFile chains the patterns of an ignore file that applies below the
// directory domain (its path components from the root of the scan); it
// returns s itself when the file has none.
func (s *Rules) WithFile(data []byte, domain []string) *Rules {
	l := &Rules{parent: s, depth: len(domain)}
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSuffix(line, "\r")
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		i := len(l.patterns)
		l.patterns = append(l.patterns, gitignore.ParsePattern(line, domain))
		switch kind, key := classify(line); kind {
		case byName:
			l.names = addIndex(l.names, key, i)
		case byExt:
			l.exts = addIndex(l.exts, key, i)
		case byFirst:
			l.firsts = addIndex(l.firsts, key, i)
		default:
			l.generic = append(l.generic, i)
		}
	}
	if len(l.patterns) == 0 {
		return s
	}
	return l
}

func addIndex(m map[string][]int, key string, i int) map[string][]int {
	if m == nil {
		m = map[string][]int{}
	}
	m[key] = append(m[key], i)
	return m
}

const (
	generic = iota
	byName
	byExt
	byFirst
)

// classify tells what a path must hold for go-git's pattern of line to
// match it, mirroring gitignore.ParsePattern: a pattern without a slash
// matches any component of the path (a literal name, or "*.ext"); with a
// slash it is matched from the first component below its directory, which
// a literal first segment must equal.
func classify(line string) (kind int, key string) {
	p := strings.TrimPrefix(line, "!")
	if !strings.HasSuffix(p, `\ `) {
		p = strings.TrimRight(p, " ")
	}
	p = strings.TrimSuffix(p, "/")
	meta := func(s string) bool { return strings.ContainsAny(s, `*?[\`) }
	if !strings.Contains(p, "/") {
		switch {
		case !meta(p):
			return byName, p
		case strings.HasPrefix(p, "*.") && !meta(p[1:]) && strings.Count(p, ".") == 1:
			return byExt, p[1:]
		}
		return generic, ""
	}
	segs := strings.Split(p, "/")
	if segs[0] == "" {
		segs = segs[1:]
	}
	switch {
	case len(segs) == 2 && segs[0] == "**" && segs[1] != "" && !meta(segs[1]):
		return byName, segs[1] // "**/name" matches name at any depth
	case len(segs) > 0 && segs[0] != "" && !meta(segs[0]):
		return byFirst, segs[0]
	}
	return generic, ""
}

// Match reports whether the path comps (from the root of the scan) is
// ignored.
func (s *Rules) Match(comps []string, isDir bool) bool {
	var cand []int
	for l := s; l != nil; l = l.parent {
		if len(comps) <= l.depth {
			continue
		}
		cand = append(cand[:0], l.generic...)
		below := comps[l.depth:]
		for _, c := range below {
			cand = append(cand, l.names[c]...)
			if ext := filepath.Ext(c); ext != "" {
				cand = append(cand, l.exts[ext]...)
			}
		}
		cand = append(cand, l.firsts[below[0]]...)
		if len(cand) == 0 {
			continue
		}
		slices.Sort(cand)
		for i := len(cand) - 1; i >= 0; i-- {
			if i+1 < len(cand) && cand[i] == cand[i+1] {
				continue
			}
			if r := l.patterns[cand[i]].Match(comps, isDir); r != gitignore.NoMatch {
				return r == gitignore.Exclude
			}
		}
	}
	return false
}

// ReadFile chains the ignore file name of fsys, if there is one.
func (s *Rules) ReadFile(fsys fs.FS, name string, domain []string) *Rules {
	data, err := fs.ReadFile(fsys, name)
	if err != nil {
		return s
	}
	return s.WithFile(data, domain)
}
