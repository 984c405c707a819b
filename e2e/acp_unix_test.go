//go:build unix

package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/devagent/dev/bgproc/bgproctest"
)

// longCommand records the pids of its shell and of a child it leaves in
// the background, then waits: stopping it must stop both, its whole
// process group.
const longCommand = "sleep 300 & echo $! > child.txt; echo $$ > pid.txt; touch started; wait"

// promptUntilStarted sends a prompt whose command is longCommand and
// returns once the command runs, with the channel the prompt's answer
// comes on.
func (e *editor) promptUntilStarted(w *world, id sdk.SessionId) (answer chan error, stop chan sdk.StopReason, pids []int) {
	answer, stop = make(chan error, 1), make(chan sdk.StopReason, 1)
	go func() {
		resp, err := e.prompt(id, "wait for it")
		stop <- resp.StopReason
		answer <- err
	}()
	bgproctest.WaitFor(e.t, "the command to start", func() bool {
		_, err := os.Stat(filepath.Join(w.dir, "started"))
		return err == nil
	})
	return answer, stop, []int{bgproctest.PID(e.t, filepath.Join(w.dir, "pid.txt")), bgproctest.PID(e.t, filepath.Join(w.dir, "child.txt"))}
}

func TestACPCancelDuringLongCommand(t *testing.T) {
	w := newWorld(t, map[string]any{"audit": "off", "commandTimeout": 300})
	w.srv.Script(reply("Wait.", "COMMAND", longCommand), done("never"))
	e := w.startEditor()
	id := e.newSession(w.dir)
	answer, stop, pids := e.promptUntilStarted(w, id)
	if err := e.conn.Cancel(e.ctx(), sdk.CancelNotification{SessionId: id}); err != nil {
		t.Fatal(err)
	}
	select {
	case reason := <-stop:
		if err := <-answer; err != nil || reason != sdk.StopReasonCancelled {
			t.Fatalf("the cancelled prompt answered %q, %v; want cancelled", reason, err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the prompt did not answer its cancel")
	}
	for _, pid := range pids {
		bgproctest.WaitFor(t, "the command's process group to be gone", func() bool { return bgproctest.Gone(pid) })
	}
	s := w.onlySession()
	if s.Status != "interrupted" {
		t.Errorf("session status %q, want interrupted", s.Status)
	}
	calls := toolCalls(e.received(id))
	if len(calls) != 1 || calls[0].Kind != sdk.ToolKindExecute {
		t.Fatalf("tool calls %+v", calls)
	}
	ups := toolUpdates(e.received(id), calls[0].ToolCallId)
	if len(ups) == 0 || ups[len(ups)-1].Status == nil || *ups[len(ups)-1].Status != sdk.ToolCallStatusFailed {
		t.Errorf("the interrupted command's updates %+v: want it failed", ups)
	}
	// The session goes on: a prompt after the cancel works in it.
	w.srv.Script(done("Stopped waiting."))
	if resp, err := e.prompt(id, "never mind"); err != nil || resp.StopReason != sdk.StopReasonEndTurn {
		t.Errorf("the next prompt: %+v, %v", resp, err)
	}
}

func TestACPClosedPipe(t *testing.T) {
	w := newWorld(t, map[string]any{"audit": "off", "commandTimeout": 300})
	w.srv.Script(reply("Wait.", "COMMAND", longCommand), done("never"))
	e := w.startEditor()
	id := e.newSession(w.dir)
	_, _, pids := e.promptUntilStarted(w, id)
	if code := e.close(); code != 0 {
		t.Errorf("exit code %d when the editor closed the pipe", code)
	}
	for _, pid := range pids {
		if !bgproctest.Gone(pid) {
			t.Errorf("process %d outlived dev acp", pid)
		}
	}
	if s := w.onlySession(); s.ID != string(id) || s.Status != "interrupted" {
		t.Errorf("session %s: %s, want interrupted", s.ID, s.Status)
	}
}

func TestACPTerminated(t *testing.T) {
	w := newWorld(t, map[string]any{"audit": "off", "commandTimeout": 300})
	w.srv.Script(reply("Wait.", "COMMAND", longCommand), done("never"))
	e := w.startEditor()
	id := e.newSession(w.dir)
	_, _, pids := e.promptUntilStarted(w, id)
	if err := e.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := e.wait(); code != 130 {
		t.Errorf("exit code %d after SIGTERM, want 130", code)
	}
	for _, pid := range pids {
		if !bgproctest.Gone(pid) {
			t.Errorf("process %d outlived dev acp", pid)
		}
	}
	if s := w.onlySession(); s.Status != "interrupted" {
		t.Errorf("session %s, want interrupted", s.Status)
	}
}

func TestACPCommandOutputWhileItRuns(t *testing.T) {
	w := newWorld(t, map[string]any{"audit": "off", "commandTimeout": 300})
	w.srv.Script(reply("Build.", "COMMAND", "echo step one; while [ ! -e go-on ]; do sleep 0.05; done; echo finished"), done("Built."))
	e := w.startEditor()
	id := e.newSession(w.dir)
	answer := make(chan error, 1)
	go func() { _, err := e.prompt(id, "build it"); answer <- err }()
	seen := func(text string) bool {
		for _, u := range e.received(id) {
			if u.ToolCallUpdate == nil {
				continue
			}
			for _, c := range u.ToolCallUpdate.Content {
				if c.Content != nil && c.Content.Content.Text != nil && strings.Contains(c.Content.Content.Text.Text, text) {
					return true
				}
			}
		}
		return false
	}
	bgproctest.WaitFor(t, "the command's first line in the editor while it runs", func() bool { return seen("step one") })
	if seen("finished") {
		t.Fatal("the command finished before it was told to")
	}
	if err := os.WriteFile(filepath.Join(w.dir, "go-on"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := <-answer; err != nil {
		t.Fatal(err)
	}
	if !seen("finished") {
		t.Error("the command's result is not in the editor")
	}
}
