package ignore

import (
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// Skipped reports whether an entry named name is never entered nor
// listed, ignored or not: git's own directory and npm's dependencies.
func Skipped(name string) bool { return name == ".git" || name == "node_modules" }

// Root finds where .gitignore rules start for dir: the enclosing git work
// tree, or dir itself outside a repository.
func Root(dir string) (root string, repo bool) {
	for d := dir; ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d, true
		}
		parent := filepath.Dir(d)
		if parent == d {
			return dir, false
		}
		d = parent
	}
}

// Open prepares a scan of the directory abs: a file system rooted at the
// git work tree holding it, the start path inside it, and the ignore rules
// inherited from above (.git/info/exclude and the .gitignore files of the
// ancestors). A directory named explicitly is scanned even when it is
// ignored; then only the rules found inside it apply. A scan reads the
// .gitignore of each directory it enters and chains it with ReadFile.
func Open(abs string) (fsys fs.FS, start string, rules *Rules) {
	root, repo := Root(abs)
	fsys = os.DirFS(root)
	start = "."
	if rel, err := filepath.Rel(root, abs); err == nil {
		start = filepath.ToSlash(rel)
	}
	if repo {
		rules = rules.ReadFile(fsys, ".git/info/exclude", nil)
	}
	comps := Components(start)
	for i := 0; i < len(comps); i++ {
		dir := strings.Join(comps[:i], "/")
		if dir == "" {
			dir = "."
		}
		rules = rules.ReadFile(fsys, path.Join(dir, ".gitignore"), comps[:i])
	}
	if len(comps) > 0 && rules.Match(comps, true) {
		rules = nil
	}
	return fsys, start, rules
}

// Components splits a slash path into its names; "." has none.
func Components(p string) []string {
	if p == "." || p == "" {
		return nil
	}
	return strings.Split(p, "/")
}
