//go:build unix

package tools

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// Env.Live sees a command's output while the command still runs: the
// command waits for a file the test creates only once "first" came live.
func TestCommandOutputComesLive(t *testing.T) {
	t.Parallel()
	env := newEnv(t, nil)
	var mu sync.Mutex
	var live strings.Builder
	firstSeen := make(chan struct{})
	var once sync.Once
	env.Live = func(p []byte) {
		mu.Lock()
		live.Write(p)
		seen := strings.Contains(live.String(), "first")
		mu.Unlock()
		if seen {
			once.Do(func() { close(firstSeen) })
		}
	}
	release := filepath.Join(env.Dir, "go-on")
	go func() {
		select {
		case <-firstSeen:
			os.WriteFile(release, nil, 0o644)
		case <-time.After(30 * time.Second):
		}
	}()
	r := runTool(t, CommandTool{}, env, "echo first; while [ ! -e go-on ]; do sleep 0.01; done; echo second >&2")
	if !r.OK {
		t.Fatalf("the command did not finish well (the live output never came?): %+v", r)
	}
	mu.Lock()
	defer mu.Unlock()
	if live.String() != "first\nsecond\n" {
		t.Errorf("live output %q", live.String())
	}
	if !strings.Contains(r.Output, "first\nsecond") {
		t.Errorf("the result lost output: %q", r.Output)
	}
}
