package checkpoints

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// workspace writes a project of n source files of about 2 KB, 100 to a
// directory, in a git work tree with a .gitignore, last modified an hour
// ago (as a checked-out project is).
func workspace(b testing.TB, dir string, n int) {
	b.Helper()
	old := time.Now().Add(-time.Hour)
	must(b, os.MkdirAll(filepath.Join(dir, ".git"), 0o755))
	// The .gitignore too: a file modified within 2 s of a snapshot is
	// read again by the next (racy, see index.go), and a workspace
	// written that fast failed BenchmarkSnapshotUnchanged10k.
	ignore := filepath.Join(dir, ".gitignore")
	must(b, os.WriteFile(ignore, []byte("*.o\n/build/\n"), 0o644))
	must(b, os.Chtimes(ignore, old, old))
	for i := range n {
		sub := filepath.Join(dir, fmt.Sprintf("pkg%03d", i/100))
		if i%100 == 0 {
			must(b, os.MkdirAll(sub, 0o755))
		}
		p := filepath.Join(sub, fmt.Sprintf("file%03d.go", i%100))
		must(b, os.WriteFile(p, []byte(source(i, 0)), 0o644))
		must(b, os.Chtimes(p, old, old))
	}
}

// source is about 2 KB of Go, version v of file i.
func source(i, v int) string {
	var s strings.Builder
	fmt.Fprintf(&s, "package pkg%03d\n\n// File %d, version %d.\n", i/100, i, v)
	for j := range 40 {
		fmt.Fprintf(&s, "func f%d_%d(x int) int { return x*%d + %d }\n", i, j, j, v)
	}
	return s.String()
}

func snapshotStore(b *testing.B, files int) (*Store, string) {
	work := b.TempDir()
	workspace(b, work, files)
	s, err := Open(filepath.Join(b.TempDir(), "checkpoints"), work, Options{})
	must(b, err)
	_, err = s.Snapshot(context.Background())
	must(b, err)
	return s, work
}

// The first checkpoint of a session in a 10,000-file workspace: every
// file is read and stored.
func BenchmarkFirstSnapshot10k(b *testing.B) {
	work := b.TempDir()
	workspace(b, work, 10_000)
	ctx := context.Background()
	var cpu time.Duration
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		dir := filepath.Join(b.TempDir(), "checkpoints")
		s, err := Open(dir, work, Options{})
		must(b, err)
		b.StartTimer()
		start := cpuTime()
		sc, err := s.Snapshot(ctx)
		cpu += cpuTime() - start
		if err != nil || sc.Hashed != 10_001 {
			b.Fatalf("%+v %v", sc, err)
		}
		b.StopTimer()
		b.ReportMetric(float64(dirSize(b, dir))/(1<<20), "MB-stored")
		b.ReportMetric(float64(sc.Bytes)/(1<<20), "MB-files")
		must(b, os.RemoveAll(dir))
		b.StartTimer()
	}
	b.ReportMetric(float64(cpu)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
}

// The same as the app takes it (Options.Lazy): the files are recorded by
// their stat; reading them is BenchmarkCapture10k.
func BenchmarkFirstSnapshot10kLazy(b *testing.B) {
	work := b.TempDir()
	workspace(b, work, 10_000)
	ctx := context.Background()
	var cpu time.Duration
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		dir := filepath.Join(b.TempDir(), "checkpoints")
		s, err := Open(dir, work, Options{Lazy: true, Now: settled})
		must(b, err)
		s.holdCapture = true
		b.StartTimer()
		start := cpuTime()
		tk, err := s.Take(ctx, nil, Meta{Reason: BeforeRequest}, nil)
		cpu += cpuTime() - start
		if err != nil || tk.Scan.Deferred != 10_001 {
			b.Fatalf("%+v %v", tk.Scan, err)
		}
		b.StopTimer()
		s.Close()
		must(b, os.RemoveAll(dir))
		b.StartTimer()
	}
	b.ReportMetric(float64(cpu)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
}

// Reading the content a lazy first snapshot of 10,000 files deferred, as
// the background capture does (Protect).
func BenchmarkCapture10k(b *testing.B) {
	work := b.TempDir()
	workspace(b, work, 10_000)
	ctx := context.Background()
	var cpu time.Duration
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		dir := filepath.Join(b.TempDir(), "checkpoints")
		s, err := Open(dir, work, Options{Lazy: true, Now: settled})
		must(b, err)
		s.holdCapture = true
		_, err = s.Take(ctx, nil, Meta{Reason: BeforeRequest}, nil)
		must(b, err)
		b.StartTimer()
		start := cpuTime()
		err = s.Protect(ctx)
		cpu += cpuTime() - start
		if err != nil || s.Pending() != 0 {
			b.Fatalf("%d pending, %v", s.Pending(), err)
		}
		b.StopTimer()
		s.Close()
		must(b, os.RemoveAll(dir))
		b.StartTimer()
	}
	b.ReportMetric(float64(cpu)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
}

// A checkpoint of a 10,000-file workspace where nothing changed (SPEC
// §12: at most 50 ms), in the process that took the last one.
func BenchmarkSnapshotUnchanged10k(b *testing.B) {
	s, _ := snapshotStore(b, 10_000)
	ctx := context.Background()
	b.ResetTimer()
	cpu := cpuTime()
	for range b.N {
		sc, err := s.Snapshot(ctx)
		if err != nil || sc.Hashed != 0 || sc.Files != 10_001 {
			b.Fatalf("%+v %v", sc, err)
		}
	}
	reportCPU(b, cpu)
}

// reportCPU adds the CPU time per operation since cpu.
func reportCPU(b *testing.B, cpu time.Duration) {
	b.ReportMetric(float64(cpuTime()-cpu)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
}

// The same in a new process (dev rewind, dev --resume): the stat cache
// comes from disk.
func BenchmarkSnapshotUnchanged10kCold(b *testing.B) {
	s, _ := snapshotStore(b, 10_000)
	ctx := context.Background()
	b.ResetTimer()
	cpu := cpuTime()
	for range b.N {
		cold, err := Open(s.dir, s.workDir, Options{})
		must(b, err)
		sc, err := cold.Snapshot(ctx)
		if err != nil || sc.Hashed != 0 {
			b.Fatalf("%+v %v", sc, err)
		}
	}
	reportCPU(b, cpu)
}

// A checkpoint after a step that changed 10 of the 10,000 files.
func BenchmarkSnapshot10Changed10k(b *testing.B) {
	s, work := snapshotStore(b, 10_000)
	ctx := context.Background()
	b.ResetTimer()
	var cpu time.Duration
	for i := range b.N {
		b.StopTimer()
		for k := range 10 {
			f := (i*10 + k) * 97 % 10_000
			p := filepath.Join(work, fmt.Sprintf("pkg%03d", f/100), fmt.Sprintf("file%03d.go", f%100))
			must(b, os.WriteFile(p, []byte(source(f, i+1)), 0o644))
		}
		b.StartTimer()
		start := cpuTime()
		sc, err := s.Snapshot(ctx)
		cpu += cpuTime() - start
		if err != nil || sc.Hashed < 10 {
			b.Fatalf("%+v %v", sc, err)
		}
	}
	b.ReportMetric(float64(cpu)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
}

// The on-disk size of a 300-step session's checkpoints: a request
// checkpoint, then every step appends a reply and a tool result to the
// history, and one step in three changes a file (writes one, edits one,
// or a command rewrites one), as in bench's 300-step scenario. Reported
// for a small project and for the 10,000-file one (whose first
// checkpoint is a compressed copy of the project).
func BenchmarkSession300Steps(b *testing.B) {
	for _, size := range []int{10, 10_000} {
		b.Run(fmt.Sprintf("%d-files", size), func(b *testing.B) {
			for range b.N {
				work := b.TempDir()
				workspace(b, work, size)
				dir := filepath.Join(b.TempDir(), "checkpoints")
				s, err := Open(dir, work, Options{Lazy: true, Watch: true})
				must(b, err)
				session300(b, s, work)
				must(b, s.Close())
				b.ReportMetric(float64(dirSize(b, dir))/1024, "KB-on-disk")
				b.ReportMetric(float64(dirSize(b, work))/1024, "KB-project")
			}
		})
	}
}

func session300(b *testing.B, s *Store, work string) {
	ctx := context.Background()
	var list []Checkpoint
	history := [][]byte{[]byte("<user_request>work through the scripted steps</user_request>")}
	rest := func(i int) []byte {
		return []byte(fmt.Sprintf(`{"taskList":[{"status":"in-progress","text":"step %d"}],"audits":[]}`, i))
	}
	take := func(m Meta, i int) {
		tk, err := s.Take(ctx, list, m, func() State { return State{Messages: history, Rest: rest(i)} })
		must(b, err)
		if tk.New {
			list = append(list, tk.Checkpoint)
		}
	}
	take(Meta{Reason: BeforeRequest}, 0)
	for i := 1; i <= 300; i++ {
		// As the app does: the first checkpoint's content is stored
		// before a tool changes files; after a tool, the checkpoint looks
		// where it may have changed something, and after one that changes
		// nothing not at all.
		m := Meta{Reason: AfterTool, Step: i, Tool: "READ_FILE"}
		if i%6 >= 2 && i%6 <= 4 {
			must(b, s.Protect(ctx))
		}
		switch i % 6 {
		case 2: // WRITE_FILE of a new file
			p := filepath.Join(work, "out", fmt.Sprintf("%d.txt", i))
			m.Tool, m.Look, m.Paths = "WRITE_FILE", LookPaths, []string{p}
			body := strings.Repeat(fmt.Sprintf("result line of step %d\n", i), 12) + "status: draft\n"
			must(b, os.MkdirAll(filepath.Dir(p), 0o755))
			must(b, os.WriteFile(p, []byte(body), 0o644))
		case 3: // FIND_AND_REPLACE_IN_FILE on it
			p := filepath.Join(work, "out", fmt.Sprintf("%d.txt", i-1))
			m.Tool, m.Look, m.Paths = "FIND_AND_REPLACE_IN_FILE", LookPaths, []string{p}
			data, err := os.ReadFile(p)
			must(b, err)
			must(b, os.WriteFile(p, []byte(strings.Replace(string(data), "status: draft", "status: final", 1)), 0o644))
		case 4: // a COMMAND that rewrites a source file
			m.Tool, m.Look = "COMMAND", LookChanged
			f := i % 10
			p := filepath.Join(work, fmt.Sprintf("pkg%03d", f/100), fmt.Sprintf("file%03d.go", f%100))
			must(b, os.WriteFile(p, []byte(source(f, i)), 0o644))
		}
		history = append(history,
			[]byte(fmt.Sprintf("Thoughts: step %d of the plan: keep going with the next part of the work.\nTool: %s", i, m.Tool)),
			[]byte(fmt.Sprintf("<tool_result tool=%q ok=\"true\">\n%s</tool_result>", m.Tool, strings.Repeat(fmt.Sprintf("output of step %d\n", i), 20))))
		if m.Tool != "READ_FILE" {
			take(m, i)
		}
	}
	if len(list) < 150 {
		b.Fatalf("%d checkpoints", len(list))
	}
}
