package app

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/devagent/dev/checkpoints"
	"github.com/devagent/dev/event"
)

// A checkpoint looks only where a tool may have changed something: not
// at all after a tool that reads, at its paths after a file tool, where
// things changed after a command (SPEC §12).
func TestCheckpointsLookWhereToolsChange(t *testing.T) {
	w := newWorld(t)
	old := time.Now().Add(-time.Hour)
	for i := range 50 {
		p := filepath.Join(w.opts.Dir, fmt.Sprintf("d%d", i%5), fmt.Sprintf("f%d.txt", i))
		must(t, os.MkdirAll(filepath.Dir(p), 0o755))
		must(t, os.WriteFile(p, []byte(fmt.Sprint(i)), 0o644))
		must(t, os.Chtimes(p, old, old))
	}
	w.srv.Script(
		reply("READ_FILE", "d0/f0.txt"),
		reply("LIST_DIRECTORY", "."),
		reply("UPDATE_TASK_LIST", ""),
		reply("WRITE_FILE", "d1/new.txt\n```\nnew\n```"),
		reply("COMMAND", "echo changed > d2/f2.txt"),
		reply("DONE", "Done."),
	)
	a := w.open()
	if res := a.Run(context.Background(), "do it"); res.Code != ExitOK {
		t.Fatalf("result %+v", res)
	}
	c := a.Timeline().Counts()
	// Before the request: every directory; after WRITE_FILE: its path;
	// after COMMAND: where things changed, which on a tree this small
	// (no watcher, see checkpoints.Options.Watch) is everywhere.
	all, changed, paths := c.Scans[checkpoints.LookAll], c.Scans[checkpoints.LookChanged], c.Scans[checkpoints.LookPaths]
	if all+changed != 2 || all < 1 || paths != 1 {
		t.Errorf("snapshots by where they looked (all, changed, paths): %v, want 2 of all or changed and 1 of paths", c.Scans)
	}
	// Two walks of the 55 names, and WRITE_FILE's one file.
	if c.Statted > 2*56+1 {
		t.Errorf("%d stats taken", c.Statted)
	}
	got := map[string]string{}
	for _, f := range eventsOf[event.ToolFinished](w.rec) {
		var files []string
		for _, fc := range f.Files {
			files = append(files, fc.Change+" "+fc.Path)
		}
		got[f.Result.Tool] = strings.Join(files, ",")
	}
	if got["WRITE_FILE"] != "added d1/new.txt" || got["COMMAND"] != "modified d2/f2.txt" {
		t.Errorf("files of the tools: %q", got)
	}
	if n := len(a.Session().Checkpoints); n != 3 {
		t.Errorf("%d checkpoints, want 3 (before the request, WRITE_FILE, COMMAND)", n)
	}
}

// The first checkpoint records the project by its files' stat; a command
// that changes a file waits until their content is stored, so a rewind
// restores it. (A command of this package's tests can be stopped by
// another test's App.Close, which stops the children of the process:
// this one is kept short.)
func TestCheckpointsRewindAfterLazyFirst(t *testing.T) {
	w := newWorld(t)
	old := time.Now().Add(-time.Hour)
	for i := range 100 {
		p := filepath.Join(w.opts.Dir, fmt.Sprintf("d%d", i%10), fmt.Sprintf("f%d.txt", i))
		must(t, os.MkdirAll(filepath.Dir(p), 0o755))
		must(t, os.WriteFile(p, []byte(fmt.Sprintf("original %d\n", i)), 0o644))
		must(t, os.Chtimes(p, old, old))
	}
	w.srv.Script(reply("COMMAND", "for f in d*/f*.txt; do echo changed > $f; done"), reply("DONE", "Done."))
	// A second ahead: the files' inodes changed just now, yet they are
	// recorded by their stat, as a checked-out project's are.
	w.opts.Now = func() time.Time { return time.Now().Add(time.Second) }
	a := w.open()
	if res := a.Run(context.Background(), "do it"); res.Code != ExitOK {
		t.Fatalf("result %+v", res)
	}
	tl := a.Timeline()
	if c := tl.Counts(); c.Deferred != 100 {
		t.Errorf("the first checkpoint deferred %d files, want 100", c.Deferred)
	}
	plan, err := tl.Plan(context.Background(), 0)
	must(t, err)
	if len(plan.Restore.Lost) != 0 || len(plan.Restore.Changes) != 100 {
		t.Fatalf("plan: %d changes, %d lost", len(plan.Restore.Changes), len(plan.Restore.Lost))
	}
	if _, err := tl.Rewind(context.Background(), 0, true); err != nil {
		t.Fatal(err)
	}
	for _, i := range []int{0, 50, 99} {
		p := filepath.Join(w.opts.Dir, fmt.Sprintf("d%d", i%10), fmt.Sprintf("f%d.txt", i))
		if data, _ := os.ReadFile(p); string(data) != fmt.Sprintf("original %d\n", i) {
			t.Errorf("%s after the rewind: %q", p, data)
		}
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// A file tool's edit carries the file's text before and after it, masked
// like its diff; a command's change carries none (SPEC §20: an editor
// shows an edit whole).
func TestEditsCarryTheirTexts(t *testing.T) {
	w := newWorld(t)
	must(t, os.WriteFile(filepath.Join(w.opts.Dir, "a.txt"), []byte("one\ntwo\n"), 0o644))
	w.opts.Config.APIKey = "s3cr3t-value-42"
	w.srv.Script(
		reply("FIND_AND_REPLACE_IN_FILE", "a.txt\n```find\ntwo\n```\n```replace\ns3cr3t-value-42\n```"),
		reply("WRITE_FILE", "b.txt\n```\nnew\n```"),
		reply("COMMAND", "echo x > c.txt"),
		reply("DONE", "Done."),
	)
	a := w.open()
	if res := a.Run(context.Background(), "do it"); res.Code != ExitOK {
		t.Fatalf("result %+v", res)
	}
	got := map[string]event.FileChange{}
	for _, f := range eventsOf[event.ToolFinished](w.rec) {
		for _, fc := range f.Files {
			got[fc.Path] = fc
		}
	}
	if f := got["a.txt"]; !f.Texts || f.Old != "one\ntwo\n" || !strings.HasPrefix(f.New, "one\n[REDACTED:") || strings.Contains(f.New, "s3cr3t") {
		t.Errorf("the edit of a.txt: %+v", f)
	}
	if f := got["b.txt"]; !f.Texts || f.Change != "added" || f.Old != "" || f.New != "new\n" {
		t.Errorf("the new b.txt: %+v", f)
	}
	if f := got["c.txt"]; f.Texts || f.New != "" {
		t.Errorf("a command's change carries texts: %+v", f)
	}
}
