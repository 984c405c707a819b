package ui

import (
	"bytes"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/devagent/dev/event"
)

func backgroundScript() []event.Event {
	return []event.Event{
		event.BackgroundStarted{ID: "proc_ab12cd", Command: "npm run dev\nsecond line", PID: 42},
		event.BackgroundExited{ID: "proc_ab12cd", Command: "npm run dev", Status: "exited", ExitCode: 0, Runtime: 45 * time.Second},
		event.BackgroundExited{ID: "proc_x9y8z7", Command: "go test ./...", Status: "exited", ExitCode: 1, Runtime: 3*time.Minute + 4*time.Second},
		event.BackgroundExited{ID: "proc_k1ll3d", Command: "sleep 300", Status: "killed", ExitCode: -1, Runtime: 12 * time.Second},
		event.BackgroundExited{ID: "proc_s1gn4l", Command: "crash", Status: "exited", ExitCode: -1, Runtime: 2 * time.Second},
	}
}

func renderBackground(level Verbosity, s *Streams) string {
	var buf bytes.Buffer
	s.Err = &buf
	t := NewTerminal(s, level)
	for _, e := range backgroundScript() {
		t.Emit(e)
	}
	return buf.String()
}

func TestTerminalBackground(t *testing.T) {
	t.Parallel()
	want := `◇ proc_ab12cd runs in the background: npm run dev
◇ proc_ab12cd exited with code 0 after 45s: npm run dev
◇ proc_x9y8z7 exited with code 1 after 3m4s: go test ./...
◇ proc_k1ll3d killed after 12s: sleep 300
◇ proc_s1gn4l ended by a signal after 2s: crash
`
	if got := renderBackground(Normal, &Streams{Width: 80, Unicode: true}); got != want {
		t.Errorf("normal:\n%s\nwant:\n%s", got, want)
	}
	// Quiet keeps the exits: they happen while nothing else is shown.
	quiet := renderBackground(Quiet, &Streams{Width: 80, Unicode: false})
	if strings.Contains(quiet, "runs in the background") || !strings.HasPrefix(quiet, "* proc_ab12cd exited with code 0 after 45s: npm run dev\n") {
		t.Errorf("quiet:\n%s", quiet)
	}
	narrow := renderBackground(Normal, &Streams{Width: 40, Unicode: true})
	if !strings.Contains(narrow, "◇ proc_ab12cd runs in the background: npm run d…\n") {
		t.Errorf("the command is not clipped (to at least 10 columns) at width 40:\n%s", narrow)
	}
	colour := renderBackground(Normal, &Streams{Width: 80, Unicode: true, Color: true})
	if !strings.Contains(colour, "\x1b[36m◇ proc_ab12cd runs") || !strings.Contains(colour, "\x1b[33m◇ proc_x9y8z7 exited with code 1") {
		t.Errorf("colours:\n%q", colour)
	}
}

// Background events arrive from other goroutines while the loop emits.
func TestTerminalConcurrentEmit(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	term := NewTerminal(&Streams{Err: &buf, Width: 80, Unicode: true}, Normal)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 50 {
				for _, e := range backgroundScript() {
					term.Emit(e)
				}
			}
		})
	}
	wg.Wait()
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	if len(lines) != 4*50*5 {
		t.Fatalf("%d lines, want %d", len(lines), 4*50*5)
	}
	for _, l := range lines {
		if !strings.HasPrefix(l, "◇ proc_") {
			t.Fatalf("mangled line %q", l)
		}
	}
}

func TestJSONBackgroundEvents(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	j := NewJSON(&buf)
	for _, e := range backgroundScript()[:4] {
		j.Emit(e)
	}
	var got []map[string]any
	for _, line := range strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n") {
		var ev map[string]any
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("not JSON: %s", line)
		}
		got = append(got, ev)
	}
	want := []map[string]any{
		{"type": "background_start", "id": "proc_ab12cd", "command": "npm run dev\nsecond line", "pid": 42.0},
		{"type": "background_exit", "id": "proc_ab12cd", "command": "npm run dev", "status": "exited", "exitCode": 0.0, "runtimeSeconds": 45.0},
		{"type": "background_exit", "id": "proc_x9y8z7", "command": "go test ./...", "status": "exited", "exitCode": 1.0, "runtimeSeconds": 184.0},
		{"type": "background_exit", "id": "proc_k1ll3d", "command": "sleep 300", "status": "killed", "exitCode": -1.0, "runtimeSeconds": 12.0},
	}
	if len(got) != len(want) {
		t.Fatalf("%d events, want %d", len(got), len(want))
	}
	for i := range want {
		if len(got[i]) != len(want[i]) {
			t.Errorf("event %d has fields %v, want %v", i, got[i], want[i])
		}
		for k, v := range want[i] {
			if got[i][k] != v {
				t.Errorf("event %d: %s = %v, want %v", i, k, got[i][k], v)
			}
		}
	}
}
