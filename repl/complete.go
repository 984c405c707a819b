package repl

import (
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// maxCompletions bounds the paths offered for one @ (a huge directory).
const maxCompletions = 200

// complete is what Tab offers for the word before the cursor: slash
// commands (the built-ins and those added, e.g. from files) as the line's
// first word, and paths under the working directory after @.
func (r *REPL) complete(line string, cursor int) []string {
	before := line[:min(cursor, len(line))]
	word := before[strings.LastIndexAny(before, " \t\n")+1:]
	switch {
	case strings.HasPrefix(word, "/") && word == strings.TrimLeft(before, " "):
		var out []string
		for _, n := range r.names() {
			if strings.HasPrefix(n, word) {
				out = append(out, n)
			}
		}
		slices.Sort(out)
		return out
	case strings.HasPrefix(word, "@") && r.app != nil:
		return completePath(r.app.Session().WorkingDirectory, word[1:])
	}
	return nil
}

// completePath lists the entries of root matching typed (a relative path,
// slash-separated, as typed after @), each as "@path", directories ending
// in "/" so that Tab goes on into them. Hidden entries show only when the
// typed name starts with a dot.
func completePath(root, typed string) []string {
	dir, base := path.Split(typed)
	if strings.Contains(dir, "..") || filepath.IsAbs(dir) {
		return nil
	}
	entries, err := os.ReadDir(filepath.Join(root, filepath.FromSlash(dir)))
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		name := e.Name()
		if !strings.HasPrefix(name, base) || (strings.HasPrefix(name, ".") && !strings.HasPrefix(base, ".")) {
			continue
		}
		c := "@" + dir + name
		if e.IsDir() {
			c += "/"
		}
		out = append(out, c)
		if len(out) == maxCompletions {
			break
		}
	}
	return out
}
