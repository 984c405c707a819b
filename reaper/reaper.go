// Package reaper makes sure no process group dev starts outlives it. A
// Reaper records, in a file of the session's directory, a random run id
// that every command gets in its environment (Env) and each command's
// process group with its leader's start time. StopAll stops every recorded
// group that still has processes (children a finished command left behind
// too), the processes that carry the run id, and the orphans dev adopted,
// when dev ends; and Open first stops what a dev that died without StopAll
// (SIGKILL, a crash) recorded there: its groups, after checking that each
// still holds the processes it recorded, and the processes with its run id
// (which also finds a command started in the moment before its group was
// recorded, and what left the group, unless it cleared its environment).
//
// Linux and macOS; elsewhere recording is skipped and StopAll only stops
// the groups recorded by this process while they run.
package reaper

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/devagent/dev/procgroup"
)

// FileName is the record's name in the session's directory.
const FileName = "process-groups"

// EnvVar names the run id in the environment of every command.
const EnvVar = "DEV_RUN_ID"

// pollStop is how often a stop checks whether the groups are empty.
const pollStop = 20 * time.Millisecond

// Group is a process group dev started: a command's shell, run in its own
// session, leads it.
type Group struct {
	PGID int
	// Start is the leader's start time, which tells it from a later
	// process given the same pid: clock ticks since boot (Linux),
	// microseconds since 1970 (macOS); 0 when unknown.
	Start uint64
	Boot  string // the boot the group belongs to
}

// Reaper records the process groups of one dev run and stops them. Its
// methods are safe for concurrent use.
type Reaper struct {
	path string // "" keeps the record in memory only
	run  string // the run id

	mu     sync.Mutex
	groups []Group
	file   *os.File // the record, opened on the first Record
	err    error    // opening or writing the record failed; recording goes on in memory
}

// Open stops what a dead run recorded in dir (Reap), then returns a Reaper
// that records this run there, starting with its run id. The caller must
// hold the lock of the session dir belongs to: a record is a dead run's only
// when no dev holds it. dir "" records in memory only. left counts the
// groups and processes stopped.
func Open(dir string, grace time.Duration) (r *Reaper, left int, err error) {
	b := make([]byte, 16)
	_, _ = rand.Read(b) // never fails (crypto/rand)
	r = &Reaper{run: hex.EncodeToString(b)}
	if dir == "" {
		return r, 0, nil
	}
	r.path = filepath.Join(dir, FileName)
	left, err = Reap(dir, grace)
	if supported {
		r.mu.Lock()
		r.open()
		r.mu.Unlock()
	}
	return r, left, err
}

// Env is what every command's environment gets: the run id.
func (r *Reaper) Env() []string { return []string{EnvVar + "=" + r.run} }

// open starts the record with the run id; r.mu is held. A failure is kept
// in r.err: recording goes on in memory.
func (r *Reaper) open() {
	if err := os.MkdirAll(filepath.Dir(r.path), 0o700); err != nil {
		r.err = err
		return
	}
	r.file, r.err = os.OpenFile(r.path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC|os.O_APPEND, 0o600)
	if r.err == nil {
		_, r.err = fmt.Fprintf(r.file, "run %s\n", r.run)
	}
}

// Record adds the group led by pid, a process just started in its own
// session. It is written to the record at once, so that a dev killed a
// moment later leaves it to the next one. The error says the record could
// not be written; the group is kept in memory all the same.
func (r *Reaper) Record(pid int) error {
	g := Group{PGID: pid}
	if p, err := procgroup.Find(pid); err == nil {
		g.Start = p.Start
	}
	g.Boot, _ = bootID()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.groups = append(r.groups, g)
	if r.path == "" || !supported {
		return nil
	}
	if r.file == nil && r.err == nil {
		r.open() // after StopAll: dev goes on (tests do)
	}
	if r.err != nil {
		return fmt.Errorf("recording process group %d: %w", pid, r.err)
	}
	// One write of a whole line: a dev killed meanwhile leaves at worst a
	// last line without its newline, which Reap skips.
	if _, err := fmt.Fprintf(r.file, "%s %d %d\n", g.Boot, g.PGID, g.Start); err != nil {
		return fmt.Errorf("recording process group %d: %w", pid, err)
	}
	return nil
}

// Groups returns the groups recorded so far, in order.
func (r *Reaper) Groups() []Group {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Group(nil), r.groups...)
}

// StopAll stops every recorded group that still has processes and every
// process with the run id in its environment: TERM, then KILL to what is
// left after grace. It then
// removes the record: nothing is left for a later dev to stop. It returns
// how many groups and processes it signalled.
func (r *Reaper) StopAll(grace time.Duration) int {
	r.mu.Lock()
	groups := append([]Group(nil), r.groups...)
	r.mu.Unlock()
	n := stop(groups, []string{r.run}, grace, false)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.file != nil {
		_ = r.file.Close()
		r.file = nil
	}
	if r.path != "" {
		_ = os.Remove(r.path)
	}
	r.err = nil
	return n
}

// StopOrphans stops every child process of this process, as it ends: the
// orphans it adopted as subreaper (see AdoptOrphans) that left their group
// and lost the run id (`env -i setsid cmd &`). Only the process's owner
// calls it, last: where several runs share the process (tests of app), it
// would stop the commands of the others, which are children too.
func StopOrphans(grace time.Duration) int { return stop(nil, nil, grace, true) }

// Reap stops the groups a dead run recorded in dir that still hold the
// processes it started, and the processes with its run id, and removes the
// record. The caller must know that run is dead (it holds the session's
// lock). It returns how many groups and processes it signalled.
func Reap(dir string, grace time.Duration) (int, error) {
	path := filepath.Join(dir, FileName)
	runs, groups, err := readRecord(path)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	n := stop(groups, runs, grace, false)
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return n, fmt.Errorf("removing %s: %w", path, err)
	}
	return n, nil
}

// readRecord reads a record: run ids and groups. Malformed lines (a write
// cut short) are skipped.
func readRecord(path string) (runs []string, groups []Group, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) == 2 && fields[0] == "run" && len(fields[1]) == 32 {
			runs = append(runs, fields[1])
			continue
		}
		if len(fields) != 3 {
			continue
		}
		pgid, err1 := strconv.Atoi(fields[1])
		start, err2 := strconv.ParseUint(fields[2], 10, 64)
		if err1 != nil || err2 != nil || pgid <= 1 {
			continue
		}
		groups = append(groups, Group{PGID: pgid, Start: start, Boot: fields[0]})
	}
	if err := sc.Err(); err != nil {
		return nil, nil, fmt.Errorf("reading %s: %w", path, err)
	}
	return runs, groups, nil
}

// target is what a stop signals: a whole group (pgid) or one process.
type target struct {
	pgid, pid int
}

// stop signals the groups that are still the ones recorded, the processes
// with one of the run ids, and with children also the children of this
// process, TERM first and KILL after grace, until none has a live process
// left. It returns how many targets it signalled first.
func stop(groups []Group, runs []string, grace time.Duration, children bool) int {
	if !supported {
		return 0
	}
	boot, _ := bootID()
	live := func() []target {
		procs, err := procgroup.Processes()
		if err != nil {
			return nil
		}
		ts := targets(groups, procs, boot, children)
		return append(ts, marked(procs, runs, ts)...)
	}
	first := live()
	if len(first) == 0 {
		return 0
	}
	signal(first, procgroup.Term)
	deadline := time.Now().Add(grace)
	for time.Now().Before(deadline) {
		if len(live()) == 0 {
			return len(first)
		}
		time.Sleep(pollStop)
	}
	// KILL what is left, until it is gone: the orphans a kill makes are
	// dev's children (as a subreaper) and get KILL in the next round.
	deadline = time.Now().Add(grace)
	for {
		left := live()
		if len(left) == 0 || time.Now().After(deadline) {
			return len(first)
		}
		signal(left, procgroup.Kill)
		time.Sleep(pollStop)
	}
}

// signal sends sig to each target: a whole group, or one process.
func signal(ts []target, sig procgroup.Signal) {
	for _, t := range ts {
		if t.pgid > 0 {
			_ = procgroup.SignalGroup(t.pgid, sig)
		} else {
			_ = procgroup.SignalProcess(t.pid, sig)
		}
	}
}

// targets are the recorded groups that still hold live processes of their
// own (owned), and with children the children of this process not among
// them: a child leading its own group is signalled as a group.
func targets(groups []Group, procs []procgroup.Process, boot string, children bool) []target {
	byGroup := map[int][]procgroup.Process{}
	for _, p := range procs {
		if !p.Zombie {
			byGroup[p.PGID] = append(byGroup[p.PGID], p)
		}
	}
	var out []target
	seen := map[int]bool{}
	for _, g := range groups {
		if seen[g.PGID] {
			continue
		}
		seen[g.PGID] = true
		if owned(g, byGroup[g.PGID], boot) {
			out = append(out, target{pgid: g.PGID})
		}
	}
	if !children {
		return out
	}
	self, own := os.Getpid(), procgroup.Current()
	for _, p := range procs {
		if p.PPID != self || p.Zombie || seen[p.PGID] {
			continue
		}
		if p.PGID == p.PID && p.PGID != own {
			seen[p.PGID] = true
			out = append(out, target{pgid: p.PGID})
		} else {
			out = append(out, target{pid: p.PID})
		}
	}
	return out
}

// marked are the live processes whose environment holds one of the run
// ids (started by those runs' commands, whatever group or session they are
// in now) and that are not in a group of ts already. This process is
// never one.
func marked(procs []procgroup.Process, runs []string, ts []target) []target {
	if len(runs) == 0 {
		return nil
	}
	want := make([][]byte, len(runs))
	for i, run := range runs {
		want[i] = []byte(EnvVar + "=" + run)
	}
	self := os.Getpid()
	signalled := map[int]bool{}
	for _, t := range ts {
		signalled[t.pgid] = t.pgid > 0
	}
	var out []target
	for _, p := range procs {
		if p.Zombie || p.PID == self || p.PID <= 1 || signalled[p.PGID] {
			continue
		}
		env, err := environ(p.PID)
		if err != nil {
			continue // gone, or not ours to read
		}
		for _, v := range bytes.Split(env, []byte{0}) {
			if slices.ContainsFunc(want, func(w []byte) bool { return bytes.Equal(v, w) }) {
				out = append(out, target{pid: p.PID})
				break
			}
		}
	}
	return out
}

// owned reports whether members, the live processes of group g.PGID, are
// still the group dev started, not a later one given the same id: the
// same boot; the leader, while it runs, has the recorded start time; once
// it exited, every member is in the session the leader made and started
// no earlier than it did. (The system does not reuse a group's id while
// the group has members, so only a group that emptied and was made anew
// by a process given the same pid can mislead; that process, or what it
// started, would have to have led its own session too.)
func owned(g Group, members []procgroup.Process, boot string) bool {
	if len(members) == 0 || g.Boot != boot || g.PGID <= 1 {
		return false
	}
	for _, p := range members {
		if p.PID == g.PGID {
			return g.Start != 0 && p.Start == g.Start
		}
	}
	for _, p := range members {
		if p.SID != g.PGID || p.Start < g.Start {
			return false
		}
	}
	return true
}
