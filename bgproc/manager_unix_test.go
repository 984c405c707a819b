//go:build unix

package bgproc

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/devagent/dev/bgproc/bgproctest"
)

// start runs script with sh in dir.
func start(t *testing.T, dir, script string) *Process {
	t.Helper()
	cmd := exec.Command("sh", "-c", script)
	cmd.Dir = dir
	cmd.WaitDelay = 50 * time.Millisecond // a child left behind may hold the pipe
	p, err := Start(cmd, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Stop(0) })
	return p
}

// fifo makes a named pipe in dir: a script blocks reading it until the test
// writes a line.
func fifo(t *testing.T, dir, name string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// release writes a line into a fifo, unblocking its reader.
func release(t *testing.T, path string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("go\n")
	f.Close()
}

// recorder collects a manager's callbacks.
type recorder struct {
	started chan Info
	exited  chan Info
}

func newRecorder() *recorder {
	return &recorder{started: make(chan Info, 10), exited: make(chan Info, 10)}
}

func (r *recorder) options(grace time.Duration) Options {
	return Options{Grace: grace, OnStart: func(i Info) { r.started <- i }, OnExit: func(i Info) { r.exited <- i }}
}

func receive(t *testing.T, ch chan Info, what string) Info {
	t.Helper()
	select {
	case i := <-ch:
		return i
	case <-time.After(10 * time.Second):
		t.Fatalf("no %s callback", what)
		return Info{}
	}
}

func TestStartAndExit(t *testing.T) {
	t.Parallel()
	p := start(t, t.TempDir(), "echo out; echo err >&2; exit 3")
	<-p.Done()
	if p.ExitCode() != 3 || p.State() != "exit status 3" || p.Stopped() {
		t.Errorf("exit code %d, state %q, stopped %v", p.ExitCode(), p.State(), p.Stopped())
	}
	if c := p.Output().ReadFrom(0); string(c.Data) != "out\nerr\n" {
		t.Errorf("output %q", c.Data)
	}
	if r := p.Runtime(); r <= 0 || r > 10*time.Second {
		t.Errorf("runtime %v", r)
	}
}

func TestStopKillsWhatIgnoresTerm(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	// Ignored signals stay ignored across exec: the child ignores TERM too.
	p := start(t, dir, "trap '' TERM; sleep 300 & echo $! > child.pid; wait")
	child := bgproctest.PID(t, filepath.Join(dir, "child.pid"))
	began := time.Now()
	if forced := p.Stop(100 * time.Millisecond); !forced {
		t.Error("Stop did not report KILL")
	}
	if elapsed := time.Since(began); elapsed < 100*time.Millisecond {
		t.Errorf("KILL came after %v, before the grace period", elapsed)
	}
	bgproctest.WaitFor(t, "the child is gone", func() bool { return bgproctest.Gone(child) })
	if !p.Stopped() || p.ExitCode() != -1 || p.State() != "signal: killed" {
		t.Errorf("stopped %v, exit code %d, state %q", p.Stopped(), p.ExitCode(), p.State())
	}
}

func TestStopClearsChildrenLeftBehind(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	// The shell exits at once; its child keeps the group (and the pipe).
	p := start(t, dir, "sleep 300 & echo $! > child.pid")
	child := bgproctest.PID(t, filepath.Join(dir, "child.pid"))
	<-p.Done()
	if bgproctest.Gone(child) {
		t.Fatal("the child did not outlive the shell")
	}
	p.Stop(time.Second)
	if p.Stopped() {
		t.Error("a process that had exited by itself counts as stopped")
	}
	bgproctest.WaitFor(t, "the child is gone", func() bool { return bgproctest.Gone(child) })
}

func TestManagerLifecycle(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	gate := fifo(t, dir, "gate")
	rec := newRecorder()
	m := New(rec.options(time.Second))
	defer m.Shutdown()

	p := start(t, dir, "echo before; read x < gate; echo after $x; exit 7")
	bgproctest.WaitFor(t, "the first line", func() bool { return p.Output().Total() == 7 })
	seen := p.Output().Detach()
	info, err := m.Adopt(p, "the command", seen)
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`^proc_[a-z0-9]{6}$`).MatchString(info.ID) || info.Status != Running || info.Command != "the command" || info.PID != p.PID() {
		t.Errorf("Adopt: %+v", info)
	}
	if got := receive(t, rec.started, "start"); got.ID != info.ID {
		t.Errorf("OnStart: %+v", got)
	}
	r, err := m.Read(info.ID)
	if err != nil || r.Status != Running || len(r.Output) != 0 {
		t.Errorf("Read before new output: %+v, %v", r, err)
	}

	release(t, gate)
	exit := receive(t, rec.exited, "exit")
	if exit.ID != info.ID || exit.Status != Exited || exit.ExitCode != 7 || exit.Unread != 9 {
		t.Errorf("OnExit: %+v", exit)
	}
	list := m.List()
	if len(list) != 1 || list[0].ID != info.ID || list[0].Status != Exited || list[0].Unread != 9 {
		t.Errorf("List: %+v", list)
	}
	r, err = m.Read(info.ID)
	if err != nil || string(r.Output) != "after go\n" || r.Status != Exited || r.ExitCode != 7 || r.Dropped != 0 {
		t.Errorf("Read after exit: %+v (output %q), %v", r, r.Output, err)
	}
	r, _ = m.Read(info.ID)
	if len(r.Output) != 0 {
		t.Errorf("second Read: output %q, want nothing new", r.Output)
	}
	r, err = m.Kill(info.ID)
	if err != nil || r.WasRunning || r.Forced || r.Status != Exited {
		t.Errorf("Kill after exit: %+v, %v", r, err)
	}
}

func TestManagerUnknownID(t *testing.T) {
	t.Parallel()
	m := New(Options{})
	defer m.Shutdown()
	_, err := m.Read("proc_zzzzzz")
	var unknown *UnknownIDError
	if !errors.As(err, &unknown) || err.Error() != `no background process "proc_zzzzzz": none was started` {
		t.Errorf("no processes: %v", err)
	}
	dir := t.TempDir()
	var ids []string
	for range 2 {
		p := start(t, dir, "exec sleep 300")
		info, err := m.Adopt(p, "sleep", 0)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, info.ID)
	}
	_, err = m.Kill("proc_zzzzzz")
	if want := `no background process "proc_zzzzzz"; the ids are: ` + ids[0] + ", " + ids[1]; err == nil || err.Error() != want {
		t.Errorf("got  %v\nwant %s", err, want)
	}
}

func TestManagerKill(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	rec := newRecorder()
	m := New(rec.options(5 * time.Second))
	defer m.Shutdown()
	// A child that ignores nothing special: TERM to the group ends it.
	p := start(t, dir, "echo up; sh -c 'echo $$ > child.pid; exec sleep 300' & wait")
	child := bgproctest.PID(t, filepath.Join(dir, "child.pid"))
	info, _ := m.Adopt(p, "server", 0)
	receive(t, rec.started, "start")
	r, err := m.Kill(info.ID)
	if err != nil || !r.WasRunning || r.Forced || r.Status != Killed || string(r.Output) != "up\n" {
		t.Errorf("Kill: %+v (output %q), %v", r, r.Output, err)
	}
	if exit := receive(t, rec.exited, "exit"); exit.Status != Killed {
		t.Errorf("OnExit: %+v", exit)
	}
	bgproctest.WaitFor(t, "the child is gone", func() bool { return bgproctest.Gone(child) })
}

func TestManagerKillForced(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	m := New(Options{Grace: 100 * time.Millisecond})
	defer m.Shutdown()
	p := start(t, dir, "trap '' TERM; sleep 300 & echo $! > child.pid; wait")
	child := bgproctest.PID(t, filepath.Join(dir, "child.pid"))
	info, _ := m.Adopt(p, "stubborn", 0)
	r, err := m.Kill(info.ID)
	if err != nil || !r.WasRunning || !r.Forced || r.Status != Killed {
		t.Errorf("Kill: %+v, %v", r, err)
	}
	bgproctest.WaitFor(t, "the child is gone", func() bool { return bgproctest.Gone(child) })
}

func TestManagerShutdown(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	rec := newRecorder()
	m := New(rec.options(200 * time.Millisecond))
	gate := fifo(t, dir, "gate")
	finished := start(t, dir, "read x < gate")
	a, _ := m.Adopt(finished, "finishes", 0)
	release(t, gate)
	receive(t, rec.exited, "exit of the first")
	var pids []int
	var want []string
	for i, script := range []string{"trap '' TERM; echo $$ > 0.pid; sleep 300 & wait", "trap '' TERM; echo $$ > 1.pid; sleep 300 & wait"} {
		p := start(t, dir, script)
		info, _ := m.Adopt(p, script, 0)
		want = append(want, info.ID)
		pids = append(pids, bgproctest.PID(t, filepath.Join(dir, strconv.Itoa(i)+".pid")))
	}
	began := time.Now()
	stopped := m.Shutdown()
	// Both ignore TERM: each gets the grace period before KILL.
	if elapsed := time.Since(began); elapsed < 200*time.Millisecond || elapsed > 5*time.Second {
		t.Errorf("Shutdown took %v; want the grace period of 200ms, then KILL", elapsed)
	}
	if len(stopped) != 2 || stopped[0].ID != want[0] || stopped[1].ID != want[1] || stopped[0].Status != Killed || stopped[1].Status != Killed {
		t.Errorf("Shutdown returned %+v, want %v killed (not %s, which had exited)", stopped, want, a.ID)
	}
	for _, pid := range pids {
		if !bgproctest.Gone(pid) {
			t.Errorf("pid %d still runs", pid)
		}
	}
	select {
	case i := <-rec.exited:
		t.Errorf("a callback after Shutdown: %+v", i)
	default:
	}
	if _, err := m.Adopt(start(t, dir, "exec sleep 300"), "late", 0); !errors.Is(err, ErrClosed) {
		t.Errorf("Adopt after Shutdown: %v", err)
	}
	if again := m.Shutdown(); len(again) != 0 {
		t.Errorf("second Shutdown: %+v", again)
	}
}

func TestManagerOutputLost(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	rec := newRecorder()
	m := New(rec.options(time.Second))
	defer m.Shutdown()
	cmd := exec.Command("sh", "-c", "read x < gate; sleep 300 & echo left")
	cmd.Dir = dir
	cmd.WaitDelay = 50 * time.Millisecond
	gate := fifo(t, dir, "gate")
	p, err := Start(cmd, nil)
	if err != nil {
		t.Fatal(err)
	}
	info, _ := m.Adopt(p, "leaves a child", 0)
	release(t, gate)
	if exit := receive(t, rec.exited, "exit"); !exit.OutputLost || exit.ExitCode != 0 {
		t.Errorf("OnExit: %+v", exit)
	}
	if r, _ := m.Kill(info.ID); r.WasRunning || string(r.Output) != "left\n" {
		t.Errorf("Kill: %+v", r)
	}
}
