// Package bgproc owns the commands the tools run (COMMAND's, the custom
// tools', the auditor's), from start to end: each in its own process group with bounded output (Start); in the foreground
// until it ends, is interrupted or outlives its time (Foreground), then
// handed to a Manager, which keeps the processes that run on in the
// background: it names them proc_xxxxxx, reports their status and the
// output they printed since the last read, and stops them, one (Kill) or
// all (Shutdown). The foreground run lives here, beside the Manager,
// because the hand-over is one process changing hands: the foreground
// detaches its copy of the output at the very byte the Manager's reads
// start from. What the model is told of a command (its result's text) is
// the tools'; what a command printed, as the model sees it and as saved on
// disk, is package capture's, which Foreground writes to as to any
// io.Writer. A Manager is an instance created by the program, never a
// global; it tells its owner about starts and exits through callbacks and
// never prints.
package bgproc

import (
	"errors"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"time"
)

// DefaultGrace is how long a stopped process group may take to exit after
// TERM before it gets KILL.
const DefaultGrace = 2 * time.Second

// ErrClosed: the manager was shut down and takes no more processes.
var ErrClosed = errors.New("background processes are shut down")

// UnknownIDError names an id the manager does not know, and those it does.
type UnknownIDError struct {
	ID    string
	Known []string // in start order
}

func (e *UnknownIDError) Error() string {
	if len(e.Known) == 0 {
		return fmt.Sprintf("no background process %q: none was started", e.ID)
	}
	return fmt.Sprintf("no background process %q; the ids are: %s", e.ID, strings.Join(e.Known, ", "))
}

// Status is the state of a background process.
type Status int

// Process states.
const (
	Running Status = iota
	Exited         // ended by itself (an exit code, or a signal dev did not send)
	Killed         // stopped by Kill or Shutdown
)

func (s Status) String() string {
	switch s {
	case Running:
		return "running"
	case Exited:
		return "exited"
	default:
		return "killed"
	}
}

// Info describes a background process at one moment.
type Info struct {
	ID, Command string
	PID         int
	Status      Status
	ExitCode    int    // when not Running: the exit code, -1 after a signal
	State       string // when not Running: e.g. "exit status 1", "signal: killed"
	Runtime     time.Duration
	Unread      int64 // bytes printed since the last read
	// OutputLost: the process exited while a child it left behind still held
	// its output open; what that child prints is not captured.
	OutputLost bool
}

// Report is what a read tells: the state, then the output printed since the
// previous read (the state is taken first, so an exited process's output
// is complete).
type Report struct {
	Info
	Output  []byte
	Dropped int64 // bytes printed since the previous read and no longer kept
	// For Kill:
	WasRunning bool // it still ran when asked to stop
	Forced     bool // KILL was needed (TERM was not enough, or not available)
}

// Options configure a Manager. Callbacks run on the goroutine where the
// event happened (OnExit: a goroutine of the manager); they must not call
// the manager's Shutdown.
type Options struct {
	Grace   time.Duration // TERM-to-KILL grace; DefaultGrace when 0
	OnStart func(Info)
	OnExit  func(Info)
}

// Manager keeps background processes. Its methods are safe for concurrent use.
type Manager struct {
	opts Options

	mu      sync.Mutex
	byID    map[string]*entry
	order   []*entry
	closed  bool
	watches sync.WaitGroup

	notifyMu sync.Mutex // held while a callback runs, so that Shutdown can silence them
	muted    bool
}

type entry struct {
	id, command string
	p           *Process
	read        int64 // the model's read offset into p's output
}

// New returns an empty manager.
func New(opts Options) *Manager {
	if opts.Grace <= 0 {
		opts.Grace = DefaultGrace
	}
	return &Manager{opts: opts, byID: map[string]*entry{}}
}

// Grace is the TERM-to-KILL grace period.
func (m *Manager) Grace() time.Duration { return m.opts.Grace }

// Adopt takes over a running process; the model has seen its output up to
// offset seen (from Output.Detach). After Shutdown it returns ErrClosed and
// the caller keeps the process.
func (m *Manager) Adopt(p *Process, command string, seen int64) (Info, error) {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return Info{}, ErrClosed
	}
	id := newID()
	for m.byID[id] != nil {
		id = newID()
	}
	e := &entry{id: id, command: command, p: p, read: seen}
	m.byID[id] = e
	m.order = append(m.order, e)
	m.watches.Add(1)
	info := m.info(e)
	m.mu.Unlock()
	m.notify(m.opts.OnStart, info)
	go m.watch(e)
	return info, nil
}

// watch reports the process's exit.
func (m *Manager) watch(e *entry) {
	defer m.watches.Done()
	<-e.p.Done()
	m.mu.Lock()
	info := m.info(e)
	m.mu.Unlock()
	m.notify(m.opts.OnExit, info)
}

func (m *Manager) notify(f func(Info), info Info) {
	if f == nil {
		return
	}
	m.notifyMu.Lock()
	defer m.notifyMu.Unlock()
	if !m.muted {
		f(info)
	}
}

// info describes e; m.mu is held.
func (m *Manager) info(e *entry) Info {
	p := e.p
	i := Info{ID: e.id, Command: e.command, PID: p.PID(), Status: Running, ExitCode: -1,
		Unread: p.Output().Total() - e.read}
	if p.Exited() {
		i.Status = Exited
		if p.Stopped() {
			i.Status = Killed
		}
		i.ExitCode, i.State = p.ExitCode(), p.State()
		i.OutputLost = errors.Is(p.WaitErr(), exec.ErrWaitDelay)
	}
	i.Runtime = p.Runtime()
	return i
}

func (m *Manager) lookup(id string) (*entry, error) {
	if e := m.byID[id]; e != nil {
		return e, nil
	}
	known := make([]string, len(m.order))
	for i, e := range m.order {
		known[i] = e.id
	}
	return nil, &UnknownIDError{ID: id, Known: known}
}

// Read reports the process's state and the output it printed since the
// last Read (or since the model last saw it in the foreground).
func (m *Manager) Read(id string) (Report, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e, err := m.lookup(id)
	if err != nil {
		return Report{}, err
	}
	return m.read(e), nil
}

// read is Read for e; m.mu is held.
func (m *Manager) read(e *entry) Report {
	r := Report{Info: m.info(e)}
	c := e.p.Output().ReadFrom(e.read)
	e.read = c.Next
	r.Output, r.Dropped = c.Data, c.Dropped
	r.Unread = 0
	return r
}

// List describes every process, in start order.
func (m *Manager) List() []Info {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]Info, len(m.order))
	for i, e := range m.order {
		out[i] = m.info(e)
	}
	return out
}

// Kill stops the process's group (TERM, KILL after the grace period) and
// reports how, with the output not read yet. A process that already ended
// is reported as such; children it left behind are stopped all the same.
func (m *Manager) Kill(id string) (Report, error) {
	m.mu.Lock()
	e, err := m.lookup(id)
	m.mu.Unlock()
	if err != nil {
		return Report{}, err
	}
	running := !e.p.Exited()
	forced := e.p.Stop(m.opts.Grace)
	m.mu.Lock()
	defer m.mu.Unlock()
	r := m.read(e)
	r.WasRunning = running
	r.Forced = running && forced
	return r, nil
}

// Shutdown stops every process (all at once, each TERM then KILL after the
// grace period), silences the callbacks, takes no more processes, and
// returns what was still running, as stopped. Calling it again is harmless.
func (m *Manager) Shutdown() []Info {
	m.notifyMu.Lock()
	m.muted = true
	m.notifyMu.Unlock()
	m.mu.Lock()
	m.closed = true
	entries := slices.Clone(m.order)
	m.mu.Unlock()

	var wg sync.WaitGroup
	var running []*entry
	for _, e := range entries {
		if !e.p.Exited() {
			running = append(running, e)
		}
		wg.Go(func() { e.p.Stop(m.opts.Grace) })
	}
	wg.Wait()
	m.watches.Wait()
	m.mu.Lock()
	defer m.mu.Unlock()
	stopped := make([]Info, len(running))
	for i, e := range running {
		stopped[i] = m.info(e)
	}
	return stopped
}
