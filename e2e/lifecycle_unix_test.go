//go:build unix

package e2e

import (
	"bufio"
	"context"
	"io"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/devagent/dev/bgproc/bgproctest"
	"github.com/devagent/dev/llm/llmtest"
)

// A reader of stdout that goes away (dev -p … --json | head -1) stops dev
// like an interrupt: exit 130 and the session saved as interrupted, never
// left active.
func TestClosedStdoutStopsLikeAnInterrupt(t *testing.T) {
	w := newWorld(t, nil)
	closed := make(chan struct{})
	w.srv.Script(
		llmtest.Response{Respond: func(ctx context.Context, _ llmtest.Request) llmtest.Response {
			select { // answer once the reader is gone, so that dev writes to a closed pipe
			case <-closed:
			case <-ctx.Done():
			}
			return reply("Look around.", "LIST_DIRECTORY", ".")
		}},
		done("Should not get here."),
	)
	cmd, _, stderr := w.command(t.Context(), "--no-audit", "--json", "-p", "look")
	cmd.Stdout = nil
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	first, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || !strings.Contains(first, `"type":"session"`) {
		t.Fatalf("first line %q, %v", first, err)
	}
	out.Close() // head -1 has what it wanted
	close(closed)
	if code := exitCode(t, cmd); code != 130 {
		t.Fatalf("exit code %d, want 130; stderr:\n%s", code, stderr)
	}
	if s := w.onlySession(); s.Status != "interrupted" {
		t.Errorf("status %q, want interrupted", s.Status)
	}
	if n := len(w.srv.Requests()); n != 1 {
		t.Errorf("%d requests: dev went on working after its reader left", n)
	}
}

// A signal at the interactive prompt, with no request running, ends dev at
// once (exit 130), stopping the background processes it started: SIGTERM,
// and SIGHUP (the terminal closed), which used to leave them running.
func TestSignalAtThePromptEndsDevAndItsProcesses(t *testing.T) {
	t.Parallel()
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGHUP} {
		t.Run(sig.String(), func(t *testing.T) { signalAtThePrompt(t, sig) })
	}
}

func signalAtThePrompt(t *testing.T, sig syscall.Signal) {
	w := newWorld(t, map[string]any{"commandTimeout": 1})
	w.srv.Script(reply("Serve.", "COMMAND", "echo $$ > pid; exec sleep 300"), done("Started."))
	cmd, _, _ := w.command(t.Context(), "--no-audit")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = nil
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(stdin, "start a server\n"); err != nil {
		t.Fatal(err)
	}
	// The prompt comes back after the answer: read stderr up to the second one.
	var seen strings.Builder
	buf := make([]byte, 4096)
	for strings.Count(seen.String(), "› ") < 2 {
		n, err := stderr.Read(buf)
		seen.Write(buf[:n])
		if err != nil {
			t.Fatalf("stderr ended before the second prompt: %v\n%s", err, seen.String())
		}
	}
	go io.Copy(io.Discard, stderr)
	if err := cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	if code := exitCode(t, cmd); code != 130 {
		t.Fatalf("exit code %d, want 130", code)
	}
	pid := bgproctest.PID(t, filepath.Join(w.dir, "pid"))
	bgproctest.WaitFor(t, "the background process to be gone", func() bool { return bgproctest.Gone(pid) })
	if s := w.onlySession(); s.Status != "complete" {
		t.Errorf("status %q, want complete", s.Status)
	}
}
