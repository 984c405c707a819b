//go:build unix

package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// confined is a working directory with symbolic links out of it, and the
// directory outside they point to.
func confined(t *testing.T) (env *Env, outside string) {
	t.Helper()
	env = newEnv(t, map[string]string{"inside.txt": "in\n", "sub/keep.txt": "k\n"})
	outside = t.TempDir()
	writeTree(t, outside, map[string]string{"secret.txt": "alpha\n"})
	for link, target := range map[string]string{
		"out":          outside,
		"out-file.txt": filepath.Join(outside, "secret.txt"),
		"dangling.txt": filepath.Join(outside, "created-through-link.txt"),
		"in-link":      filepath.Join(env.Dir, "sub"),
		"sub/up":       "..",
	} {
		if err := os.Symlink(target, filepath.Join(env.Dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	return env, outside
}

func TestWriteConfinement(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		path    string
		refused bool
	}{
		{"new.txt", false},
		{"deep/er/new.txt", false},
		{"in-link/new.txt", false},         // a link that stays inside
		{"sub/up/sub/up/new.txt", false},   // links back and forth, inside
		{"dangling.txt", false},            // a dangling final link is replaced, not followed
		{"../escape.txt", true},            // relative escape
		{"out/new.txt", true},              // a new file under a linked directory
		{"out/deeper/still/new.txt", true}, // new directories under it
		{"out-file.txt", true},             // an existing file through a link
		{"out/secret.txt", true},
		{"sub/up/../cleaned.txt", false}, // paths are cleaned first: this is sub/cleaned.txt
	} {
		env, outside := confined(t)
		before := snapshotDir(t, outside)
		r := runTool(t, WriteFileTool{}, env, tc.path+"\n```\npwned\n```")
		after := snapshotDir(t, outside)
		if !tc.refused {
			if !r.OK {
				t.Errorf("%s: refused: %s", tc.path, r.Output)
			}
			if after != before {
				t.Errorf("%s: the directory outside changed", tc.path)
			}
			continue
		}
		if r.OK || !strings.HasPrefix(r.Output, "Refused: ") || !strings.Contains(r.Output, "writableRoots") || !strings.Contains(r.Output, "outside the working directory") {
			t.Errorf("%s: not refused as it should be: %+v", tc.path, r)
		}
		if after != before {
			t.Errorf("%s: the directory outside changed:\n%s\n%s", tc.path, before, after)
		}
		if r.Files != nil {
			t.Errorf("%s: Files = %v", tc.path, r.Files)
		}
	}
}

func TestWriteConfinementNamesTheResolvedPath(t *testing.T) {
	t.Parallel()
	env, outside := confined(t)
	r := runTool(t, WriteFileTool{}, env, "out/new.txt\n```\nx\n```")
	real, _ := filepath.EvalSymlinks(outside)
	if !strings.Contains(r.Output, filepath.Join(env.Dir, "out", "new.txt")) || !strings.Contains(r.Output, filepath.Join(real, "new.txt")) {
		t.Errorf("the refusal does not name the path and where it leads: %s", r.Output)
	}
}

func TestWritableRoots(t *testing.T) {
	t.Parallel()
	env, outside := confined(t)
	// A root given through a link counts by where it leads.
	link := filepath.Join(t.TempDir(), "root-link")
	if err := os.Symlink(outside, link); err != nil {
		t.Fatal(err)
	}
	env.WritableRoots = []string{link}
	for _, p := range []string{"out/new.txt", filepath.Join(outside, "abs.txt"), "out-file.txt"} {
		if r := runTool(t, WriteFileTool{}, env, p+"\n```\nok\n```"); !r.OK {
			t.Errorf("%s: %s", p, r.Output)
		}
	}
	if got := readFile(t, filepath.Join(outside, "secret.txt")); got != "ok\n" {
		t.Errorf("secret.txt = %q", got)
	}
	r := runTool(t, WriteFileTool{}, env, "../escape.txt\n```\nx\n```")
	if r.OK || !strings.Contains(r.Output, "now: "+link) {
		t.Errorf("the refusal does not list the roots: %s", r.Output)
	}
}

func TestFindAndReplaceConfinement(t *testing.T) {
	t.Parallel()
	env, outside := confined(t)
	for _, p := range []string{"out-file.txt", "out/secret.txt", filepath.Join(outside, "secret.txt")} {
		r := runTool(t, FindAndReplaceTool{}, env, p+"\n```find\nalpha\n```\n```replace\npwned\n```")
		if r.OK || !strings.Contains(r.Output, "writableRoots") {
			t.Errorf("%s: %+v", p, r)
		}
	}
	if got := readFile(t, filepath.Join(outside, "secret.txt")); got != "alpha\n" {
		t.Errorf("the file outside changed: %q", got)
	}
	if r := runTool(t, FindAndReplaceTool{}, env, "inside.txt\n```find\nin\n```\n```replace\nout\n```"); !r.OK {
		t.Errorf("an edit inside was refused: %s", r.Output)
	}
}

func TestFileToolsRefuseRedactedPlaceholders(t *testing.T) {
	t.Parallel()
	env := newEnv(t, map[string]string{"config.env": "TOKEN=ghp_real\nMODE=dev\n"})
	r := runTool(t, WriteFileTool{}, env, "new.env\n```\nTOKEN=[REDACTED:github-token]\n```")
	if r.OK || !strings.Contains(r.Output, "[REDACTED:") || !strings.Contains(r.Output, "placeholder") {
		t.Errorf("WRITE_FILE: %+v", r)
	}
	if _, err := os.Stat(filepath.Join(env.Dir, "new.env")); err == nil {
		t.Error("WRITE_FILE wrote the placeholder")
	}
	r = runTool(t, FindAndReplaceTool{}, env, "config.env\n```find\nTOKEN=ghp_real\nMODE=dev\n```\n```replace\nTOKEN=[REDACTED:github-token]\nMODE=prod\n```")
	if r.OK || !strings.Contains(r.Output, "placeholder") {
		t.Errorf("FIND_AND_REPLACE_IN_FILE: %+v", r)
	}
	if got := readFile(t, filepath.Join(env.Dir, "config.env")); got != "TOKEN=ghp_real\nMODE=dev\n" {
		t.Errorf("config.env = %q", got)
	}
}

// snapshotDir lists every path under dir with its content.
func snapshotDir(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		b.WriteString(p + "\n")
		if !d.IsDir() {
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			b.Write(data)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}
