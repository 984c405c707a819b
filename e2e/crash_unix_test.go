//go:build unix

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/devagent/dev/bgproc/bgproctest"
	"github.com/devagent/dev/llm/llmtest"
	"github.com/devagent/dev/sessions"
)

// crashRuns is how many runs TestCrashConsistency kills: 50 in every
// go test, more for a series (go test ./e2e -run TestCrashConsistency
// -crash.runs 250).
var crashRuns = flag.Int("crash.runs", 50, "how many runs TestCrashConsistency kills")

// crashScript is the scripted run: commands that leave a process behind
// (in their group, writing its pid to pids), a file written, DONE.
func crashScript() []llmtest.Response {
	linger := "sleep 300 > /dev/null 2>&1 & echo $! >> pids\necho started"
	return []llmtest.Response{
		llmtest.Response{Content: llmtest.Template("Start.", "[~] start\n[ ] write", llmtest.Call{Tool: "COMMAND", Input: linger})},
		reply("Write.", "WRITE_FILE", "\"notes.txt\"\n```\nnotes\n```"),
		llmtest.Response{Content: llmtest.Template("Again.", "[x] start\n[~] write", llmtest.Call{Tool: "COMMAND", Input: linger}, llmtest.Call{Tool: "COMMAND", Input: "echo more"})},
		done("All done."),
	}
}

// TestCrashConsistency kills dev with SIGKILL at random moments of a
// scripted run, 50 times by default (the moments are drawn with a fixed seed: the
// request at which to kill, and either at its arrival or a few ms later,
// while dev streams, parses, runs tools or saves). After each kill: every
// session file is a valid session, no session shows as active, the
// directory map names only sessions that exist; then dev --resume takes
// the session over (its lock is free), stops what the dead run left,
// finishes, and leaves no lock or temporary file and no process behind.
func TestCrashConsistency(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(12, 2026))
	var left, stoppedOnResume atomic.Int64
	var mu sync.Mutex
	outcomes := map[string]int{}
	for i := range *crashRuns {
		request := 1 + rng.IntN(len(crashScript()))
		var delay time.Duration
		if rng.IntN(3) > 0 {
			delay = time.Duration(rng.IntN(40_000)) * time.Microsecond
		}
		t.Run(fmt.Sprintf("%03d-request%d-after%s", i, request, delay), func(t *testing.T) {
			w := newWorld(t, nil)
			status, leftovers := w.crashOnce(request, delay)
			left.Add(int64(leftovers))
			if leftovers > 0 {
				stoppedOnResume.Add(int64(leftovers))
			}
			mu.Lock()
			outcomes[status]++
			mu.Unlock()
		})
	}
	t.Cleanup(func() {
		t.Logf("%d runs killed: session status after the kill %v; %d processes left by the killed runs, all stopped by the resume", *crashRuns, outcomes, left.Load())
	})
}

// crashOnce runs dev, kills it when the scripted request arrives plus
// delay, checks what it left, resumes it and checks again. It returns the
// session's status after the kill and how many processes the dead run left.
func (w *world) crashOnce(request int, delay time.Duration) (status string, leftovers int) {
	t := w.t
	script := crashScript()
	// The handler kills dev once Start has returned: the request comes
	// over the network, which the race detector cannot see as ordering.
	var dev *exec.Cmd
	started := make(chan struct{})
	kill := func() { <-started; dev.Process.Kill() }
	var requests atomic.Int32
	w.srv.Respond(func(req llmtest.Request) (llmtest.Response, bool) {
		n := int(requests.Add(1))
		if n > len(script) {
			return done("Finished."), true // the resume
		}
		resp := script[n-1]
		if n == request {
			resp.Respond = func(ctx context.Context, _ llmtest.Request) llmtest.Response {
				if delay == 0 {
					kill()
				} else {
					time.AfterFunc(delay, kill)
				}
				return resp
			}
		}
		return resp, true
	})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd, _, stderr := w.command(ctx, "-p", "work", "--no-audit")
	dev = cmd
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	close(started)
	code := exitCode(t, cmd)
	if ctx.Err() != nil {
		t.Fatalf("dev did not end; stderr:\n%s", stderr)
	}
	if code != -1 && code != 0 {
		t.Fatalf("dev exited %d (want killed, or 0 when it finished first); stderr:\n%s", code, stderr)
	}

	pids := w.pids() // killed when the test ends, whatever happens
	// The kernel drops a dead process's lock once no process holds its
	// file open; rarely that takes a moment more than the process's exit:
	// a child it was starting (between fork and exec) holds it until it is
	// killed too (bgproc's PR_SET_PDEATHSIG).
	var rows []listed
	bgproctest.WaitFor(t, "the killed run's session to show as not active", func() bool {
		rows = w.list()
		return !slices.ContainsFunc(rows, func(r listed) bool { return r.Status == "active" })
	})
	id := w.checkStore(rows)
	status = rows[0].Status
	if status != "interrupted" && status != "complete" {
		t.Errorf("status %q after the kill, want interrupted (or complete)", status)
	}
	leftovers = len(running(pids))
	sessionDir := filepath.Join(w.home, "sessions", id)
	record, _ := os.ReadFile(filepath.Join(sessionDir, "process-groups"))
	run, _, _ := strings.Cut(strings.TrimPrefix(string(record), "run "), "\n")

	r := w.run("--resume", "-p", "finish", "--no-audit")
	r.expect(t.(*testing.T), 0)
	rows = w.list()
	w.checkStore(rows)
	if rows[0].Status != "complete" {
		t.Errorf("after the resume: %+v, want one complete session", rows)
	}
	if still := running(pids); len(still) > 0 {
		t.Errorf("processes of the dead run still running after the resume: %v", still)
	}
	if still := withRunID(run); len(still) > 0 {
		t.Errorf("processes with the dead run's id still running after the resume: %v", still)
	}
	files, _ := os.ReadDir(filepath.Dir(sessionDir))
	for _, f := range files {
		if name := f.Name(); strings.Contains(name, ".tmp-") || strings.HasSuffix(name, ".lock") && name != "directory-map.lock" {
			t.Errorf("left in the sessions directory: %s", name)
		}
	}
	if _, err := os.Stat(filepath.Join(sessionDir, "process-groups")); !os.IsNotExist(err) {
		t.Errorf("the process record is left: %v", err)
	}
	return status, leftovers
}

// checkStore checks what dev sessions list showed (rows) against the
// files: exactly one session, every session file a session of the schema
// (strictly: no unknown field, its own id, a known status), none shown as
// active or unreadable, and the directory map naming only sessions that
// exist. It returns the session's id.
func (w *world) checkStore(rows []listed) string {
	t := w.t
	dir := filepath.Join(w.home, "sessions")
	files, _ := filepath.Glob(filepath.Join(dir, "*-*-*-*-*.json"))
	if len(files) != 1 || len(rows) != 1 {
		t.Fatalf("%d session files, %d listed; want 1 (the first save comes before the first request): %+v", len(files), len(rows), rows)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.DisallowUnknownFields()
		var s sessions.Session
		if err := dec.Decode(&s); err != nil {
			t.Fatalf("session file %s: %v\n%.500s", f, err, data)
		}
		switch s.Status {
		case sessions.Active, sessions.Complete, sessions.Failed, sessions.Interrupted:
		default:
			t.Errorf("session file %s: status %q", f, s.Status)
		}
		if s.ID+".json" != filepath.Base(f) {
			t.Errorf("session file %s holds session %q", f, s.ID)
		}
	}
	for _, r := range rows {
		if r.Status == "active" || r.Status == "unreadable" {
			t.Errorf("session %s shows as %s with no dev running (%s)", r.ID, r.Status, r.Error)
		}
	}
	if data, err := os.ReadFile(filepath.Join(dir, "directory-map.json")); err == nil {
		var m map[string]string
		if err := json.Unmarshal(data, &m); err != nil {
			t.Errorf("directory-map.json: %v", err)
		}
		for d, id := range m {
			if _, err := os.Stat(filepath.Join(dir, id+".json")); err != nil {
				t.Errorf("the directory map names %s for %s: %v", id, d, err)
			}
		}
	}
	return rows[0].ID
}

// pids are the processes the run's commands left, from the pids file.
func (w *world) pids() []int {
	data, _ := os.ReadFile(filepath.Join(w.dir, "pids"))
	var out []int
	for _, line := range strings.Split(string(data), "\n") {
		if pid, err := strconv.Atoi(strings.TrimSpace(line)); err == nil {
			out = append(out, pid)
			w.t.Cleanup(func() { killPID(pid) })
		}
	}
	return out
}

// withRunID lists the live processes whose environment holds run's id
// (Linux: /proc; elsewhere none can be listed).
func withRunID(run string) []string {
	if run == "" {
		return nil
	}
	envs, _ := filepath.Glob("/proc/[0-9]*/environ")
	var out []string
	for _, path := range envs {
		env, err := os.ReadFile(path)
		pid, _ := strconv.Atoi(strings.Split(path, "/")[2])
		if err == nil && strings.Contains(string(env), "DEV_RUN_ID="+run+"\x00") && !bgproctest.Gone(pid) {
			cmdline, _ := os.ReadFile(filepath.Dir(path) + "/cmdline")
			out = append(out, fmt.Sprintf("%d %q", pid, cmdline))
		}
	}
	return out
}
