//go:build unix

package bgproc

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/devagent/dev/bgproc/bgproctest"
)

// A command that outlives its time with no Background to take it is
// stopped, its whole group, KILL after the grace when TERM is ignored.
func TestForegroundTimeoutKillsWhatIgnoresTerm(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	f := Foreground{Timeout: 300 * time.Millisecond, Grace: 200 * time.Millisecond}
	// Ignored signals stay ignored across exec: sleep ignores TERM too.
	start := time.Now()
	var out bytes.Buffer
	ended, err := f.Run(context.Background(), Command{Line: "trap '' TERM; sleep 30 & echo $! > child.pid; wait", Dir: dir}, &out)
	if err != nil {
		t.Fatal(err)
	}
	if elapsed := time.Since(start); elapsed < 500*time.Millisecond || elapsed > 5*time.Second {
		t.Errorf("took %v; want the timeout plus the grace period", elapsed)
	}
	if ended.How != TimedOut {
		t.Errorf("ended %v, want TimedOut", ended.How)
	}
	pid := bgproctest.PID(t, filepath.Join(dir, "child.pid"))
	bgproctest.WaitFor(t, "the child is gone", func() bool { return bgproctest.Gone(pid) })
}
