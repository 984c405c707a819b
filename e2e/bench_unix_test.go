//go:build unix

package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/devagent/dev/benchreport"
	"github.com/devagent/dev/llm/llmtest"
	"github.com/devagent/dev/modelbench/benchtest"
	"github.com/devagent/dev/sessions"
)

// benchWorld is a world whose mock knows how to do the built-in tasks.
func benchWorld(t *testing.T, cfg map[string]any) *world {
	t.Helper()
	w := newWorld(t, cfg)
	w.passToolEnv() // the checks build Go with the warm cache
	solve, err := benchtest.Solver(0)
	if err != nil {
		t.Fatal(err)
	}
	w.srv.Respond(solve)
	return w
}

// readBenchReport reads the report.json of dir.
func readBenchReport(t *testing.T, dir string) benchreport.Report {
	t.Helper()
	r, err := benchreport.Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// benchSessions are the sessions of a report's directory; none may be
// left active.
func benchSessions(t *testing.T, dir string) []*sessions.Session {
	t.Helper()
	list, err := sessions.Open(dir, nil).List()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range list {
		if s.Status == sessions.Active {
			t.Errorf("session %s left active", s.ID)
		}
	}
	return list
}

// The built-in suite, run as a user runs it: every task done by a model
// that knows how, the table on stdout, a line per task on stderr, the
// report and the sessions in --out, nothing in the user's sessions.
func TestBenchBuiltinSuite(t *testing.T) {
	w := benchWorld(t, nil)
	out := filepath.Join(w.dir, "report")
	r := w.run("bench", "-j", "4", "--out", out)
	r.expect(t, 0)
	rep := readBenchReport(t, out)
	if len(rep.Tasks) < 12 || len(rep.Models) != 1 {
		t.Fatalf("report of %d tasks, %d rows", len(rep.Tasks), len(rep.Models))
	}
	m := rep.Models[0]
	if m.Model != "mock-model" || m.Constrain != "auto" || m.Done != m.Tasks || m.Tasks != len(rep.Tasks) || m.WellFormed != 100 ||
		m.Steps < 1 || m.TokensIn == 0 || m.WallSeconds <= 0 || rep.Suite != "builtin" || rep.Interrupted {
		t.Errorf("row %+v of report %+v", m, rep)
	}
	for _, task := range rep.Tasks {
		if !task.Done || task.ExitCode != 0 || task.Session == "" {
			t.Errorf("task %+v not done", task)
		}
	}
	if n := len(benchSessions(t, out)); n != len(rep.Tasks) {
		t.Errorf("%d sessions for %d tasks", n, len(rep.Tasks))
	}
	if _, err := os.Stat(filepath.Join(w.home, "sessions")); err == nil {
		if len(w.sessions()) > 0 {
			t.Error("dev bench stored sessions among the user's")
		}
	}
	if !strings.Contains(r.stdout, "WELL-FORMED") || !strings.Contains(r.stdout, "fix-go-sum") || !strings.Contains(r.stdout, fmt.Sprintf("%d/%d", m.Done, m.Tasks)) {
		t.Errorf("stdout lacks the report's tables:\n%s", r.stdout)
	}
	if n := strings.Count(r.stderr, ": done, "); n != len(rep.Tasks) {
		t.Errorf("%d progress lines for %d tasks:\n%s", n, len(rep.Tasks), r.stderr)
	}
	if !strings.Contains(r.stderr, filepath.Join(out, "report.md")) {
		t.Errorf("stderr does not say where the report is:\n%s", r.stderr)
	}
	md, err := os.ReadFile(filepath.Join(out, "report.md"))
	if err != nil || !strings.Contains(string(md), "| mock-model | auto |") {
		t.Errorf("report.md: %v\n%s", err, md)
	}
	// The user's dev does not know the bench's sessions; with the report's
	// directory as its home, it shows them.
	if show := w.run("sessions", "show", rep.Tasks[0].Session); show.code == 0 {
		t.Errorf("the user's dev finds a session of the bench:\n%s", show.stdout)
	}
	w.extra = append(w.extra, "DEV_AGENT_HOME="+out)
	if show := w.run("sessions", "show", rep.Tasks[0].Session); show.code != 0 {
		t.Errorf("DEV_AGENT_HOME=%s dev sessions show: exit %d\n%s", out, show.code, show.stderr)
	}
}

// --json: a JSON object per finished task on stdout, the summary last;
// nothing else on stdout. Models and modes run one after another.
func TestBenchJSON(t *testing.T) {
	w := benchWorld(t, nil)
	out := filepath.Join(w.dir, "report")
	r := w.run("bench", "--json", "--only", "exact-greeting,answer-shell-keep", "--constrain", "auto,off", "--out", out)
	r.expect(t, 0)
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if len(lines) != 5 {
		t.Fatalf("%d lines on stdout, want 4 tasks and the summary:\n%s", len(lines), r.stdout)
	}
	for i, line := range lines {
		var obj struct {
			Type      string `json:"type"`
			Task      string `json:"task"`
			Constrain string `json:"constrain"`
			Done      *bool  `json:"done"`
		}
		if err := json.Unmarshal([]byte(line), &obj); err != nil {
			t.Fatalf("line %d is not JSON: %v\n%s", i, err, line)
		}
		if i < 4 && (obj.Type != "task" || obj.Done == nil || !*obj.Done) {
			t.Errorf("line %d: %s", i, line)
		}
		if i < 2 && obj.Constrain != "auto" || i >= 2 && i < 4 && obj.Constrain != "off" {
			t.Errorf("line %d: mode %s; the modes run one after another", i, obj.Constrain)
		}
	}
	var summary struct {
		Type string `json:"type"`
		benchreport.Report
	}
	if err := json.Unmarshal([]byte(lines[4]), &summary); err != nil || summary.Type != "summary" || len(summary.Models) != 2 || len(summary.Tasks) != 4 {
		t.Errorf("summary %s %v", lines[4], err)
	}
	if summary.Models[0].Constrain != "auto" || summary.Models[1].Constrain != "off" || summary.Models[1].Done != 2 {
		t.Errorf("rows %+v", summary.Models)
	}
}

// The exit codes of SPEC §19: 0 when the run finished, whatever the
// scores; 1 when the server failed; 2 for a usage error.
func TestBenchExitCodes(t *testing.T) {
	t.Run("finished with no task done", func(t *testing.T) {
		w := newWorld(t, map[string]any{"audit": "off"})
		w.srv.Respond(func(llmtest.Request) (llmtest.Response, bool) {
			return llmtest.Response{Content: llmtest.Reply("Nothing to do.", "DONE", "I did nothing.")}, true
		})
		out := filepath.Join(w.dir, "report")
		w.run("bench", "--only", "fix-shell-count,answer-shell-keep", "--out", out).expect(t, 0)
		rep := readBenchReport(t, out)
		if len(rep.Tasks) != 2 || rep.Models[0].Done != 0 || rep.Tasks[0].Done || rep.Tasks[0].Check == "" {
			t.Errorf("report %+v", rep)
		}
	})
	t.Run("server failed", func(t *testing.T) {
		w := newWorld(t, map[string]any{"apiUrl": "http://127.0.0.1:1/v1"})
		out := filepath.Join(w.dir, "report")
		r := w.run("bench", "--out", out)
		r.expect(t, 1)
		if !strings.Contains(r.stderr, "cannot reach the model server") || !strings.Contains(r.stderr, "report.md") {
			t.Errorf("stderr:\n%s", r.stderr)
		}
		rep := readBenchReport(t, out)
		if len(rep.Tasks) != 1 || rep.Tasks[0].ExitCode != 1 || !rep.Interrupted {
			t.Errorf("the report of a failed server: %+v", rep)
		}
	})
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"unknown flag", []string{"--modle", "x"}, "unknown flag --modle"},
		{"runs", []string{"--runs", "0"}, "--runs must be at least 1"},
		{"jobs", []string{"-j", "0"}, "-j must be at least 1"},
		{"shard", []string{"--shard", "3/2"}, "the shard must be from 0 to 1 (or 2, the same as 0)"},
		{"shard form", []string{"--shard", "half"}, "want I/N"},
		{"timeout", []string{"--task-timeout", "-1s"}, "--task-timeout must be positive"},
		{"only", []string{"--only", "nope"}, `no task "nope"`},
		{"constrain", []string{"--constrain", "auto,maybe"}, "constrain"},
		{"profile", []string{"--profile", "ghost"}, `no profile "ghost"`},
		{"suite", []string{"--tasks", "/nonexistent/suite"}, "--tasks /nonexistent/suite"},
		{"argument", []string{"now"}, `unexpected argument "now"`},
		{"report without directories", []string{"report"}, "give the directories"},
		{"report of nothing", []string{"report", "/nonexistent"}, "no report there"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t, nil)
			r := w.run(append([]string{"bench"}, tc.args...)...)
			r.expect(t, 2)
			if !strings.Contains(r.stderr, tc.want) {
				t.Errorf("stderr lacks %q:\n%s", tc.want, r.stderr)
			}
			if len(w.srv.Requests()) > 0 {
				t.Error("a usage error reached the server")
			}
		})
	}
	t.Run("out holds a report", func(t *testing.T) {
		w := benchWorld(t, nil)
		out := filepath.Join(w.dir, "report")
		w.run("bench", "--only", "exact-greeting", "--out", out).expect(t, 0)
		r := w.run("bench", "--only", "exact-greeting", "--out", out)
		r.expect(t, 2)
		if !strings.Contains(r.stderr, "already holds a report") {
			t.Errorf("stderr:\n%s", r.stderr)
		}
	})
}

// writeSuite writes a user's suite: n tasks, each asking for a file
// named after it, checked by a script.
func writeSuite(t *testing.T, dir string, n int) {
	t.Helper()
	for i := range n {
		name := fmt.Sprintf("task-%03d", i)
		task := filepath.Join(dir, name)
		for path, content := range map[string]string{
			"task.md":             "Create the file " + name + ".txt holding the word yes.",
			"workspace/README.md": "Task " + name + ".\n",
			"check":               "#!/bin/sh\ngrep -qx yes " + name + ".txt\n",
		} {
			p := filepath.Join(task, path)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(content), 0o755); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// suiteModel does the tasks of writeSuite: the file, then DONE.
func suiteModel(req llmtest.Request) (llmtest.Response, bool) {
	if benchtest.IsAudit(req) {
		return llmtest.Response{Content: llmtest.Reply("Fine.", "DONE", "Checked.\n\nOverall: PASS")}, true
	}
	text := allContent(req)
	i := strings.Index(text, "Create the file ")
	if i < 0 {
		return llmtest.Response{}, false
	}
	name := strings.Fields(text[i+len("Create the file "):])[0]
	for _, m := range req.Messages {
		if m.Role == "assistant" {
			return llmtest.Response{Content: llmtest.Reply("Written.", "DONE", "Wrote "+name+".")}, true
		}
	}
	return llmtest.Response{Content: llmtest.Reply("Write it.", "WRITE_FILE", name+"\n```\nyes\n```")}, true
}

// A user's suite, split in shards run apart, merged by dev bench report.
func TestBenchUserSuiteShards(t *testing.T) {
	w := newWorld(t, nil)
	w.srv.Respond(suiteModel)
	suite := filepath.Join(w.dir, "suite")
	writeSuite(t, suite, 5)
	var dirs []string
	for i := range 2 {
		out := filepath.Join(w.dir, fmt.Sprintf("shard-%d", i))
		dirs = append(dirs, out)
		w.run("bench", "--tasks", suite, "--shard", fmt.Sprintf("%d/2", i), "--out", out).expect(t, 0)
		rep := readBenchReport(t, out)
		if rep.Shard != fmt.Sprintf("%d/2", i) || rep.Suite != suite {
			t.Errorf("shard %d: header %q %q", i, rep.Shard, rep.Suite)
		}
	}
	if got := names(readBenchReport(t, dirs[0]).Tasks); got != "task-000 task-002 task-004" {
		t.Errorf("shard 0/2 ran %s", got)
	}
	if got := names(readBenchReport(t, dirs[1]).Tasks); got != "task-001 task-003" {
		t.Errorf("shard 1/2 ran %s", got)
	}
	merged := filepath.Join(w.dir, "merged")
	r := w.run("bench", "report", dirs[0], dirs[1], "--out", merged, "--json")
	r.expect(t, 0)
	var rep benchreport.Report
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("dev bench report --json: %v\n%s", err, r.stdout)
	}
	if got := names(rep.Tasks); got != "task-000 task-001 task-002 task-003 task-004" || rep.Models[0].Done != 5 || rep.Models[0].Tasks != 5 {
		t.Errorf("merged: %s, rows %+v", got, rep.Models)
	}
	if on := readBenchReport(t, merged); len(on.Tasks) != 5 {
		t.Errorf("the merged report.json holds %d tasks", len(on.Tasks))
	}
	table := w.run("bench", "report", dirs[0], dirs[1])
	table.expect(t, 0)
	if !strings.Contains(table.stdout, "5/5") {
		t.Errorf("the merged table:\n%s", table.stdout)
	}
}

func names(tasks []benchreport.Task) string {
	var out []string
	for _, t := range tasks {
		out = append(out, t.Task)
	}
	return strings.Join(out, " ")
}

// 200 tasks of a user's suite, 8 at once: every result in the report, no
// session left active.
func TestBench200Tasks(t *testing.T) {
	w := newWorld(t, map[string]any{"audit": "off", "checkpoints": false})
	w.srv.Respond(suiteModel)
	suite := filepath.Join(w.dir, "suite")
	writeSuite(t, suite, 200)
	out := filepath.Join(w.dir, "report")
	// A generous deadline: 200 tasks on a busy machine.
	r := w.runWithin(8*time.Minute, "", "bench", "--tasks", suite, "-j", "8", "--out", out)
	r.expect(t, 0)
	rep := readBenchReport(t, out)
	if len(rep.Tasks) != 200 || rep.Models[0].Tasks != 200 || rep.Models[0].Done != 200 {
		t.Fatalf("%d tasks in the report, row %+v", len(rep.Tasks), rep.Models)
	}
	seen := map[string]bool{}
	for _, task := range rep.Tasks {
		seen[task.Task] = true
	}
	if len(seen) != 200 {
		t.Errorf("%d distinct tasks in the report", len(seen))
	}
	if n := len(benchSessions(t, out)); n != 200 {
		t.Errorf("%d sessions", n)
	}
}

// With no -j, as many tasks run at once as the server has slots
// (llama.cpp's /props total_slots).
func TestBenchJobsFromSlots(t *testing.T) {
	w := benchWorld(t, nil)
	w.srv.Impersonate(llmtest.LlamaCpp, 8192)
	w.srv.Route("GET /props", 200, `{"default_generation_settings":{"n_ctx":8192},"total_slots":3}`)
	out := filepath.Join(w.dir, "report")
	r := w.run("bench", "--only", "exact-greeting", "--out", out)
	r.expect(t, 0)
	if !strings.Contains(r.stderr, "3 at once") {
		t.Errorf("stderr does not say 3 at once:\n%s", r.stderr)
	}
}

// Ctrl+C stops dev bench: exit 130, and the report holds the tasks that
// finished, written, with their table.
func TestBenchInterruptKeepsReport(t *testing.T) {
	w := newWorld(t, nil)
	w.srv.Respond(func(req llmtest.Request) (llmtest.Response, bool) {
		if strings.Contains(allContent(req), "task-001.txt") {
			return llmtest.Response{Hang: true}, true // the second task never ends
		}
		return suiteModel(req)
	})
	suite := filepath.Join(w.dir, "suite")
	writeSuite(t, suite, 3)
	out := filepath.Join(w.dir, "report")
	cmd, stdout, stderr := w.startUntilHanging("bench", "--tasks", suite, "-j", "1", "--out", out)
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if code := exitCode(t, cmd); code != 130 {
		t.Fatalf("exit code %d, want 130; stderr:\n%s", code, stderr)
	}
	rep := readBenchReport(t, out)
	if len(rep.Tasks) != 1 || rep.Tasks[0].Task != "task-000" || !rep.Tasks[0].Done || !rep.Interrupted {
		t.Errorf("report %+v, want task-000 alone", rep)
	}
	if !strings.Contains(stdout.String(), "task-000") || !strings.Contains(stderr.String(), "interrupted") {
		t.Errorf("stdout:\n%s\nstderr:\n%s", stdout, stderr)
	}
	benchSessions(t, out)
}
