//go:build unix

package e2e

import (
	"strings"
	"syscall"
	"testing"

	"github.com/devagent/dev/llm/llmtest"
)

// Ctrl+C during a probe ends dev doctor at once with 130, the checks not
// made marked as such.
func TestDoctorInterrupt(t *testing.T) {
	w := newWorld(t, nil)
	w.srv.Impersonate(llmtest.LlamaCpp, 32768)
	w.srv.Respond(func(llmtest.Request) (llmtest.Response, bool) {
		return llmtest.Response{Content: "O", Hang: true}, true
	})
	cmd, stdout, stderr := w.startUntilHanging("doctor")
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	if exit, ok := err.(interface{ ExitCode() int }); !ok || exit.ExitCode() != 130 {
		t.Fatalf("exit: %v, want 130; stdout:\n%s\nstderr:\n%s", err, stdout, stderr)
	}
	if !strings.Contains(stdout.String(), "  skip  streaming  not checked: interrupted\n") {
		t.Errorf("stdout:\n%s", stdout)
	}
}
