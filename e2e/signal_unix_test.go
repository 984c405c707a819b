//go:build unix

package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/devagent/dev/bgproc/bgproctest"
	"github.com/devagent/dev/llm/llmtest"
)

func TestInterruptDuringStream(t *testing.T) {
	w := newWorld(t, nil)
	w.srv.Script(llmtest.Response{Content: llmtest.Reply("Thinking hard about it", "DONE", "never"), Hang: true})
	cmd, stdout, stderr := w.startUntilHanging("-p", "take your time")
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if code := exitCode(t, cmd); code != 130 {
		t.Fatalf("exit code %d, want 130; stderr:\n%s", code, stderr)
	}
	if stdout.Len() != 0 {
		t.Errorf("stdout = %q", stdout)
	}
	s := w.onlySession()
	if s.Status != "interrupted" {
		t.Errorf("status %q, want interrupted", s.Status)
	}
	if last := s.History[len(s.History)-1]; last.Role != "user" || !strings.Contains(last.Content, "interrupted") {
		t.Errorf("the interruption is not noted in history: %+v", last)
	}
}

func TestSessionInUse(t *testing.T) {
	w := newWorld(t, nil)
	w.srv.Script(llmtest.Response{Content: "x", Hang: true})
	cmd, _, _ := w.startUntilHanging("-p", "hold the session")
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	r := w.run("--resume", "-p", "me too")
	r.expect(t, 2)
	if !strings.Contains(r.stderr, "in use") {
		t.Errorf("stderr:\n%s", r.stderr)
	}
}

func TestInterruptDuringCommand(t *testing.T) {
	w := newWorld(t, nil)
	// The command records its pid, then waits; Ctrl+C must stop it and dev.
	w.srv.Script(reply("Wait.", "COMMAND", "echo $$ > pid.txt; touch started; exec sleep 300"), done("never"))
	cmd, stdout, stderr := w.command(t.Context(), "-p", "wait")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	started := filepath.Join(w.dir, "started")
	bgproctest.WaitFor(t, "the command to start", func() bool { _, err := os.Stat(started); return err == nil })
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if code := exitCode(t, cmd); code != 130 {
		t.Fatalf("exit code %d, want 130; stderr:\n%s", code, stderr)
	}
	if stdout.Len() != 0 {
		t.Errorf("stdout = %q", stdout)
	}
	pid := bgproctest.PID(t, filepath.Join(w.dir, "pid.txt"))
	bgproctest.WaitFor(t, "the command's process to be gone", func() bool { return syscall.Kill(pid, 0) != nil })
	s := w.onlySession()
	if s.Status != "interrupted" {
		t.Errorf("status %q", s.Status)
	}
	if last := s.History[len(s.History)-1]; last.Role != "user" || !strings.Contains(last.Content, "interrupted") {
		t.Errorf("last message %+v", last)
	}
}
