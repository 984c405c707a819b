// Package procgroup owns process groups, the one place dev starts, watches
// and signals them: Start runs a command as the leader of a group of its
// own (on Unix a new session, so also without a controlling terminal; on
// Linux, when asked, killed with dev); a Group tells how its leader ended
// and stops the whole group, TERM and then KILL after a grace period
// (Windows: the process tree, at once). Processes and Find read the
// system's process table (Linux /proc, macOS sysctl), which also tells
// whether a group still has a process that is not a zombie; SignalGroup and
// SignalProcess are what a caller that found groups there sends them.
// bgproc, mcp and reaper build on it; it never prints.
package procgroup

import (
	"fmt"
	"os/exec"
	"sync/atomic"
	"time"
)

const (
	// pollGroup is how often a stop checks whether the group is empty: a
	// signal's delivery has no event to wait on.
	pollGroup = 20 * time.Millisecond
	// killWait bounds the wait for a killed group to be gone: KILL is
	// delivered asynchronously, and a process still running a moment after
	// Stop would outlive dev's own exit.
	killWait = 500 * time.Millisecond
)

// Options say how a group is started.
type Options struct {
	// DieWithParent has the leader killed when dev dies, even by SIGKILL
	// (Linux, PR_SET_PDEATHSIG; elsewhere nothing): a command dev was
	// starting at that moment never runs, and one it ran (the shell, or
	// what the shell exec'd) stops at once; what the command started itself
	// is left to the next dev (package reaper). Linux sends the signal when
	// the thread that started the process ends, which Go does only for a
	// goroutine locked to its thread that exits; dev locks none.
	DieWithParent bool
}

// Group is a started command leading its own process group, and what
// became of it.
type Group struct {
	cmd     *exec.Cmd
	started time.Time
	done    chan struct{} // closed once Wait returned

	// Set before done is closed.
	waitErr error
	ended   time.Time

	stopped atomic.Bool // Stop signalled it while it ran
}

// Start starts cmd, set up by the caller (path, arguments, directory,
// environment, standard streams, WaitDelay; SysProcAttr is added to), in a
// process group of its own, and waits for it in the background.
func Start(cmd *exec.Cmd, opts Options) (*Group, error) {
	isolate(cmd, opts)
	g := &Group{cmd: cmd, done: make(chan struct{}), started: time.Now()}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	go func() {
		err := cmd.Wait()
		g.waitErr, g.ended = err, time.Now()
		close(g.done)
	}()
	return g, nil
}

// PID is the leader's process id, which is also the group's id.
func (g *Group) PID() int { return g.cmd.Process.Pid }

// Done is closed when the leader has exited and exec's Wait returned (its
// output copied, or WaitDelay passed).
func (g *Group) Done() <-chan struct{} { return g.done }

// Exited reports whether Done is closed.
func (g *Group) Exited() bool {
	select {
	case <-g.done:
		return true
	default:
		return false
	}
}

// Wait reports whether the leader exits within limit.
func (g *Group) Wait(limit time.Duration) bool {
	t := time.NewTimer(limit)
	defer t.Stop()
	select {
	case <-g.done:
		return true
	case <-t.C:
		return false
	}
}

// WaitErr is what exec's Wait returned (after Done): nil, an
// *exec.ExitError, exec.ErrWaitDelay when a child kept the output open
// after the leader exited, or why waiting failed.
func (g *Group) WaitErr() error {
	<-g.done
	return g.waitErr
}

// ExitCode is the leader's exit status after Done, -1 when a signal ended it.
func (g *Group) ExitCode() int {
	<-g.done
	if g.cmd.ProcessState == nil {
		return -1
	}
	return g.cmd.ProcessState.ExitCode()
}

// State says how the leader ended ("exit status 1", "signal: killed"),
// after Done.
func (g *Group) State() string {
	<-g.done
	if g.cmd.ProcessState == nil {
		return fmt.Sprintf("unknown: %v", g.waitErr)
	}
	return g.cmd.ProcessState.String()
}

// Runtime is how long the leader has run, or ran.
func (g *Group) Runtime() time.Duration {
	if g.Exited() {
		return g.ended.Sub(g.started)
	}
	return time.Since(g.started)
}

// Stopped reports whether Stop ended the leader (it still ran when Stop
// was called).
func (g *Group) Stopped() bool { return g.stopped.Load() }

// Stop ends the whole group: TERM, then KILL to what is left after grace
// (at once where there is no TERM: on Windows, the leader's process tree
// while it runs). It also clears out children a leader that already exited
// left behind. It returns once the leader has exited and, for at most a
// moment after a KILL, the group is gone; forced reports whether KILL was
// needed.
func (g *Group) Stop(grace time.Duration) (forced bool) {
	if !g.Exited() {
		g.stopped.Store(true)
	}
	pgid := g.PID()
	if SignalGroup(pgid, Term) == nil {
		deadline := time.NewTimer(grace)
		defer deadline.Stop()
		select {
		case <-g.done:
			// Children share the group and get the rest of the grace to exit.
			g.poll(deadline.C)
		case <-deadline.C:
		}
	}
	if !g.Exited() || alive(pgid) {
		forced = true
		g.kill()
	}
	<-g.done
	if forced {
		limit := time.NewTimer(killWait)
		defer limit.Stop()
		g.poll(limit.C)
	}
	return forced
}

// kill sends KILL to the group, or to the leader alone when the group
// cannot be signalled (Windows: taskkill failed).
func (g *Group) kill() {
	if SignalGroup(g.PID(), Kill) != nil {
		_ = g.cmd.Process.Kill()
	}
}

// poll waits until the group has no live process left, or until stop.
func (g *Group) poll(stop <-chan time.Time) {
	tick := time.NewTicker(pollGroup)
	defer tick.Stop()
	for alive(g.PID()) {
		select {
		case <-stop:
			return
		case <-tick.C:
		}
	}
}

// Process is one process as the system's process table shows it.
type Process struct {
	PID, PPID, PGID int
	SID             int // the session
	// Start tells the process from a later one given the same pid: clock
	// ticks since boot (Linux), microseconds since 1970 (macOS).
	Start  uint64
	Zombie bool // exited, not yet reaped by its parent: it runs nothing
}

// Signal is what a stop sends.
type Signal int

// The signals: Term asks (Unix only), Kill forces.
const (
	Term Signal = iota + 1
	Kill
)
