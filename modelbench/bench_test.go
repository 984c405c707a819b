package modelbench_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/devagent/dev/app"
	"github.com/devagent/dev/benchreport"
	"github.com/devagent/dev/config"
	"github.com/devagent/dev/llm/llmtest"
	"github.com/devagent/dev/modelbench"
	"github.com/devagent/dev/sessions"
)

// rig is a mock server, the user's config directory and a suite of tasks
// whose checks look for a file named after the task.
type rig struct {
	t     *testing.T
	srv   *llmtest.Server
	home  string // the user's config directory
	out   string // the report's
	tasks []modelbench.Task
}

func newRig(t *testing.T, names ...string) *rig {
	t.Helper()
	t.Parallel()
	r := &rig{t: t, srv: llmtest.New("mock-model"), home: t.TempDir(), out: filepath.Join(t.TempDir(), "report")}
	t.Cleanup(r.srv.Close)
	suite := t.TempDir()
	for _, n := range names {
		// Done when the run wrote <name>.txt.
		writeTask(t, suite, n, "Write the file "+n+".txt.", "#!/bin/sh\ntest -f "+n+".txt\n", map[string]string{"README.md": "A task.\n"})
	}
	var err error
	if r.tasks, err = modelbench.Load(suite); err != nil {
		t.Fatal(err)
	}
	return r
}

// writeAndDone answers each task's first request by writing its file and
// the next by DONE.
func writeAndDone(req llmtest.Request) (llmtest.Response, bool) {
	name := taskName(req)
	if replied(req) {
		return llmtest.Response{Content: llmtest.Reply("Written.", "DONE", "Wrote "+name+".txt.")}, true
	}
	return llmtest.Response{Content: llmtest.Reply("Write it.", "WRITE_FILE", name+".txt\n```\nyes\n```")}, true
}

// taskName finds the task a worker request is about.
func taskName(req llmtest.Request) string {
	for _, m := range req.Messages {
		if i := strings.Index(m.Content, "Write the file "); i >= 0 {
			rest := m.Content[i+len("Write the file "):]
			return rest[:strings.Index(rest, ".txt")]
		}
	}
	return ""
}

// replied reports whether the conversation has a reply of the model.
func replied(req llmtest.Request) bool {
	for _, m := range req.Messages {
		if m.Role == "assistant" {
			return true
		}
	}
	return false
}

func (r *rig) options(jobs int) modelbench.Options {
	cfg := config.Default()
	cfg.APIURL, cfg.Model = r.srv.BaseURL(), "mock-model"
	cfg.MaxRetriesAutomated, cfg.Audit = 1, config.AuditOff
	return modelbench.Options{
		Tasks:       r.tasks,
		Variants:    []modelbench.Variant{{Model: "mock-model", Constrain: "auto", Jobs: jobs, Options: app.Options{Config: cfg, ConfigDir: r.home}}},
		Runs:        1,
		TaskTimeout: time.Minute,
		Out:         r.out,
		Report:      benchreport.Report{Version: "test", Suite: "suite"},
	}
}

// readReport reads the report the run left in its directory.
func (r *rig) readReport() benchreport.Report {
	r.t.Helper()
	rep, err := benchreport.Read(r.out)
	if err != nil {
		r.t.Fatal(err)
	}
	return rep
}

// A whole run: each task in a fresh tree, its check, its session under the
// report's directory and none in the user's; the report in order.
func TestRunSuite(t *testing.T) {
	r := newRig(t, "c", "a", "b")
	r.srv.Respond(writeAndDone)
	var heard []string
	o := r.options(2)
	o.Runs = 2
	o.Finished = func(task benchreport.Task, finished, total int) {
		heard = append(heard, task.Task)
		if total != 6 || finished != len(heard) {
			t.Errorf("finished %d of %d after %d tasks", finished, total, len(heard))
		}
	}
	rep, err := modelbench.New(o).Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(heard) != 6 {
		t.Errorf("heard of %d tasks, want 6", len(heard))
	}
	var order []string
	for _, task := range rep.Tasks {
		order = append(order, task.Task+"#"+string(rune('0'+task.Run)))
		if !task.Done || task.ExitCode != 0 || task.Steps != 2 || task.WellFormed != 100 || task.Replies != 2 || task.Session == "" {
			t.Errorf("task %+v: want done in 2 well-formed steps", task)
		}
	}
	if got := strings.Join(order, " "); got != "a#1 a#2 b#1 b#2 c#1 c#2" {
		t.Errorf("report order %s, want by task then run", got)
	}
	if len(rep.Models) != 1 || rep.Models[0].Tasks != 6 || rep.Models[0].Done != 6 || rep.Models[0].WallSeconds <= 0 || rep.Interrupted {
		t.Errorf("models %+v, interrupted %v", rep.Models, rep.Interrupted)
	}
	if on := r.readReport(); len(on.Tasks) != 6 || on.Models[0].Done != 6 {
		t.Errorf("report.json holds %d tasks, %+v", len(on.Tasks), on.Models)
	}
	if _, err := os.Stat(filepath.Join(r.out, benchreport.MarkdownFile)); err != nil {
		t.Error(err)
	}
	store := sessions.Open(r.out, nil)
	for _, task := range rep.Tasks {
		s, err := store.Load(task.Session)
		if err != nil {
			t.Fatalf("task %s's session: %v", task.Task, err)
		}
		if s.Status != sessions.Complete || !strings.HasPrefix(s.OriginalPrompt, "Write the file "+task.Task) {
			t.Errorf("session of %s: status %s, prompt %q", task.Task, s.Status, s.OriginalPrompt)
		}
		if _, err := os.Stat(s.WorkingDirectory); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("the temporary tree %s is still there: %v", s.WorkingDirectory, err)
		}
	}
	if _, err := os.Stat(filepath.Join(r.home, "sessions")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the user's config directory got sessions: %v", err)
	}
}

// -j N runs N tasks of a model at once: each request waits until N are at
// the server together, which only happens when they run at once.
func TestRunConcurrently(t *testing.T) {
	r := newRig(t, "a", "b", "c", "d", "e", "f")
	const jobs = 3
	var mu sync.Mutex
	waiting, most := 0, 0
	all := make(chan struct{})
	r.srv.Respond(func(req llmtest.Request) (llmtest.Response, bool) {
		resp, _ := writeAndDone(req)
		return llmtest.Response{Respond: func(ctx context.Context, _ llmtest.Request) llmtest.Response {
			mu.Lock()
			waiting++
			most = max(most, waiting)
			if waiting == jobs {
				close(all)
			}
			mu.Unlock()
			defer func() { mu.Lock(); waiting--; mu.Unlock() }()
			select {
			case <-all:
			case <-ctx.Done():
			case <-time.After(20 * time.Second): // the test fails below
			}
			return resp
		}}, true
	})
	rep, err := modelbench.New(r.options(jobs)).Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if most < jobs {
		t.Errorf("at most %d requests at once, want %d", most, jobs)
	}
	if most > jobs {
		t.Errorf("%d requests at once with -j %d", most, jobs)
	}
	if rep.Models[0].Done != 6 {
		t.Errorf("%+v", rep.Models)
	}
}

// A server failure (exit 1) stops the run: the report keeps the failed
// task, says it was stopped, and the error says what dev said.
func TestRunServerFailure(t *testing.T) {
	r := newRig(t, "a", "b", "c")
	r.srv.Respond(func(llmtest.Request) (llmtest.Response, bool) {
		return llmtest.Response{Status: 401, Body: `{"error":{"message":"bad key"}}`}, true
	})
	rep, err := modelbench.New(r.options(1)).Run(context.Background())
	if !errors.Is(err, modelbench.ErrServer) || !strings.Contains(err.Error(), "apiKey") {
		t.Fatalf("err = %v, want ErrServer saying what to fix", err)
	}
	if len(rep.Tasks) != 1 || rep.Tasks[0].ExitCode != app.ExitFailure || rep.Tasks[0].Done || !rep.Interrupted {
		t.Errorf("report %+v", rep)
	}
	if on := r.readReport(); !on.Interrupted || len(on.Tasks) != 1 {
		t.Errorf("report.json: %+v", on)
	}
}

// A run past --task-timeout is stopped and not done; its check never runs;
// the next task runs.
func TestRunTaskTimeout(t *testing.T) {
	r := newRig(t, "a", "b")
	r.srv.Respond(func(req llmtest.Request) (llmtest.Response, bool) {
		if taskName(req) == "a" {
			return llmtest.Response{Hang: true}, true
		}
		return writeAndDone(req)
	})
	o := r.options(1)
	o.TaskTimeout = 500 * time.Millisecond
	rep, err := modelbench.New(o).Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Tasks) != 2 {
		t.Fatalf("tasks %+v", rep.Tasks)
	}
	a, b := rep.Tasks[0], rep.Tasks[1]
	if a.Done || !a.TimedOut || a.ExitCode != app.ExitInterrupted || a.CheckSeconds != 0 || !strings.Contains(a.Error, "--task-timeout") {
		t.Errorf("timed-out task %+v", a)
	}
	if !b.Done {
		t.Errorf("the next task %+v", b)
	}
	if s, err := sessions.Open(r.out, nil).Load(a.Session); err != nil || s.Status == sessions.Active {
		t.Errorf("the timed-out session: %v %v", s.Status, err)
	}
}

// Ctrl+C (ctx) stops the run: the tasks under way are left out, the report
// holds what finished and says it was stopped.
func TestRunInterrupted(t *testing.T) {
	r := newRig(t, "a", "b", "c")
	r.srv.Respond(func(req llmtest.Request) (llmtest.Response, bool) {
		if taskName(req) == "b" {
			return llmtest.Response{Hang: true}, true
		}
		return writeAndDone(req)
	})
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-r.srv.Hanging()
		cancel()
	}()
	rep, err := modelbench.New(r.options(1)).Run(ctx)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if len(rep.Tasks) != 1 || rep.Tasks[0].Task != "a" || !rep.Interrupted {
		t.Errorf("report %+v, want task a alone", rep)
	}
	if on := r.readReport(); len(on.Tasks) != 1 || !on.Interrupted || on.Models[0].Tasks != 1 {
		t.Errorf("report.json %+v", on)
	}
	list, err := sessions.Open(r.out, nil).List()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range list {
		if s.Status == sessions.Active {
			t.Errorf("session %s left active", s.ID)
		}
	}
}
