package tools

import (
	"context"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/devagent/dev/ignore"
	"github.com/devagent/dev/textfmt"
)

const (
	// MaxListEntries caps the entries LIST_DIRECTORY shows.
	MaxListEntries = 500
	// walkLimit bounds how many entries a listing reads, so that listing a
	// home directory or / stays fast; past it the count of what was not
	// shown is a lower bound.
	walkLimit = 200_000
)

// node is one entry of a scanned tree.
type node struct {
	name     string
	dir      bool
	link     string // symlink target, when the entry is a symlink
	read     bool   // the directory was read
	err      error  // reading the directory failed (partly or wholly)
	children []*node
	below    int  // entries under a directory, counted after the scan
	full     bool // below counts everything: the whole subtree was read
}

// scan is a tree read breadth-first, so that when the limit stops it the
// upper levels are complete.
type scan struct {
	root     *node
	levels   []int // levels[i]: entries at depth i+1
	total    int
	complete bool // every directory within the depth limit was read
}

// scanTree reads the tree under start breadth-first, skipping .git,
// node_modules and ignored entries without entering them. Directories at
// maxDepth (0: no limit) are listed but not read; reading stops once limit
// entries were found or ctx is done.
func scanTree(ctx context.Context, fsys fs.FS, start string, ign *ignore.Rules, maxDepth, limit int) *scan {
	type item struct {
		n     *node
		path  string
		comps []string
		ign   *ignore.Rules
		depth int
	}
	s := &scan{root: &node{name: path.Base(start), dir: true}, complete: true}
	queue := []item{{s.root, start, ignore.Components(start), ign, 0}}
	for len(queue) > 0 {
		it := queue[0]
		queue = queue[1:]
		if maxDepth > 0 && it.depth >= maxDepth {
			continue
		}
		if s.total >= limit || ctx.Err() != nil {
			s.complete = false
			break
		}
		entries, err := fs.ReadDir(fsys, it.path)
		it.n.read, it.n.err = true, err
		if len(entries) == 0 {
			continue
		}
		ign := it.ign
		for _, e := range entries {
			if e.Name() == ".gitignore" && !e.IsDir() {
				ign = ign.ReadFile(fsys, path.Join(it.path, ".gitignore"), it.comps)
			}
		}
		for _, e := range entries {
			name := e.Name()
			if ignore.Skipped(name) {
				continue
			}
			dir := e.IsDir()
			comps := append(it.comps[:len(it.comps):len(it.comps)], name)
			if ign.Match(comps, dir) {
				continue
			}
			child := &node{name: name, dir: dir}
			p := path.Join(it.path, name)
			if e.Type()&fs.ModeSymlink != 0 {
				child.link, _ = fs.ReadLink(fsys, p)
			}
			it.n.children = append(it.n.children, child)
			for len(s.levels) <= it.depth {
				s.levels = append(s.levels, 0)
			}
			s.levels[it.depth]++
			s.total++
			if dir {
				queue = append(queue, item{child, p, comps, ign, it.depth + 1})
			}
		}
		sortNodes(it.n.children)
	}
	countBelow(s.root)
	return s
}

// sortNodes orders directories first, then files, each alphabetically
// without regard to case.
func sortNodes(ns []*node) {
	sort.Slice(ns, func(i, j int) bool {
		a, b := ns[i], ns[j]
		if a.dir != b.dir {
			return a.dir
		}
		la, lb := strings.ToLower(a.name), strings.ToLower(b.name)
		if la != lb {
			return la < lb
		}
		return a.name < b.name
	})
}

func countBelow(n *node) {
	n.below, n.full = 0, n.read && n.err == nil
	for _, c := range n.children {
		if c.dir {
			countBelow(c)
			n.full = n.full && c.full
		}
		n.below += 1 + c.below
	}
}

// render draws the tree under a root line label, like `tree`, with at most
// max entries. When the whole tree does not fit, it shows as many complete
// levels as fit (a collapsed directory shows how many entries it holds)
// rather than the first few hundred entries of one deep branch; a last
// line says how many entries were left out.
func (s *scan) render(label string, max int) string {
	depth, sum := 0, 0
	for depth < len(s.levels) && sum+s.levels[depth] <= max {
		sum += s.levels[depth]
		depth++
	}
	if depth == 0 {
		depth = 1
	}
	var b strings.Builder
	b.WriteString(label)
	if s.root.err != nil {
		b.WriteString(" (partly unreadable: " + fsErr(s.root.err) + ")")
	}
	b.WriteByte('\n')
	shown := 0
	var draw func(n *node, prefix string, level int) bool
	draw = func(n *node, prefix string, level int) bool {
		for i, c := range n.children {
			if shown == max {
				return false
			}
			branch, indent := "├── ", "│   "
			if i == len(n.children)-1 {
				branch, indent = "└── ", "    "
			}
			b.WriteString(prefix)
			b.WriteString(branch)
			b.WriteString(c.label())
			if c.dir && level == depth && c.below > 0 {
				count := textfmt.Plural(c.below, "entry")
				if !c.full {
					count = strconv.Itoa(c.below) + "+ entries"
				}
				b.WriteString(" (" + count + ")")
			}
			b.WriteByte('\n')
			shown++
			if c.dir && level < depth && !draw(c, prefix+indent, level+1) {
				return false
			}
		}
		return true
	}
	draw(s.root, "", 1)
	switch hidden := s.total - shown; {
	case !s.complete:
		more := ""
		if hidden > 0 {
			more = " " + strconv.Itoa(hidden) + "+"
		}
		fmt.Fprintf(&b, "…%s more (the listing stopped after %d entries: list a subdirectory or use a glob to see them)\n", more, s.total)
	case hidden > 0:
		fmt.Fprintf(&b, "… %d more (not shown: list a subdirectory or use a glob to see them)\n", hidden)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func (n *node) label() string {
	l := n.name
	if n.dir {
		l += "/"
	}
	if n.link != "" {
		l += " -> " + n.link
	}
	if n.err != nil {
		l += " (unreadable: " + fsErr(n.err) + ")"
	}
	return l
}

// Tree renders dir as LIST_DIRECTORY does, limited to depth levels and
// maxEntries lines, skipping .git, node_modules and ignored paths.
// depth <= 0 means no depth limit; maxEntries <= 0 means MaxListEntries.
func Tree(dir string, depth, maxEntries int) string {
	if depth < 0 {
		depth = 0
	}
	if maxEntries <= 0 {
		maxEntries = MaxListEntries
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "(cannot list " + dir + ": " + err.Error() + ")"
	}
	fsys, start, ign := ignore.Open(abs)
	s := scanTree(context.Background(), fsys, start, ign, depth, walkLimit)
	if s.root.err != nil && len(s.root.children) == 0 {
		return "(cannot list " + dir + ": " + fsErr(s.root.err) + ")"
	}
	return s.render(filepath.Base(abs)+"/", maxEntries)
}
