//go:build unix

package tools

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/devagent/dev/bgproc"
	"github.com/devagent/dev/bgproc/bgproctest"
)

// bgEnv is an Env whose commands move to a manager after timeout; exits
// receives the manager's exit callbacks.
func bgEnv(t *testing.T, timeout, grace time.Duration) (env *Env, m *bgproc.Manager, exits chan bgproc.Info) {
	t.Helper()
	exits = make(chan bgproc.Info, 10)
	m = bgproc.New(bgproc.Options{Grace: grace, OnExit: func(i bgproc.Info) { exits <- i }})
	t.Cleanup(func() { m.Shutdown() })
	env = newEnv(t, nil)
	env.CommandTimeout = timeout
	env.Background = m
	return env, m, exits
}

func mkfifo(t *testing.T, dir, name string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// open writes a line into a fifo, unblocking the command reading it.
func open(t *testing.T, fifo string) {
	t.Helper()
	f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("go\n")
	f.Close()
}

// waitPid waits until a command has written its pid file, then reads it.
func waitPid(t *testing.T, path string) int {
	t.Helper()
	bgproctest.WaitFor(t, path+" is written", func() bool {
		b, err := os.ReadFile(path)
		return err == nil && strings.HasSuffix(string(b), "\n")
	})
	return bgproctest.PID(t, path)
}

func awaitExit(t *testing.T, exits chan bgproc.Info) bgproc.Info {
	t.Helper()
	select {
	case i := <-exits:
		return i
	case <-time.After(10 * time.Second):
		t.Fatal("the background process did not exit")
		return bgproc.Info{}
	}
}

var backgroundedRE = regexp.MustCompile(`^Command still running after 300 ms: it goes on in the background as (proc_[a-z0-9]{6})\. Output so far:\n`)

// backgrounded checks a COMMAND result for a handover and returns the id.
func backgrounded(t *testing.T, r Result) string {
	t.Helper()
	m := backgroundedRE.FindStringSubmatch(r.Output)
	if !r.OK || r.ExitCode != -1 || m == nil {
		t.Fatalf("not handed over: OK=%v ExitCode=%d %q", r.OK, r.ExitCode, r.Output)
	}
	id := m[1]
	if len(r.Attrs) != 1 || r.Attrs[0] != [2]string{"background", id} {
		t.Errorf("Attrs = %v", r.Attrs)
	}
	if want := "\nREAD_BACKGROUND_PROCESS " + id + " shows what it prints next and whether it ended; KILL_BACKGROUND_PROCESS " + id + " stops it."; !strings.HasSuffix(r.Output, want) {
		t.Errorf("no instructions in %q", r.Output)
	}
	return id
}

func TestCommandMovesToTheBackground(t *testing.T) {
	t.Parallel()
	env, m, exits := bgEnv(t, 300*time.Millisecond, time.Second)
	gate := mkfifo(t, env.Dir, "gate")
	r := runTool(t, CommandTool{}, env, "seq 1 100; read x < gate; seq 101 300; exit 7")
	id := backgrounded(t, r)
	var want strings.Builder
	for i := 1; i <= 100; i++ {
		fmt.Fprintf(&want, "%d\n", i)
	}
	if !strings.Contains(r.Output, "Output so far:\n"+want.String()+"READ_BACKGROUND") {
		t.Errorf("foreground output: %q", r.Output)
	}
	list := runTool(t, ListBackgroundTool{}, env, "")
	if !regexp.MustCompile(`^` + id + ` \(running for \d+(ms|s)\): seq 1 100; read x < gate; seq 101 300; exit 7$`).MatchString(list.Output) {
		t.Errorf("LIST: %q", list.Output)
	}
	read := runTool(t, ReadBackgroundTool{}, env, id)
	if !regexp.MustCompile(`^`+id+` \(seq 1 100; read x < gate; seq 101 300; exit 7\): running for \d+(ms|s)\. No new output since the last read\.$`).MatchString(read.Output) || !read.OK {
		t.Errorf("READ while blocked: %q", read.Output)
	}

	open(t, gate)
	awaitExit(t, exits)
	list = runTool(t, ListBackgroundTool{}, env, "")
	if !strings.HasPrefix(list.Output, id+" (exited with code 7 after ") || !strings.Contains(list.Output, ", 800 bytes unread): seq 1 100") {
		t.Errorf("LIST after exit: %q", list.Output)
	}
	read = runTool(t, ReadBackgroundTool{}, env, "`"+id+"`")
	var after strings.Builder
	for i := 101; i <= 300; i++ {
		fmt.Fprintf(&after, "%d\n", i)
	}
	wantRead := regexp.MustCompile(`^` + id + ` \(seq 1 100; read x < gate; seq 101 300; exit 7\): exited with code 7 after \d+(ms|s)\. New output:\n` + strings.TrimSuffix(after.String(), "\n") + `$`)
	if !read.OK || !wantRead.MatchString(read.Output) {
		t.Errorf("READ after exit: %q", read.Output)
	}
	if again := runTool(t, ReadBackgroundTool{}, env, id); !strings.HasSuffix(again.Output, ". No new output since the last read.") {
		t.Errorf("second READ: %q", again.Output)
	}
	if len(m.List()) != 1 {
		t.Errorf("manager holds %d processes", len(m.List()))
	}
}

// Output printed while the handover happens is in the foreground result or
// in the first read, once.
func TestCommandHandoverLosesNoOutput(t *testing.T) {
	t.Parallel()
	env, _, exits := bgEnv(t, 300*time.Millisecond, time.Second)
	r := runTool(t, CommandTool{}, env, "i=0; while [ $i -lt 150 ]; do i=$((i+1)); echo $i; sleep 0.01; done")
	id := backgrounded(t, r)
	awaitExit(t, exits)
	read := runTool(t, ReadBackgroundTool{}, env, id)
	before := strings.TrimSuffix(backgroundedRE.ReplaceAllString(r.Output, ""), "\nREAD_BACKGROUND_PROCESS "+id+" shows what it prints next and whether it ended; KILL_BACKGROUND_PROCESS "+id+" stops it.")
	_, after, ok := strings.Cut(read.Output, "New output:\n")
	if !ok {
		t.Fatalf("READ: %q", read.Output)
	}
	var want strings.Builder
	for i := 1; i <= 150; i++ {
		fmt.Fprintf(&want, "%d\n", i)
	}
	if got := before + "\n" + after + "\n"; got != want.String() {
		t.Errorf("foreground %q + read %q is not 1 to 150", before, after)
	}
}

func TestCommandInTimeNeverReachesTheManager(t *testing.T) {
	t.Parallel()
	env, m, _ := bgEnv(t, 10*time.Second, time.Second)
	r := runTool(t, CommandTool{}, env, "echo quick")
	if !r.OK || r.Output != "Command succeeded (exit code 0).\nquick" || r.Attrs != nil {
		t.Errorf("%+v", r)
	}
	if l := m.List(); len(l) != 0 {
		t.Errorf("the manager got %+v", l)
	}
}

// A manager that is shutting down (dev is exiting) takes nothing: the
// command is stopped as without one.
func TestCommandStoppedWhenTheManagerIsClosed(t *testing.T) {
	t.Parallel()
	// A whole second, so that the trap is surely set when TERM comes.
	env, m, _ := bgEnv(t, time.Second, time.Second)
	m.Shutdown()
	// It prints as it is stopped: that output is in the result too.
	r := runTool(t, CommandTool{}, env, "echo $$ > pid; echo before; trap 'echo got TERM; exit 1' TERM; sleep 30 & wait")
	if want := "Error: Command timed out after 1 s; it was stopped (its whole process group). Output so far:\nbefore\ngot TERM\nRun long-lived"; r.OK || !strings.HasPrefix(r.Output, want) {
		t.Errorf("%q, want it to start with %q", r.Output, want)
	}
	pid := bgproctest.PID(t, filepath.Join(env.Dir, "pid"))
	bgproctest.WaitFor(t, "the command is gone", func() bool { return bgproctest.Gone(pid) })
}

func TestKillBackgroundProcess(t *testing.T) {
	t.Parallel()
	env, _, exits := bgEnv(t, 300*time.Millisecond, 5*time.Second)
	// The child ignores nothing special: TERM to the group ends it.
	r := runTool(t, CommandTool{}, env, "echo up; sh -c 'echo $$ > child.pid; exec sleep 300' & wait")
	id := backgrounded(t, r)
	child := waitPid(t, filepath.Join(env.Dir, "child.pid"))
	k := runTool(t, KillBackgroundTool{}, env, id)
	want := regexp.MustCompile(`^` + id + ` \(echo up; sh -c 'echo \$\$ > child\.pid; exec sleep 300' & wait\) stopped on TERM after \d+(ms|s), with its whole process group\.$`)
	if !k.OK || !want.MatchString(k.Output) {
		t.Errorf("KILL: %q", k.Output)
	}
	if exit := awaitExit(t, exits); exit.Status != bgproc.Killed {
		t.Errorf("exit: %+v", exit)
	}
	bgproctest.WaitFor(t, "the child is gone", func() bool { return bgproctest.Gone(child) })
	again := runTool(t, KillBackgroundTool{}, env, id)
	if !again.OK || !strings.Contains(again.Output, " was already stopped (killed after ") {
		t.Errorf("second KILL: %q", again.Output)
	}
	read := runTool(t, ReadBackgroundTool{}, env, id)
	if !strings.Contains(read.Output, "): killed after ") || !strings.HasSuffix(read.Output, "No new output since the last read.") {
		t.Errorf("READ after KILL: %q", read.Output)
	}
}

func TestKillBackgroundProcessThatIgnoresTerm(t *testing.T) {
	t.Parallel()
	env, _, _ := bgEnv(t, 300*time.Millisecond, 200*time.Millisecond)
	r := runTool(t, CommandTool{}, env, "trap '' TERM; sleep 300 & echo $! > child.pid; wait")
	id := backgrounded(t, r)
	child := waitPid(t, filepath.Join(env.Dir, "child.pid"))
	k := runTool(t, KillBackgroundTool{}, env, id)
	if !k.OK || !strings.Contains(k.Output, ": it did not stop within 200 ms of TERM, so its process group got KILL.") {
		t.Errorf("KILL: %q", k.Output)
	}
	bgproctest.WaitFor(t, "the child is gone", func() bool { return bgproctest.Gone(child) })
}

func TestKillBackgroundProcessThatExited(t *testing.T) {
	t.Parallel()
	env, _, exits := bgEnv(t, 300*time.Millisecond, time.Second)
	gate := mkfifo(t, env.Dir, "gate")
	id := backgrounded(t, runTool(t, CommandTool{}, env, "read x < gate; echo bye; exit 3"))
	open(t, gate)
	awaitExit(t, exits)
	k := runTool(t, KillBackgroundTool{}, env, id)
	want := regexp.MustCompile(`^` + id + ` \(read x < gate; echo bye; exit 3\) had already exited with code 3 after \d+(ms|s); nothing to stop\. Output since the last read:\nbye$`)
	if !k.OK || !want.MatchString(k.Output) {
		t.Errorf("KILL: %q", k.Output)
	}
}

func TestReadBackgroundDropsWhatIsNotKept(t *testing.T) {
	t.Parallel()
	env, _, exits := bgEnv(t, 300*time.Millisecond, time.Second)
	gate := mkfifo(t, env.Dir, "gate")
	// 100 000 numbered lines after the handover: far more than is kept.
	id := backgrounded(t, runTool(t, CommandTool{}, env, "read x < gate; seq 1 100000"))
	open(t, gate)
	awaitExit(t, exits)
	read := runTool(t, ReadBackgroundTool{}, env, id)
	_, out, _ := strings.Cut(read.Output, "New output:\n")
	marker, rest, _ := strings.Cut(out, "\n")
	if !regexp.MustCompile(`^\[… \d+\.\d KB dropped: only the last 16 KB of output are kept …\]$`).MatchString(marker) {
		t.Errorf("marker %q", marker)
	}
	lines := strings.Split(rest, "\n")
	first, err := strconv.Atoi(lines[0])
	if err != nil || len(rest) > bgproc.BufferSize || lines[len(lines)-1] != "100000" {
		t.Fatalf("%d bytes after the marker, first line %q, last %q", len(rest), lines[0], lines[len(lines)-1])
	}
	for i, l := range lines {
		if l != strconv.Itoa(first+i) {
			t.Fatalf("line %d is %q, want %d: whole lines only, in order", i, l, first+i)
		}
	}
}

func TestCommandInterruptedNotBackgrounded(t *testing.T) {
	t.Parallel()
	env, m, _ := bgEnv(t, 10*time.Second, time.Second)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r := runToolCtx(t, ctx, CommandTool{}, env, "sleep 30")
	if r.OK || !strings.HasPrefix(r.Output, "Error: Command interrupted by the user") || len(m.List()) != 0 {
		t.Errorf("%q, manager %+v", r.Output, m.List())
	}
}
