package tools

import (
	"path/filepath"
	"strings"
)

// Target is the file or directory a file tool's input names, absolute
// against dir, and the line a read starts at (0: its start): where an
// editor shows the tool at work before it runs. For a glob it is the
// directory the glob searches. ok is false for other tools and for an
// input that names nothing the tool could work on.
func Target(dir, tool, input string) (path string, line int, ok bool) {
	var p string
	switch tool {
	case ReadFile:
		in, err := readArgs(input)
		if err != nil {
			return "", 0, false
		}
		p, line = in.path, in.from
	case WriteFile:
		in, err := writeArgs(input)
		if err != nil {
			return "", 0, false
		}
		p = in.path
	case FindAndReplace:
		e, err := editArgs(input)
		if err != nil {
			return "", 0, false
		}
		p = e.path
	case ListDirectory:
		p = listArg(input)
		if isGlob(p) {
			p = globRoot(p)
		}
	default:
		return "", 0, false
	}
	return resolve(dir, p), line, true
}

// globRoot is the part of a glob before its first element that holds a
// meta character: the directory it searches ("." for "*.go").
func globRoot(glob string) string {
	parts := strings.Split(filepath.ToSlash(glob), "/")
	for i, part := range parts {
		if isGlob(part) {
			root := strings.Join(parts[:i], "/")
			if root == "" && strings.HasPrefix(glob, "/") {
				return "/"
			}
			if root == "" {
				return "."
			}
			return filepath.FromSlash(root)
		}
	}
	return glob
}
