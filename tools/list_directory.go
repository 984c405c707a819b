package tools

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/devagent/dev/ignore"
	"github.com/devagent/dev/parser"
	"github.com/devagent/dev/textfmt"
)

// ListDirectory is the tool's name, as the protocol spells it.
const ListDirectory = "LIST_DIRECTORY"

// ListDirectoryTool shows a directory as a tree, or the paths matching a
// doublestar glob.
type ListDirectoryTool struct{}

// Name implements Tool.
func (ListDirectoryTool) Name() string { return ListDirectory }

// Doc implements Tool.
func (ListDirectoryTool) Doc() Doc {
	return describe(ListDirectory, "list_directory", parser.InputPathOrGlob, ReachNothing, struct{ MaxEntries int }{MaxListEntries})
}

// listArg is the path or glob of the input; empty input lists ".".
func listArg(input string) string {
	line, _ := splitFirstLine(input)
	if p := unquote(line); p != "" {
		return p
	}
	return "."
}

// isGlob reports whether p holds doublestar meta characters.
func isGlob(p string) bool { return strings.ContainsAny(p, "*?[{") }

// readList reads the input: the path or glob to list, a glob checked.
func readList(input string) (string, error) {
	p := listArg(input)
	if isGlob(p) && !doublestar.ValidatePattern(filepath.ToSlash(p)) {
		return "", fmt.Errorf("LIST_DIRECTORY: %q is not a valid glob (check the brackets and braces). Expected a path or a glob, e.g.:\n%s",
			p, ListDirectoryTool{}.Doc().Example)
	}
	return p, nil
}

// Check implements Tool.
func (t ListDirectoryTool) Check(input string) (Checked, error) {
	return Bind(input, readList, t.run)
}

func (ListDirectoryTool) run(ctx context.Context, env *Env, arg string) Result {
	r := Result{Tool: ListDirectory, Summary: arg}
	abs := resolve(env.Dir, arg)
	info, err := os.Stat(abs)
	switch {
	case err == nil && !info.IsDir():
		disp := display(env.Dir, abs)
		r.Attrs = [][2]string{{"path", disp}}
		r.OK = true
		r.Output = fmt.Sprintf("%s is a file (%s), not a directory; use READ_FILE to read it.", disp, textfmt.Size(info.Size()))
		return r
	case err == nil:
		return listTree(ctx, env, abs, r)
	case errors.Is(err, fs.ErrNotExist) && isGlob(arg):
		return listGlob(ctx, env, arg, r)
	default:
		return r.fail(missingMessage(ctx, env, abs, err, false))
	}
}

func listTree(ctx context.Context, env *Env, abs string, r Result) Result {
	disp := display(env.Dir, abs)
	r.Attrs = [][2]string{{"path", disp}}
	fsys, start, ign := ignore.Open(abs)
	s := scanTree(ctx, fsys, start, ign, 0, walkLimit)
	if s.root.err != nil && len(s.root.children) == 0 {
		return r.fail(fmt.Sprintf("cannot read directory %s: %s.", disp, fsErr(s.root.err)))
	}
	if s.total == 0 {
		r.OK = true
		r.Output = disp + "/ is empty (or holds only ignored files)."
		return r
	}
	r.OK = true
	r.Output = s.render(strings.TrimSuffix(disp, "/")+"/", MaxListEntries)
	return r
}

func listGlob(ctx context.Context, env *Env, arg string, r Result) Result {
	base, pattern := doublestar.SplitPattern(filepath.ToSlash(arg))
	absBase := resolve(env.Dir, filepath.FromSlash(base))
	if info, err := os.Stat(absBase); err != nil || !info.IsDir() {
		if err == nil {
			err = fmt.Errorf("not a directory")
		}
		return r.fail(missingMessage(ctx, env, absBase, err, false))
	}
	disp := display(env.Dir, absBase)
	r.Attrs = [][2]string{{"path", disp}}
	fsys, start, ign := ignore.Open(absBase)
	s := scanTree(ctx, fsys, start, ign, 0, walkLimit)
	m := &scan{root: &node{name: s.root.name, dir: true}, complete: s.complete}
	matches := filterGlob(s.root, m.root, pattern, "", 0, m)
	countBelow(m.root)
	r.OK = true
	if matches == 0 {
		r.Output = fmt.Sprintf("No paths match %q (searched %s under %s/, skipping .git, node_modules and ignored paths).",
			arg, textfmt.Plural(s.total, "entry"), disp)
		return r
	}
	r.Output = fmt.Sprintf("%s match %q:\n%s", textfmt.Plural(matches, "path"), arg,
		m.render(strings.TrimSuffix(disp, "/")+"/", MaxListEntries))
	return r
}

// filterGlob copies into dst the entries of src whose path relative to the
// glob's base matches pattern, with the directories leading to them, and
// returns how many matched.
func filterGlob(src, dst *node, pattern, rel string, depth int, m *scan) int {
	matches := 0
	for _, c := range src.children {
		p := rel + c.name
		copied := &node{name: c.name, dir: c.dir, link: c.link, read: c.read, err: c.err}
		hit := doublestar.MatchUnvalidated(pattern, p)
		sub := 0
		if c.dir {
			sub = filterGlob(c, copied, pattern, p+"/", depth+1, m)
		}
		if !hit && sub == 0 {
			continue
		}
		if hit {
			matches++
		}
		matches += sub
		dst.children = append(dst.children, copied)
		for len(m.levels) <= depth {
			m.levels = append(m.levels, 0)
		}
		m.levels[depth]++
		m.total++
	}
	return matches
}

// missingMessage explains why abs cannot be used and offers similar names.
func missingMessage(ctx context.Context, env *Env, abs string, err error, file bool) string {
	disp := display(env.Dir, abs)
	var b strings.Builder
	if errors.Is(err, fs.ErrNotExist) {
		fmt.Fprintf(&b, "%s does not exist (paths are relative to %s).", disp, env.Dir)
	} else {
		fmt.Fprintf(&b, "cannot open %s: %s.", disp, fsErr(err))
		return b.String()
	}
	if s := similar(ctx, env.Dir, abs, file); len(s) > 0 {
		b.WriteString(" Did you mean: " + strings.Join(s, ", ") + "?")
	} else {
		b.WriteString(" Use LIST_DIRECTORY to see what exists.")
	}
	return b.String()
}

// fail marks r failed with a message for the model.
func (r Result) fail(msg string) Result {
	r.OK = false
	r.Output = "Error: " + msg
	return r
}
