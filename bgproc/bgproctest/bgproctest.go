// Package bgproctest helps tests that start processes: waiting for a
// condition with a deadline instead of sleeping, reading the pid a process
// wrote, and telling whether a process is gone.
package bgproctest

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Deadline is how long WaitFor waits: long enough for a loaded CI machine,
// and only reached when something is wrong.
const Deadline = 30 * time.Second

// WaitFor polls cond until it holds, failing tb after Deadline.
func WaitFor(tb testing.TB, what string, cond func() bool) {
	tb.Helper()
	deadline := time.Now().Add(Deadline)
	for !cond() {
		if time.Now().After(deadline) {
			tb.Fatalf("timed out waiting until %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// PID reads the pid a process wrote to path (`echo $$ > path`), waiting
// until the file holds a whole line.
func PID(tb testing.TB, path string) int {
	tb.Helper()
	var pid int
	WaitFor(tb, path+" holds a pid", func() bool {
		b, err := os.ReadFile(path)
		if err != nil || !strings.HasSuffix(string(b), "\n") {
			return false
		}
		pid, err = strconv.Atoi(strings.TrimSpace(string(b)))
		return err == nil
	})
	return pid
}
