//go:build unix

package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/devagent/dev/llm/llmtest"
)

func TestInterruptDuringStream(t *testing.T) {
	w := newWorld(t, nil)
	w.srv.Script(llmtest.Response{Content: llmtest.Reply("Thinking hard about it", "DONE", "never"), Hang: true})
	cmd, stdout, stderr := w.command(t.Context(), "-p", "take your time")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-w.srv.Hanging():
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("the request never reached the server; stderr:\n%s", stderr)
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	code := 0
	if exit, ok := err.(interface{ ExitCode() int }); ok {
		code = exit.ExitCode()
	}
	if code != 130 {
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
	cmd, _, stderr := w.command(t.Context(), "-p", "hold the session")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	select {
	case <-w.srv.Hanging():
	case <-time.After(30 * time.Second):
		t.Fatalf("first dev never reached the server; stderr:\n%s", stderr)
	}
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
	waitFor(t, "the command to start", func() bool { _, err := os.Stat(started); return err == nil })
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	if exit, ok := err.(interface{ ExitCode() int }); !ok || exit.ExitCode() != 130 {
		t.Fatalf("exit: %v, want 130; stderr:\n%s", err, stderr)
	}
	if stdout.Len() != 0 {
		t.Errorf("stdout = %q", stdout)
	}
	var pid int
	if _, err := fmt.Sscan(w.read("pid.txt"), &pid); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the command's process to be gone", func() bool { return syscall.Kill(pid, 0) != nil })
	s := w.onlySession()
	if s.Status != "interrupted" {
		t.Errorf("status %q", s.Status)
	}
	if last := s.History[len(s.History)-1]; last.Role != "user" || !strings.Contains(last.Content, "interrupted") {
		t.Errorf("last message %+v", last)
	}
}
