package realserver

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/devagent/dev/benchreport"
	"github.com/devagent/dev/sessions"
)

// benchTasks are the built-in tasks TestBenchOnLlamaServer runs: one of
// each kind that needs no compiler (their checks are sh and the tree), so
// that the test stays short.
var benchTasks = []string{"answer-shell-keep", "exact-greeting", "fix-shell-count"}

// dev bench on the real llama-server with two slots (SPEC §19): with no
// -j it reads the slots from /props and runs two tasks at once; the run
// finishes (exit 0) with every task in report.json and each task's session
// under --out, none among the user's. Under constrain auto every worker
// request carries the grammar, and every reply parses on the first try
// (100% well-formed) but one the reply cap cut: the grammar bounds each
// part of a reply, yet SmolLM2 repeating a short line ("##", "1. ")
// within those bounds can write more than the 2,048-token cap, about one
// task in ten (docs/real-models.md shows such replies). maxLoops 2 and the
// time limit keep the test short whatever the model writes.
func TestBenchOnLlamaServer(t *testing.T) {
	srv := server(t, "smollm2", 16384, 2) // 8,192 tokens a slot, as TestRealModels' one slot has
	w := newWorld(t, map[string]any{"apiUrl": srv.BaseURL(), "model": "smollm2", "temperature": 0,
		"maxLoops": 2, "requestTimeout": 600})
	out := filepath.Join(t.TempDir(), "report")
	r := w.run("", "bench", "--only", strings.Join(benchTasks, ","), "--task-timeout", "2m", "--out", out)
	t.Logf("dev bench: exit %d in %s\n%s", r.code, r.elapsed.Round(time.Second), r.stderr)
	if r.code != 0 {
		t.Fatalf("dev bench: exit %d, want 0", r.code)
	}
	if !strings.Contains(r.stderr, "smollm2, constrain auto: 2 at once") {
		t.Errorf("dev bench did not run the server's 2 slots at once:\n%s", head(r.stderr, 5))
	}
	rep, err := benchreport.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	store := sessions.Open(out, nil)
	var names []string
	for _, task := range rep.Tasks {
		names = append(names, task.Task)
		if task.Constrain != "auto" || task.ExitCode == 1 {
			t.Errorf("task %s: constrain %s, exit %d (%s)", task.Task, task.Constrain, task.ExitCode, task.Error)
		}
		s, err := store.Load(task.Session)
		if err != nil {
			t.Errorf("task %s: its session %q is not under --out: %v", task.Task, task.Session, err)
			continue
		}
		if s.Status == sessions.Active {
			t.Errorf("task %s: session %s left active", task.Task, s.ID)
		}
		checkWellFormed(t, task, s.Requests)
	}
	if !slices.Equal(names, benchTasks) || rep.Interrupted {
		t.Errorf("report.json holds tasks %v (interrupted %v), want %v", names, rep.Interrupted, benchTasks)
	}
	if list, err := store.List(); err != nil || len(list) != len(benchTasks) {
		t.Errorf("%d sessions under --out (%v), want %d", len(list), err, len(benchTasks))
	}
	if ss := w.sessions(); len(ss) != 0 {
		t.Errorf("%d sessions among the user's, want none", len(ss))
	}
}

// checkWellFormed checks a task's worker requests: each carried the
// grammar, and each reply parsed on the first try unless the reply cap
// cut it; the report's figure for the task agrees with the records.
func checkWellFormed(t *testing.T, task benchreport.Task, requests []sessions.Request) {
	t.Helper()
	replies, cut := 0, 0
	for i, q := range requests {
		if q.Purpose != sessions.PurposeWorker {
			continue
		}
		replies++
		if q.Constrained != sessions.ConstrainedGrammar {
			t.Errorf("task %s: worker request %d carried %q, want the grammar", task.Task, i, q.Constrained)
		}
		switch {
		case !q.FormatError:
		case q.Rejected != nil && q.Rejected.Cut:
			cut++
			t.Logf("task %s: reply %d cut at its cap of %d tokens: %q … %q", task.Task, i, q.MaxTokens, q.Rejected.Head, q.Rejected.Tail)
		default:
			t.Errorf("task %s: a reply shaped by the grammar did not parse: %+v", task.Task, q.Rejected)
		}
	}
	if replies == 0 {
		t.Errorf("task %s: no worker request", task.Task)
	}
	if cut == 0 && (task.WellFormed != 100 || task.FormatErrors != 0) {
		t.Errorf("task %s: %v%% well-formed, %d format errors in report.json; its records have none", task.Task, task.WellFormed, task.FormatErrors)
	}
}
