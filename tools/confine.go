package tools

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// RedactedMarker starts the placeholder that secret redaction puts in tool
// output ([REDACTED:<kind>]). File tools refuse content holding it: the
// model never saw the secret, so writing what it saw would replace the
// secret with the placeholder.
const RedactedMarker = "[REDACTED:"

// redactedRefusal says why content cannot be written, or "".
func redactedRefusal(disp, content string) string {
	if !strings.Contains(content, RedactedMarker) {
		return ""
	}
	return fmt.Sprintf("the content for %s contains %s…], a placeholder for a secret that was hidden from you; writing it would put the placeholder where the secret belongs. "+
		"Leave the secret's line as it is (edit around it), read the value at run time (e.g. from an environment variable), or ask the user.", disp, RedactedMarker)
}

// writeRefusal says why abs (absolute and clean) may not be written by
// the file tools, or "": it must resolve, symbolic links followed (also
// through a directory that does not exist yet), inside the working
// directory or one of the writableRoots.
func writeRefusal(env *Env, abs string) string {
	real, err := resolveReal(abs)
	if err != nil {
		return fmt.Sprintf("cannot tell where %s leads: %s, so it is not written.", abs, fsErr(err))
	}
	roots := append([]string{env.Dir}, env.WritableRoots...)
	for _, root := range roots {
		if root == "" {
			continue
		}
		r, err := filepath.Abs(root)
		if err != nil {
			continue
		}
		if rr, err := resolveReal(r); err == nil {
			r = rr
		}
		if within(r, real) {
			return ""
		}
	}
	via := ""
	if real != abs {
		via = fmt.Sprintf(" (it resolves to %s through a symbolic link)", real)
	}
	extra := "none are configured"
	if len(env.WritableRoots) > 0 {
		extra = "now: " + strings.Join(env.WritableRoots, ", ")
	}
	return fmt.Sprintf("%s is outside the working directory %s%s. The file tools write only inside it and the directories listed in writableRoots in the configuration (%s); "+
		"write inside the working directory, or ask the user to add the directory to writableRoots.", abs, env.Dir, via, extra)
}

// within reports whether p is root or inside it.
func within(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// resolveReal is where writing p lands: symbolic links followed. For a
// path that does not exist yet, the nearest existing directory is
// resolved and the rest appended (it cannot hold links). A final
// component that is a dangling link counts as itself, since writeAtomic
// replaces such a link; a dangling link further up cannot be resolved.
func resolveReal(p string) (string, error) {
	p = filepath.Clean(p)
	var rest []string
	final := true
	for {
		if _, err := os.Lstat(p); err == nil {
			r, err := filepath.EvalSymlinks(p)
			if err == nil {
				return filepath.Join(append([]string{r}, rest...)...), nil
			}
			if !final || !errors.Is(err, fs.ErrNotExist) {
				return "", err
			}
		} else if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR) {
			// A regular file in the way leads nowhere: writing fails
			// by itself, with its own message.
			return "", err
		}
		parent := filepath.Dir(p)
		if parent == p {
			return filepath.Join(append([]string{p}, rest...)...), nil
		}
		rest = append([]string{filepath.Base(p)}, rest...)
		p, final = parent, false
	}
}
