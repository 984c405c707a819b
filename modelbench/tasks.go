package modelbench

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"golang.org/x/tools/txtar"
)

// Task is one task of a suite: a request, the tree it starts from and the
// check that says whether it was done.
type Task struct {
	Name string
	// Kind and Language describe a built-in task ("" for a user's).
	Kind, Language string
	// Prompt is the request, as dev -p gets it (task.md).
	Prompt string
	// Workspace is the tree a run starts from.
	Workspace fs.FS
	// The check: a built-in task's script (Script), or the path of a user
	// suite's executable (CheckPath). It runs in the finished tree.
	Script    []byte
	CheckPath string
}

// The kinds of the built-in tasks (SPEC §19).
const (
	KindExact  = "exact content"
	KindFix    = "fix a bug"
	KindAnswer = "answer"
	KindMulti  = "multi-step"
)

// The files of a task's directory, built in or the user's.
const (
	promptFile   = "task.md"
	workspaceDir = "workspace"
	checkFile    = "check"
)

// builtinFS holds the built-in suite: each task one archive (txtar),
// tasks/<name>.txtar, whose comment gives its kind and language and whose
// files are task.md, check and the tree under workspace/. An archive, not
// a directory: a task's go.mod would end the module there (embed leaves
// such a directory out), and its Go files would build as packages of dev.
//
//go:embed tasks/*.txtar
var builtinFS embed.FS

// Builtin is the built-in suite, in its stable order (by name).
func Builtin() ([]Task, error) {
	entries, err := builtinFS.ReadDir("tasks")
	if err != nil {
		return nil, err
	}
	var tasks []Task
	for _, e := range entries { // sorted by name
		name := strings.TrimSuffix(e.Name(), ".txtar")
		data, err := builtinFS.ReadFile(path.Join("tasks", e.Name()))
		if err != nil {
			return nil, err
		}
		t, err := builtinTask(name, txtar.Parse(data))
		if err != nil {
			return nil, fmt.Errorf("the built-in task %s: %w", name, err)
		}
		tasks = append(tasks, t)
	}
	return tasks, nil
}

// builtinTask reads a built-in task's archive.
func builtinTask(name string, a *txtar.Archive) (Task, error) {
	t := Task{Name: name}
	for _, line := range strings.Split(string(a.Comment), "\n") {
		key, value, _ := strings.Cut(line, ":")
		switch strings.TrimSpace(key) {
		case "kind":
			t.Kind = strings.TrimSpace(value)
		case "language":
			t.Language = strings.TrimSpace(value)
		}
	}
	tree := &txtar.Archive{}
	for _, f := range a.Files {
		switch {
		case f.Name == promptFile:
			t.Prompt = strings.TrimSpace(string(f.Data))
		case f.Name == checkFile:
			t.Script = f.Data
		case strings.HasPrefix(f.Name, workspaceDir+"/"):
			tree.Files = append(tree.Files, txtar.File{Name: strings.TrimPrefix(f.Name, workspaceDir+"/"), Data: f.Data})
		default:
			return Task{}, fmt.Errorf("unexpected file %s", f.Name)
		}
	}
	if t.Prompt == "" || len(t.Script) == 0 || t.Kind == "" || t.Language == "" {
		return Task{}, fmt.Errorf("want a kind, a language, %s and %s", promptFile, checkFile)
	}
	var err error
	t.Workspace, err = txtar.FS(tree)
	return t, err
}

// Load reads the user's suite in dir: each directory in it is a task,
// with task.md (the request), workspace/ (the tree to start from) and
// check (an executable that exits 0 when the task was done), in the
// suite's stable order (by name).
func Load(dir string) ([]Task, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	st, err := os.Stat(abs)
	if err != nil {
		return nil, fmt.Errorf("--tasks %s: %w", dir, err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("--tasks %s: not a directory", dir)
	}
	tasks, err := readSuite(os.DirFS(abs), func(name string) (Task, error) {
		check := filepath.Join(abs, name, checkFile)
		st, err := os.Stat(check)
		if err != nil {
			return Task{}, fmt.Errorf("no %s (an executable that exits 0 when the task is done)", checkFile)
		}
		if !st.Mode().IsRegular() || (st.Mode().Perm()&0o111 == 0 && !isWindows()) {
			return Task{}, fmt.Errorf("%s is not an executable file (chmod +x %s)", checkFile, check)
		}
		return Task{CheckPath: check}, nil
	})
	if err != nil {
		return nil, fmt.Errorf("--tasks %s: %w", dir, err)
	}
	if len(tasks) == 0 {
		return nil, fmt.Errorf("--tasks %s: no tasks there (each is a directory with %s, %s/ and %s)", dir, promptFile, workspaceDir, checkFile)
	}
	return tasks, nil
}

// readSuite reads the tasks of a user's suite, the directories of fsys;
// check finds a task's check.
func readSuite(fsys fs.FS, check func(name string) (Task, error)) ([]Task, error) {
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return nil, err
	}
	var tasks []Task
	for _, e := range entries { // ReadDir sorts by name: the stable order
		name := e.Name()
		if !e.IsDir() || strings.HasPrefix(name, ".") {
			continue
		}
		t, err := check(name)
		if err != nil {
			return nil, fmt.Errorf("task %s: %w", name, err)
		}
		t.Name = name
		dir := name
		prompt, err := fs.ReadFile(fsys, path.Join(dir, promptFile))
		if err != nil {
			return nil, fmt.Errorf("task %s: no %s (the request)", name, promptFile)
		}
		if t.Prompt = strings.TrimSpace(string(prompt)); t.Prompt == "" {
			return nil, fmt.Errorf("task %s: %s is empty", name, promptFile)
		}
		// No workspace/ is an empty tree: git keeps no empty directory.
		ws := path.Join(dir, workspaceDir)
		switch st, err := fs.Stat(fsys, ws); {
		case errors.Is(err, fs.ErrNotExist):
			if t.Workspace, err = txtar.FS(&txtar.Archive{}); err != nil {
				return nil, err
			}
		case err != nil || !st.IsDir():
			return nil, fmt.Errorf("task %s: %s is not a directory (the tree the task starts from)", name, workspaceDir)
		default:
			if t.Workspace, err = fs.Sub(fsys, ws); err != nil {
				return nil, fmt.Errorf("task %s: %w", name, err)
			}
		}
		tasks = append(tasks, t)
	}
	return tasks, nil
}

// Select keeps the tasks named in only (all when only is empty), in the
// suite's order; a name the suite lacks is an error naming the valid ones.
func Select(tasks []Task, only []string) ([]Task, error) {
	if len(only) == 0 {
		return tasks, nil
	}
	var names []string
	for _, t := range tasks {
		names = append(names, t.Name)
	}
	for _, name := range only {
		if !slices.Contains(names, name) {
			return nil, fmt.Errorf("--only: no task %q; the tasks are: %s", name, strings.Join(names, ", "))
		}
	}
	var out []Task
	for _, t := range tasks {
		if slices.Contains(only, t.Name) {
			out = append(out, t)
		}
	}
	return out, nil
}

// Shard is the tasks whose position in tasks (from 0) is i modulo n: shard
// i of n. Every task is in exactly one shard.
func Shard(tasks []Task, i, n int) []Task {
	if n <= 1 {
		return tasks
	}
	var out []Task
	for pos, t := range tasks {
		if pos%n == i {
			out = append(out, t)
		}
	}
	return out
}

func isWindows() bool { return runtime.GOOS == "windows" }
