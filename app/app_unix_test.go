//go:build unix

package app

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// After a new session, the auditor keeps the full output of its commands in
// the new session's output directory, like the worker: every part of the run was
// rewired, none kept the old session's environment.
func TestNewSessionAuditorSavesOutputInTheNewSession(t *testing.T) {
	w := newWorld(t)
	w.opts.Automated, w.opts.NoAudit = false, false
	big := strings.Repeat("a line of the big file\n", 2000) // past the 12 KB kept for the model
	if err := os.WriteFile(filepath.Join(w.opts.Dir, "big.txt"), []byte(big), 0o644); err != nil {
		t.Fatal(err)
	}
	a := w.open()
	old := a.Session().ID
	if err := a.NewSession(); err != nil {
		t.Fatal(err)
	}
	w.srv.Script(
		reply("COMMAND", "true"), // the worker ran a command: the audit is due
		reply("DONE", "done"),
		reply("COMMAND", "cat big.txt"), // the auditor's
		reply("DONE", "big.txt is there.\nOverall: PASS"),
	)
	if res := a.Run(context.Background(), "check big.txt"); res.Code != ExitOK || res.Audits != 1 {
		t.Fatalf("run %+v", res)
	}
	saved, _ := filepath.Glob(filepath.Join(a.Store().Dir(a.Session().ID), "output", "command-*.log"))
	if len(saved) != 1 {
		t.Fatalf("the auditor's full output is not in the new session's directory: %v", saved)
	}
	if data, err := os.ReadFile(saved[0]); err != nil || string(data) != big {
		t.Errorf("saved output: %d bytes, %v", len(data), err)
	}
	if stale, _ := filepath.Glob(filepath.Join(a.Store().Dir(old), "output", "command-*.log")); len(stale) != 0 {
		t.Errorf("files in the old session's directory: %v", stale)
	}
}
