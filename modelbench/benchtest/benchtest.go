// Package benchtest is a scripted model that knows how to do the tasks of
// dev bench's built-in suite, for tests and benchmarks: against
// llm/llmtest's mock server it answers a built-in task's worker requests
// as a model that does the task in two steps (writing the files of the
// solution, then DONE with the answer), and the auditor's requests with a
// passing verdict. The solutions live here, not in the dev binary.
package benchtest

import (
	"context"
	"embed"
	"fmt"
	"sort"
	"strings"
	"time"

	"golang.org/x/tools/txtar"

	"github.com/devagent/dev/llm"
	"github.com/devagent/dev/llm/llmtest"
	"github.com/devagent/dev/modelbench"
)

// solutions holds a solution of each built-in task, solutions/<name>.txtar:
// its comment is the answer (the DONE summary), its files those to write.
//
//go:embed solutions/*.txtar
var solutions embed.FS

// Solution is what does a built-in task.
type Solution struct {
	Files  map[string]string // path in the tree → whole content
	Answer string            // the DONE summary
}

// Solutions are the solutions of the built-in tasks, by name.
func Solutions() (map[string]Solution, error) {
	tasks, err := modelbench.Builtin()
	if err != nil {
		return nil, err
	}
	out := map[string]Solution{}
	for _, t := range tasks {
		data, err := solutions.ReadFile("solutions/" + t.Name + ".txtar")
		if err != nil {
			return nil, fmt.Errorf("no solution of %s: %w", t.Name, err)
		}
		a := txtar.Parse(data)
		s := Solution{Files: map[string]string{}, Answer: strings.TrimSpace(string(a.Comment))}
		for _, f := range a.Files {
			s.Files[f.Name] = string(f.Data)
		}
		out[t.Name] = s
	}
	return out, nil
}

// Solver answers chat requests (llmtest.Server.Respond) for the built-in
// tasks: to a task's first worker request, WRITE_FILE of each file of its
// solution (DONE at once when there is none); then DONE with its answer;
// to the auditor, a passing verdict. A request of no built-in task is left
// to the server's script. Each reply waits delay first, in its own
// request: requests made at once are answered at once, as a server with
// enough slots does.
func Solver(delay time.Duration) (func(llmtest.Request) (llmtest.Response, bool), error) {
	sols, err := Solutions()
	if err != nil {
		return nil, err
	}
	tasks, err := modelbench.Builtin()
	if err != nil {
		return nil, err
	}
	return func(req llmtest.Request) (llmtest.Response, bool) {
		var content string
		switch {
		case IsAudit(req):
			content = llmtest.Reply("The work is done as asked.", "DONE", "Checked the files.\n\nOverall: PASS")
		default:
			t, ok := taskIn(tasks, req)
			if !ok {
				return llmtest.Response{}, false
			}
			content = reply(sols[t], steps(req))
		}
		if delay <= 0 {
			return llmtest.Response{Content: content}, true
		}
		return llmtest.Response{Respond: func(ctx context.Context, _ llmtest.Request) llmtest.Response {
			timer := time.NewTimer(delay)
			defer timer.Stop()
			select {
			case <-timer.C:
			case <-ctx.Done():
			}
			return llmtest.Response{Content: content}
		}}, true
	}, nil
}

// reply is the solver's reply at a step of a task.
func reply(s Solution, step int) string {
	if step > 0 || len(s.Files) == 0 {
		return llmtest.Reply("The task is done.", "DONE", s.Answer)
	}
	paths := make([]string, 0, len(s.Files))
	for p := range s.Files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	var calls []llmtest.Call
	for _, p := range paths {
		calls = append(calls, llmtest.Call{Tool: "WRITE_FILE", Input: fmt.Sprintf("%s\n````\n%s````", p, s.Files[p])})
	}
	return llmtest.Template("I know what to write.", "[~] write the files", calls...)
}

// IsAudit tells the auditor's requests from the worker's.
func IsAudit(req llmtest.Request) bool {
	return len(req.Messages) > 0 && strings.HasPrefix(req.Messages[0].Content, "You are the auditor of dev")
}

// TaskOf is the built-in task a request (the worker's or the auditor's)
// works on.
func TaskOf(req llmtest.Request) (string, bool) {
	tasks, err := modelbench.Builtin()
	if err != nil {
		return "", false
	}
	return taskIn(tasks, req)
}

// taskIn is the task of tasks whose request the conversation began with.
func taskIn(tasks []modelbench.Task, req llmtest.Request) (string, bool) {
	for _, m := range req.Messages {
		if m.Role != llm.RoleUser {
			continue
		}
		for _, t := range tasks {
			if strings.Contains(m.Content, t.Prompt) {
				return t.Name, true
			}
		}
		return "", false // the first user message holds the request
	}
	return "", false
}

// steps counts the worker's replies so far.
func steps(req llmtest.Request) int {
	n := 0
	for _, m := range req.Messages {
		if m.Role == llm.RoleAssistant {
			n++
		}
	}
	return n
}
