package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/devagent/dev/checkpoints"
	"github.com/devagent/dev/textfmt"
)

// The checkpoint scenarios time the checkpoints package in this process
// on a workspace of 10,000 files of 2 KB in 100 directories (a git work
// tree with a .gitignore, last modified an hour ago, as a checked-out
// project is): the cost SPEC §12 bounds is the snapshot's own, whatever
// runs around it.
const (
	checkpointFiles     = 10_000
	checkpointFilesEach = 100
)

// checkpointWorkspace writes the workspace under dir.
func checkpointWorkspace(dir string, files int) error {
	old := time.Now().Add(-time.Hour)
	if err := os.MkdirAll(filepath.Join(dir, ".git"), 0o755); err != nil {
		return err
	}
	// Every file written an hour ago, .gitignore too: a file changed within
	// the last 2 s is hashed again at each checkpoint (racy, see
	// checkpoints/index.go), which an unchanged workspace must not need.
	ignore := filepath.Join(dir, ".gitignore")
	if err := os.WriteFile(ignore, []byte("*.o\n/build/\n"), 0o644); err != nil {
		return err
	}
	if err := os.Chtimes(ignore, old, old); err != nil {
		return err
	}
	for i := range files {
		p := checkpointFile(dir, i)
		if i%checkpointFilesEach == 0 {
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return err
			}
		}
		if err := os.WriteFile(p, []byte(checkpointSource(i, 0)), 0o644); err != nil {
			return err
		}
		if err := os.Chtimes(p, old, old); err != nil {
			return err
		}
	}
	return nil
}

func checkpointFile(dir string, i int) string {
	return filepath.Join(dir, fmt.Sprintf("pkg%03d", i/checkpointFilesEach), fmt.Sprintf("file%03d.go", i%checkpointFilesEach))
}

// checkpointSource is about 2 KB of Go: version v of file i.
func checkpointSource(i, v int) string {
	var s strings.Builder
	fmt.Fprintf(&s, "package pkg%03d\n\n// File %d, version %d.\n", i/checkpointFilesEach, i, v)
	for j := range 40 {
		fmt.Fprintf(&s, "func f%d_%d(x int) int { return x*%d + %d }\n", i, j, j, v)
	}
	return s.String()
}

// timed runs f and returns its wall and CPU time (this process's, 0
// where the platform does not say).
func timed(f func() error) (wall, cpu time.Duration, err error) {
	start, startCPU := time.Now(), selfCPU()
	err = f()
	return time.Since(start), selfCPU() - startCPU, err
}

func prepareCheckpointWorkspace(b *bench) (any, error) {
	dir := filepath.Join(b.tmp, "checkpoint-workspace")
	return dir, checkpointWorkspace(dir, checkpointFiles)
}

func checkpointUnchangedScenario() scenario {
	return scenario{
		name:    "checkpoint-unchanged",
		title:   "checkpoint, 10,000 files, nothing changed",
		target:  "≤ 50 ms",
		prepare: prepareCheckpointWorkspace,
		direct: func(b *bench, shared any, warmup, runs int) (row, error) {
			work := shared.(string)
			store := filepath.Join(b.tmp, "checkpoint-store-unchanged")
			defer os.RemoveAll(store)
			s, err := checkpoints.Open(store, work, checkpoints.Options{})
			if err != nil {
				return row{}, err
			}
			ctx := context.Background()
			var first checkpoints.Scan
			firstWall, _, err := timed(func() (err error) { first, err = s.Snapshot(ctx); return err })
			if err != nil {
				return row{}, err
			}
			stored := dirBytes(store)
			snapshot := func(s *checkpoints.Store) error {
				sc, err := s.Snapshot(ctx)
				if err == nil && (sc.Tree != first.Tree || sc.Hashed != 0) {
					err = fmt.Errorf("an unchanged workspace gave tree %s (hashed %d files), first %s", sc.Tree, sc.Hashed, first.Tree)
				}
				return err
			}
			var walls, cpus, colds []time.Duration
			for i := range warmup + runs {
				wall, cpu, err := timed(func() error { return snapshot(s) })
				if err != nil {
					return row{}, err
				}
				// A new process (dev rewind, dev --resume): the stat
				// cache comes from disk.
				cold, _, err := timed(func() error {
					c, err := checkpoints.Open(store, work, checkpoints.Options{})
					if err != nil {
						return err
					}
					return snapshot(c)
				})
				if err != nil {
					return row{}, err
				}
				if i >= warmup {
					walls, cpus, colds = append(walls, wall), append(cpus, cpu), append(colds, cold)
				}
			}
			return row{title: "checkpoint, 10,000 files, nothing changed", target: "≤ 50 ms", runs: runs,
				wall: medianOf(walls), cpu: medianOf(cpus),
				notes: fmt.Sprintf("in a new process %s; the first checkpoint %s, %.1f MB stored for %.1f MB of files",
					ms(medianOf(colds)), ms(firstWall), float64(stored)/(1<<20), float64(first.Bytes)/(1<<20))}, nil
		},
	}
}

func checkpointChangedScenario() scenario {
	return scenario{
		name:    "checkpoint-10-changed",
		title:   "checkpoint, 10,000 files, 10 changed",
		target:  "–",
		prepare: prepareCheckpointWorkspace,
		direct: func(b *bench, shared any, warmup, runs int) (row, error) {
			work := shared.(string)
			store := filepath.Join(b.tmp, "checkpoint-store-changed")
			defer os.RemoveAll(store)
			s, err := checkpoints.Open(store, work, checkpoints.Options{})
			if err != nil {
				return row{}, err
			}
			ctx := context.Background()
			if _, err := s.Snapshot(ctx); err != nil {
				return row{}, err
			}
			var walls, cpus []time.Duration
			for i := range warmup + runs {
				for k := range 10 {
					f := (i*10 + k) * 97 % checkpointFiles
					if err := os.WriteFile(checkpointFile(work, f), []byte(checkpointSource(f, i+1)), 0o644); err != nil {
						return row{}, err
					}
				}
				var sc checkpoints.Scan
				wall, cpu, err := timed(func() (err error) { sc, err = s.Snapshot(ctx); return err })
				if err == nil && sc.Hashed < 10 {
					err = fmt.Errorf("10 changed files, %d read", sc.Hashed)
				}
				if err != nil {
					return row{}, err
				}
				if i >= warmup {
					walls, cpus = append(walls, wall), append(cpus, cpu)
				}
			}
			return row{title: "checkpoint, 10,000 files, 10 changed", target: "–", runs: runs,
				wall: medianOf(walls), cpu: medianOf(cpus),
				notes: "reads the 10 files and those changed within 2 s of the last checkpoint"}, nil
		},
	}
}

// checkpointSessionScenario takes the checkpoints of a 300-step session
// as the app layer does: one before the request, then one after each step
// that changed a file (one in three: WRITE_FILE of a new file,
// FIND_AND_REPLACE_IN_FILE on it, a COMMAND rewriting a source file),
// each with the session's history, which grows by a reply and a tool
// result per step. It reports the store's size on disk, for a project of
// 10 files and for the 10,000-file one.
func checkpointSessionScenario() scenario {
	return scenario{
		name:   "checkpoint-300-steps",
		title:  "checkpoints of a 300-step session",
		target: "small on disk",
		direct: func(b *bench, _ any, warmup, runs int) (row, error) {
			var walls, cpus []time.Duration
			var notes []string
			for _, files := range []int{10, checkpointFiles} {
				work := filepath.Join(b.tmp, fmt.Sprintf("checkpoint-session-%d", files))
				store := work + "-store"
				if err := checkpointWorkspace(work, files); err != nil {
					return row{}, err
				}
				var taken int
				wall, cpu, err := timed(func() (err error) { taken, err = checkpointSession(work, store); return err })
				if err != nil {
					return row{}, err
				}
				if files == 10 {
					walls, cpus = append(walls, wall), append(cpus, cpu)
				}
				notes = append(notes, fmt.Sprintf("%d files (%.0f KB): %d checkpoints, %.0f KB on disk",
					files, float64(dirBytes(work))/1024, taken, float64(dirBytes(store))/1024))
				os.RemoveAll(work)
				os.RemoveAll(store)
			}
			return row{title: "checkpoints of a 300-step session", target: "small on disk", runs: 1,
				wall: medianOf(walls), cpu: medianOf(cpus), notes: strings.Join(notes, "; ")}, nil
		},
	}
}

func checkpointSession(work, store string) (int, error) {
	s, err := checkpoints.Open(store, work, checkpoints.Options{Lazy: true, Watch: true})
	if err != nil {
		return 0, err
	}
	defer s.Close()
	ctx := context.Background()
	var list []checkpoints.Checkpoint
	history := [][]byte{[]byte("<user_request>work through the scripted steps</user_request>")}
	take := func(m checkpoints.Meta, i int) error {
		rest := []byte(fmt.Sprintf(`{"taskList":[{"status":"in-progress","text":"step %d"}],"audits":[]}`, i))
		tk, err := s.Take(ctx, list, m, func() checkpoints.State { return checkpoints.State{Messages: history, Rest: rest} })
		if tk.New {
			list = append(list, tk.Checkpoint)
		}
		return err
	}
	if err := take(checkpoints.Meta{Reason: checkpoints.BeforeRequest}, 0); err != nil {
		return 0, err
	}
	for i := 1; i <= 300; i++ {
		// As the app does: the content of the first checkpoint is
		// stored before a tool that changes files, and the checkpoint
		// after a tool looks where it may have changed something.
		m := checkpoints.Meta{Reason: checkpoints.AfterTool, Step: i, Tool: "READ_FILE"}
		var err error
		switch i % 6 {
		case 2:
			m.Tool, m.Look = "WRITE_FILE", checkpoints.LookPaths
			p := filepath.Join(work, "out", fmt.Sprintf("%d.txt", i))
			m.Paths = []string{p}
			body := strings.Repeat(fmt.Sprintf("result line of step %d\n", i), 12) + "status: draft\n"
			if err = s.Protect(ctx); err == nil {
				if err = os.MkdirAll(filepath.Dir(p), 0o755); err == nil {
					err = os.WriteFile(p, []byte(body), 0o644)
				}
			}
		case 3:
			m.Tool, m.Look = "FIND_AND_REPLACE_IN_FILE", checkpoints.LookPaths
			p := filepath.Join(work, "out", fmt.Sprintf("%d.txt", i-1))
			m.Paths = []string{p}
			var data []byte
			if data, err = os.ReadFile(p); err == nil {
				if err = s.Protect(ctx); err == nil {
					err = os.WriteFile(p, []byte(strings.Replace(string(data), "status: draft", "status: final", 1)), 0o644)
				}
			}
		case 4:
			m.Tool, m.Look = "COMMAND", checkpoints.LookChanged
			if err = s.Protect(ctx); err == nil {
				err = os.WriteFile(checkpointFile(work, i%10), []byte(checkpointSource(i%10, i)), 0o644)
			}
		}
		if err != nil {
			return 0, err
		}
		history = append(history,
			[]byte(fmt.Sprintf("Thoughts: step %d of the plan: keep going with the next part of the work.\nTool: %s", i, m.Tool)),
			[]byte(fmt.Sprintf("<tool_result tool=%q ok=\"true\">\n%s</tool_result>", m.Tool, strings.Repeat(fmt.Sprintf("output of step %d\n", i), 20))))
		if m.Tool == "READ_FILE" {
			continue // a tool that changes nothing: no checkpoint looks
		}
		if err := take(m, i); err != nil {
			return 0, err
		}
	}
	return len(list), nil
}

// dirBytes is the size of the files under dir.
func dirBytes(dir string) int64 {
	var n int64
	filepath.Walk(dir, func(_ string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			n += fi.Size()
		}
		return nil
	})
	return n
}

// workspace is the checkpoint workspace of files files, made once per
// bench and shared by the scenarios that use it (each puts back what it
// changes): making 100,000 files takes longer than measuring them.
func (b *bench) workspace(files int) (string, error) {
	if dir, ok := b.workspaces[files]; ok {
		return dir, nil
	}
	dir := filepath.Join(b.tmp, fmt.Sprintf("workspace-%d", files))
	if err := checkpointWorkspace(dir, files); err != nil {
		return "", err
	}
	if b.workspaces == nil {
		b.workspaces = map[int]string{}
	}
	b.workspaces[files] = dir
	return dir, nil
}

// checkpointStepsScenario times each of SPEC §12's checkpoint figures in
// this process, on a workspace of files files, with the store as a run
// of dev opens it (the first snapshot lazy, the directories watched): the
// first checkpoint, then a checkpoint after each kind of step. The
// wall column is the checkpoint after a command that changed nothing.
func checkpointStepsScenario(name string, files int, target string) scenario {
	title := fmt.Sprintf("checkpoint steps, %s files", textfmt.Thousands(int64(files)))
	return scenario{
		name:    name,
		title:   title,
		target:  target,
		prepare: func(b *bench) (any, error) { return b.workspace(files) },
		direct: func(b *bench, shared any, warmup, runs int) (row, error) {
			work := shared.(string)
			ctx := context.Background()
			n := warmup + runs
			var firsts, captures, eagers, unchanged, walks, edits, commands, requests []time.Duration
			var deferred int
			for i := range n {
				store := filepath.Join(b.tmp, name+"-store")
				s, err := checkpoints.Open(store, work, checkpoints.Options{Lazy: true, Watch: true})
				if err != nil {
					return row{}, err
				}
				var list []checkpoints.Checkpoint
				take := func(m checkpoints.Meta) (checkpoints.Taken, time.Duration, error) {
					start := time.Now()
					tk, err := s.Take(ctx, list, m, nil)
					d := time.Since(start)
					if tk.New {
						list = append(list, tk.Checkpoint)
					}
					return tk, d, err
				}
				tk, first, err := take(checkpoints.Meta{Reason: checkpoints.BeforeRequest})
				if err != nil {
					return row{}, err
				}
				deferred = tk.Scan.Deferred
				capture, _, err := timed(func() error { return s.Protect(ctx) })
				if err != nil {
					return row{}, err
				}
				command := checkpoints.Meta{Reason: checkpoints.AfterTool, Tool: "COMMAND", Look: checkpoints.LookChanged}
				tk, still, err := take(command)
				if err == nil && tk.New {
					err = fmt.Errorf("a command that changed nothing made a checkpoint: %v", tk.Changes)
				}
				if err != nil {
					return row{}, err
				}
				newFile := filepath.Join(work, "out", "new.txt")
				if err := os.MkdirAll(filepath.Dir(newFile), 0o755); err != nil {
					return row{}, err
				}
				if err := os.WriteFile(newFile, []byte("written by a file tool\n"), 0o644); err != nil {
					return row{}, err
				}
				tk, edit, err := take(checkpoints.Meta{Reason: checkpoints.AfterTool, Tool: "WRITE_FILE", Look: checkpoints.LookPaths, Paths: []string{newFile}})
				if err == nil && len(tk.Changes) != 1 {
					err = fmt.Errorf("WRITE_FILE's checkpoint saw %v", tk.Changes)
				}
				if err != nil {
					return row{}, err
				}
				deep := checkpointFile(work, files/2)
				if err := os.WriteFile(deep, []byte(checkpointSource(files/2, i+1)), 0o644); err != nil {
					return row{}, err
				}
				tk, changed, err := take(command)
				if rel, _ := filepath.Rel(work, deep); err == nil && (len(tk.Changes) != 1 || tk.Changes[0].Path != filepath.ToSlash(rel)) {
					err = fmt.Errorf("the command's checkpoint saw %v", tk.Changes)
				}
				if err != nil {
					return row{}, err
				}
				_, request, err := take(checkpoints.Meta{Reason: checkpoints.BeforeRequest})
				if err != nil {
					return row{}, err
				}
				// Put the workspace back; then without a watcher, as
				// elsewhere than Linux: a command's checkpoint walks it.
				old := time.Now().Add(-time.Hour)
				err = errors.Join(os.RemoveAll(filepath.Dir(newFile)), os.WriteFile(deep, []byte(checkpointSource(files/2, 0)), 0o644), os.Chtimes(deep, old, old), s.Close(), os.RemoveAll(store))
				if err != nil {
					return row{}, err
				}
				plain, err := checkpoints.Open(store, work, checkpoints.Options{})
				if err != nil {
					return row{}, err
				}
				eager, _, err := timed(func() error { _, err := plain.Snapshot(ctx); return err })
				if err != nil {
					return row{}, err
				}
				walk, _, err := timed(func() error {
					_, err := plain.Take(ctx, nil, checkpoints.Meta{Reason: checkpoints.AfterTool, Look: checkpoints.LookChanged}, nil)
					return err
				})
				if err := errors.Join(err, plain.Close(), os.RemoveAll(store)); err != nil {
					return row{}, err
				}
				if i >= warmup {
					firsts, captures, eagers = append(firsts, first), append(captures, capture), append(eagers, eager)
					unchanged, walks, edits = append(unchanged, still), append(walks, walk), append(edits, edit)
					commands, requests = append(commands, changed), append(requests, request)
				}
			}
			return row{title: title, target: target, runs: runs, wall: medianOf(unchanged),
				notes: fmt.Sprintf("first checkpoint %s (%d files by their stat), their content read in the background in %s (read at once instead: %s); "+
					"after a command: %s when it changed nothing, %s when it changed a file (without a watcher: %s); after WRITE_FILE %s; "+
					"before a later request (every directory read) %s; after READ_FILE and the other tools that change nothing: none",
					ms(medianOf(firsts)), deferred, ms(medianOf(captures)), ms(medianOf(eagers)),
					ms(medianOf(unchanged)), ms(medianOf(commands)), ms(medianOf(walks)), ms(medianOf(edits)), ms(medianOf(requests)))}, nil
		},
	}
}
