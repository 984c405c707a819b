package modelbench

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/devagent/dev/procgroup"
)

// The check's environment: what a check reads besides the tree.
const (
	// AnswerEnv holds the run's final answer (the DONE summary): what a
	// question's check looks for.
	AnswerEnv = "DEV_BENCH_ANSWER"
	// TaskEnv holds the task's name.
	TaskEnv = "DEV_BENCH_TASK"
)

const (
	// checkGrace is how long a check stopped at its limit has to exit
	// before it is killed, with what it started.
	checkGrace = 2 * time.Second
	// checkOutputTail is how much of a check's output the report keeps:
	// its end, which says why it failed.
	checkOutputTail = 2 << 10
	// maxAnswer bounds the answer passed in the environment (Linux refuses
	// a single variable over 128 KB).
	maxAnswer = 32 << 10
)

// CheckResult is how a task's check went.
type CheckResult struct {
	Passed  bool
	Output  string // the end of its output
	Elapsed time.Duration
}

// Check runs the task's check in dir, the finished tree, with the run's
// answer in its environment: exit 0 means done. A built-in script is
// written to a temporary file first, outside the tree, and run by sh. The check and
// everything it started are stopped at limit, or when ctx ends (the error
// is then ctx's: the task did not finish).
func (t Task) Check(ctx context.Context, dir, answer string, limit time.Duration) (CheckResult, error) {
	start := time.Now()
	res := func(passed bool, output string) (CheckResult, error) {
		return CheckResult{Passed: passed, Output: output, Elapsed: time.Since(start)}, nil
	}
	cmd := exec.Command(t.CheckPath)
	if t.CheckPath == "" {
		// A built-in script is run by sh, not exec'd: a file just
		// written can be exec'd only once no process holds it open for
		// writing, and a command forked meanwhile by another task's run
		// may (ETXTBSY, golang/go#22315).
		f, err := os.CreateTemp("", "dev-bench-check-")
		if err != nil {
			return CheckResult{}, err
		}
		defer os.Remove(f.Name())
		_, err = f.Write(t.Script)
		if err = errors.Join(err, f.Close()); err != nil {
			return CheckResult{}, err
		}
		cmd = exec.Command("/bin/sh", f.Name())
	}
	if len(answer) > maxAnswer {
		answer = answer[:maxAnswer]
	}
	out := &tailWriter{max: checkOutputTail}
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), AnswerEnv+"="+answer, TaskEnv+"="+t.Name)
	cmd.Stdout, cmd.Stderr = out, out
	cmd.WaitDelay = checkGrace // a child holding the output open does not hold the check
	g, err := procgroup.Start(cmd, procgroup.Options{DieWithParent: true})
	if err != nil {
		return res(false, "the check did not start: "+err.Error())
	}
	timer := time.NewTimer(limit)
	defer timer.Stop()
	select {
	case <-g.Done():
		g.Stop(checkGrace) // what it left running
	case <-timer.C:
		g.Stop(checkGrace)
		return res(false, out.String()+"\n(the check ran past the time limit of "+limit.String()+" and was stopped)")
	case <-ctx.Done():
		g.Stop(checkGrace)
		return CheckResult{}, ctx.Err()
	}
	return res(g.ExitCode() == 0, out.String())
}

// tailWriter keeps the last max bytes written to it.
type tailWriter struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (w *tailWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, p...)
	if over := len(w.buf) - w.max; over > 0 {
		w.buf = append(w.buf[:0], w.buf[over:]...)
	}
	return len(p), nil
}

func (w *tailWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return strings.TrimSpace(strings.ToValidUTF8(string(w.buf), ""))
}
