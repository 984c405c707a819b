package modelbench_test

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/devagent/dev/modelbench"
	"github.com/devagent/dev/modelbench/benchtest"
)

// The built-in suite: at least 12 tasks, of the four kinds, in shell,
// Python and Go, each with a request and a check.
func TestBuiltinSuite(t *testing.T) {
	t.Parallel()
	tasks, err := modelbench.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	if len(tasks) < 12 {
		t.Errorf("%d built-in tasks, want at least 12", len(tasks))
	}
	kinds, languages := map[string]int{}, map[string]int{}
	var names []string
	for _, task := range tasks {
		names = append(names, task.Name)
		if task.Kind == "" || task.Language == "" {
			t.Errorf("task %s has no kind or language: add it to builtinKinds", task.Name)
		}
		kinds[task.Kind]++
		languages[task.Language]++
		if task.Prompt == "" || len(task.Script) == 0 || task.CheckPath != "" {
			t.Errorf("task %s: prompt %q, script of %d bytes, check path %q", task.Name, task.Prompt, len(task.Script), task.CheckPath)
		}
		if !strings.HasPrefix(string(task.Script), "#!/bin/sh\n") {
			t.Errorf("task %s: the check is not a sh script", task.Name)
		}
	}
	for _, k := range []string{modelbench.KindExact, modelbench.KindFix, modelbench.KindAnswer, modelbench.KindMulti} {
		if kinds[k] < 3 {
			t.Errorf("%d tasks of kind %q, want 3 or more", kinds[k], k)
		}
	}
	for _, l := range []string{"shell", "Python", "Go"} {
		if languages[l] < 3 {
			t.Errorf("%d tasks in %s, want 3 or more", languages[l], l)
		}
	}
	if !slices.IsSorted(names) {
		t.Errorf("the suite is not in its stable order (by name): %v", names)
	}
}

// Every built-in check fails on the tree the task starts from, and passes
// on a solution: a check that cannot fail, or cannot pass, measures
// nothing.
func TestBuiltinChecks(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("the built-in checks are sh scripts")
	}
	tasks, err := modelbench.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	sols, err := benchtest.Solutions()
	if err != nil {
		t.Fatal(err)
	}
	for _, task := range tasks {
		t.Run(task.Name, func(t *testing.T) {
			t.Parallel()
			sol, ok := sols[task.Name]
			if !ok {
				t.Fatal("no solution in benchtest")
			}
			untouched := prepared(t, task)
			res, err := task.Check(context.Background(), untouched, "I could not find out.", time.Minute)
			if err != nil || res.Passed {
				t.Errorf("the check passes on the tree the task starts from (%v): %s", err, res.Output)
			}
			if res.Output == "" {
				t.Error("a failed check says nothing of why")
			}
			solved := prepared(t, task)
			for p, content := range sol.Files {
				if err := os.WriteFile(filepath.Join(solved, p), []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			res, err = task.Check(context.Background(), solved, sol.Answer, time.Minute)
			if err != nil || !res.Passed {
				t.Errorf("the check fails on the solution (%v): %s", err, res.Output)
			}
			if task.Kind == modelbench.KindAnswer {
				res, _ := task.Check(context.Background(), solved, "", time.Minute)
				if res.Passed {
					t.Error("a question's check passes without an answer")
				}
			}
		})
	}
}

// prepared is a fresh copy of the task's tree.
func prepared(t *testing.T, task modelbench.Task) string {
	t.Helper()
	dir := t.TempDir()
	if err := task.Prepare(dir); err != nil {
		t.Fatal(err)
	}
	return dir
}

// A user's suite: each directory a task with task.md, workspace/ and an
// executable check, in the order of their names; anything missing is said.
func TestLoadUserSuite(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeTask(t, dir, "b-second", "Do the second thing.", "#!/bin/sh\nexit 0\n", map[string]string{"a.txt": "a\n", "sub/b.txt": "b\n"})
	writeTask(t, dir, "a-first", "  Do the first thing.\n", "#!/bin/sh\nexit 1\n", map[string]string{"run.sh": "echo hi\n"})
	if err := os.Chmod(filepath.Join(dir, "a-first", "workspace", "run.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("a.txt", filepath.Join(dir, "b-second", "workspace", "link.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "README.md"), []byte("a file beside the tasks is no task\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	tasks, err := modelbench.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(tasks) != 2 || tasks[0].Name != "a-first" || tasks[1].Name != "b-second" {
		t.Fatalf("tasks %v, want a-first and b-second in that order", names(tasks))
	}
	if tasks[0].Prompt != "Do the first thing." || tasks[0].CheckPath != filepath.Join(dir, "a-first", "check") {
		t.Errorf("task a-first: prompt %q, check %q", tasks[0].Prompt, tasks[0].CheckPath)
	}
	// The copy keeps the tree: files, directories, modes, links.
	first, second := prepared(t, tasks[0]), prepared(t, tasks[1])
	if st, err := os.Stat(filepath.Join(first, "run.sh")); err != nil || st.Mode().Perm()&0o100 == 0 {
		t.Errorf("run.sh lost its executable bit: %v %v", st, err)
	}
	if data, err := os.ReadFile(filepath.Join(second, "sub", "b.txt")); err != nil || string(data) != "b\n" {
		t.Errorf("sub/b.txt: %q %v", data, err)
	}
	if link, err := os.Readlink(filepath.Join(second, "link.txt")); err != nil || link != "a.txt" {
		t.Errorf("link.txt: %q %v, want a link to a.txt", link, err)
	}
	// The check is the suite's executable, run in the tree.
	if res, err := tasks[1].Check(context.Background(), second, "", time.Minute); err != nil || !res.Passed {
		t.Errorf("b-second's check: %+v %v", res, err)
	}
	if res, err := tasks[0].Check(context.Background(), first, "", time.Minute); err != nil || res.Passed {
		t.Errorf("a-first's check: %+v %v", res, err)
	}

	for _, tc := range []struct {
		name    string
		breakIt func(task string)
		want    string
	}{
		{"no task.md", func(task string) { os.Remove(filepath.Join(task, "task.md")) }, "no task.md"},
		{"empty task.md", func(task string) { os.WriteFile(filepath.Join(task, "task.md"), []byte(" \n"), 0o644) }, "task.md is empty"},
		{"workspace not a directory", func(task string) {
			os.RemoveAll(filepath.Join(task, "workspace"))
			os.WriteFile(filepath.Join(task, "workspace"), nil, 0o644)
		}, "workspace is not a directory"},
		{"no check", func(task string) { os.Remove(filepath.Join(task, "check")) }, "no check"},
		{"check not executable", func(task string) { os.Chmod(filepath.Join(task, "check"), 0o644) }, "not an executable"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			writeTask(t, dir, "fine", "Fine.", "#!/bin/sh\n", nil)
			writeTask(t, dir, "broken", "Broken.", "#!/bin/sh\n", nil)
			tc.breakIt(filepath.Join(dir, "broken"))
			_, err := modelbench.Load(dir)
			if err == nil || !strings.Contains(err.Error(), "task broken") || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want one naming task broken and %q", err, tc.want)
			}
		})
	}
	// No workspace/ at all is an empty tree (git keeps no empty directory).
	bare := t.TempDir()
	writeTask(t, bare, "from-scratch", "Write it all.", "#!/bin/sh\n", nil)
	must(t, os.RemoveAll(filepath.Join(bare, "from-scratch", "workspace")))
	if tasks, err := modelbench.Load(bare); err != nil || len(tasks) != 1 {
		t.Errorf("a task without workspace/: %v", err)
	} else if entries, _ := os.ReadDir(prepared(t, tasks[0])); len(entries) != 0 {
		t.Errorf("its tree holds %d entries", len(entries))
	}
	if _, err := modelbench.Load(t.TempDir()); err == nil || !strings.Contains(err.Error(), "no tasks") {
		t.Errorf("an empty suite: %v", err)
	}
	if _, err := modelbench.Load(filepath.Join(dir, "nowhere")); err == nil {
		t.Error("a suite that does not exist loads")
	}
}

// writeTask writes a task of a user's suite.
func writeTask(t testing.TB, suite, name, prompt, check string, files map[string]string) {
	t.Helper()
	dir := filepath.Join(suite, name)
	must(t, os.MkdirAll(filepath.Join(dir, "workspace"), 0o755))
	must(t, os.WriteFile(filepath.Join(dir, "task.md"), []byte(prompt), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "check"), []byte(check), 0o755))
	for p, content := range files {
		path := filepath.Join(dir, "workspace", filepath.FromSlash(p))
		must(t, os.MkdirAll(filepath.Dir(path), 0o755))
		must(t, os.WriteFile(path, []byte(content), 0o644))
	}
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func names(tasks []modelbench.Task) []string {
	var out []string
	for _, t := range tasks {
		out = append(out, t.Name)
	}
	return out
}

// --only keeps the named tasks in the suite's order; an unknown name is
// an error that names the valid ones.
func TestSelect(t *testing.T) {
	t.Parallel()
	tasks := fakeTasks("a", "b", "c", "d")
	got, err := modelbench.Select(tasks, []string{"d", "b"})
	if err != nil || !slices.Equal(names(got), []string{"b", "d"}) {
		t.Errorf("Select d,b = %v %v, want b, d", names(got), err)
	}
	if got, err := modelbench.Select(tasks, nil); err != nil || len(got) != 4 {
		t.Errorf("Select of nothing = %v %v, want every task", names(got), err)
	}
	_, err = modelbench.Select(tasks, []string{"b", "zz"})
	if err == nil || !strings.Contains(err.Error(), `"zz"`) || !strings.Contains(err.Error(), "a, b, c, d") {
		t.Errorf("Select zz: %v", err)
	}
}

// --shard I/N: the tasks at positions I, I+N, I+2N…; the shards together
// hold every task once.
func TestShard(t *testing.T) {
	t.Parallel()
	tasks := fakeTasks("t0", "t1", "t2", "t3", "t4", "t5", "t6")
	if got := names(modelbench.Shard(tasks, 1, 3)); !slices.Equal(got, []string{"t1", "t4"}) {
		t.Errorf("shard 1/3 = %v, want t1, t4", got)
	}
	if got := names(modelbench.Shard(tasks, 0, 3)); !slices.Equal(got, []string{"t0", "t3", "t6"}) {
		t.Errorf("shard 0/3 = %v, want t0, t3, t6", got)
	}
	if got := names(modelbench.Shard(tasks, 0, 1)); len(got) != 7 {
		t.Errorf("shard 0/1 = %v, want every task", got)
	}
	if got := modelbench.Shard(tasks, 9, 10); len(got) != 0 {
		t.Errorf("shard 9/10 of 7 tasks = %v, want none", names(got))
	}
	for _, n := range []int{1, 2, 3, 4, 7, 8} {
		seen := map[string]int{}
		for i := range n {
			for _, task := range modelbench.Shard(tasks, i, n) {
				seen[task.Name]++
			}
		}
		for _, task := range tasks {
			if seen[task.Name] != 1 {
				t.Errorf("%d shards hold task %s %d times", n, task.Name, seen[task.Name])
			}
		}
	}
}

func fakeTasks(list ...string) []modelbench.Task {
	var out []modelbench.Task
	for _, n := range list {
		out = append(out, modelbench.Task{Name: n, Prompt: n, Workspace: fs.FS(os.DirFS("."))})
	}
	return out
}
