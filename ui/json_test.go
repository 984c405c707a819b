package ui

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/devagent/dev/event"
	protocol "github.com/devagent/dev/parser"
	"github.com/devagent/dev/tools"
)

// everyEvent holds one event of each type, with every field set.
func everyEvent() []event.Event {
	cost := 0.0123
	tasks := []protocol.Task{{Status: protocol.Complete, Text: "look"}, {Status: protocol.InProgress, Text: "edit"}}
	return []event.Event{
		event.SessionStarted{ID: "0b6c2a9e-4b7d-4e8a-9c3f-2d5e8b1a7c40", Resumed: true, Model: "m", Dir: "/p",
			LastRequest: "earlier", LastAnswer: "answer", LastStatus: "complete", Tasks: tasks},
		event.ContextWindow{Window: 4096, Configured: 131072, Server: "llama.cpp", ServerWindow: 4096, Source: "GET /props"},
		event.FileAttached{Path: "notes.md", Lines: 12},
		event.RequestStarted{Agent: event.Worker, Step: 1},
		event.ServerAlive{Agent: event.Worker}, // progress: no --json form
		event.Streaming{Agent: event.Worker, Content: "# Agent", Reasoning: "hmm", Chunks: 1, Tokens: 3, Estimated: true},
		event.ReplyReceived{Agent: event.Worker, PromptTokens: 1200, CompletionTokens: 80}, // progress: no --json form
		event.ReplyParsed{Agent: event.Worker, Step: 1, Response: protocol.Response{Thoughts: "Read it.", Reasoning: "hidden",
			HasTaskList: true, Tasks: tasks, Tools: []protocol.ToolCall{{Name: "READ_FILE", Input: "\"main.go\" 1-5"}}}},
		event.ToolStarted{Agent: event.Worker, Tool: "READ_FILE", Input: "\"main.go\" 1-5"},
		event.CommandOutput{Agent: event.Worker, Output: "live\n"}, // progress: no --json form
		event.ToolFinished{Agent: event.Worker, Input: "\"main.go\" 1-5", Result: tools.Result{Tool: "READ_FILE", Summary: "main.go 1-5", OK: true,
			Output: "main.go (2 lines)\npackage main\n", Files: []string{"ignored"}},
			Files: []event.FileChange{{Path: "main.go", Change: "modified", Diff: "not in --json"}}},
		event.FormatProblem{Agent: event.Auditor, Message: "Your reply was cut off at the output limit of 400 tokens (maxTokens) before it was complete.",
			Attempt: 3, Max: 3, Final: true, Cut: true, Limit: 400, Configured: true, Head: []string{"# Agent Response", "## Thoughts"}, Tail: []string{"and so on"}, Lines: 40},
		event.Retrying{Message: "HTTP 500: boom", Attempt: 2, Max: 10, Wait: 1500 * time.Millisecond},
		event.Compressing{Agent: event.Worker, Tokens: 3500, Window: 4096, Reason: event.ReasonThreshold},
		event.Compressed{Agent: event.Worker, TokensBefore: 3500, TokensAfter: 1204, Window: 4096, Reason: event.ReasonThreshold, Cuts: 2, Fallback: true},
		event.AuditStarted{},
		event.AuditFinished{Verdict: "FAIL", Feedback: "Overall: FAIL\nAdd a test.", Steps: 2},
		event.ReplyInterrupted{Agent: event.Worker, Content: "# Agent Response\n\n## Thoughts\nHalf a"},
		event.Warning{Message: "careful"},
		event.Notice{Message: "stopped 2 process groups or processes an earlier run of this session left running"},
		event.Failure{Message: "the server went away"},
		event.Finished{Status: "failed", ExitCode: 1, Summary: "", SessionID: "0b6c2a9e-4b7d-4e8a-9c3f-2d5e8b1a7c40", Loops: 3, Tokens: 1234, FormatErrors: 1, Audits: 1,
			EarlyStops: 1, Cost: &cost, Audit: event.AuditSkipped, Usage: event.Usage{Model: "m", Steps: 3, TokensIn: 1200, TokensOut: 80}},
		event.BackgroundStarted{ID: "proc_ab12cd", Command: "npm run dev", PID: 4242},
		event.BackgroundExited{ID: "proc_ab12cd", Command: "npm run dev", Status: "killed", ExitCode: -1, Runtime: 2500 * time.Millisecond},
	}
}

// TestJSONSchemaGolden pins the --json form of every event type.
func TestJSONSchemaGolden(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	j := NewJSON(&buf)
	for _, e := range everyEvent() {
		j.Emit(e)
	}
	for i, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		if !json.Valid([]byte(line)) {
			t.Errorf("line %d is not JSON: %s", i+1, line)
		}
	}
	golden(t, "json-events", buf.String())
}

// TestEveryEventTypeIsInTheGolden reads package event's source, so that a
// new event type cannot be added without deciding its --json form.
func TestEveryEventTypeIsInTheGolden(t *testing.T) {
	t.Parallel()
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, "../event/event.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var declared []string
	for _, d := range file.Decls {
		if fn, ok := d.(*ast.FuncDecl); ok && fn.Name.Name == "Name" && fn.Recv != nil {
			declared = append(declared, fn.Recv.List[0].Type.(*ast.Ident).Name)
		}
	}
	var covered []string
	for _, e := range everyEvent() {
		covered = append(covered, strings.TrimPrefix(fmt.Sprintf("%T", e), "event."))
	}
	for _, name := range declared {
		if !slices.Contains(covered, name) {
			t.Errorf("event.%s is not in everyEvent: add it, and its line to testdata/json-events.golden (or decide it has none)", name)
		}
	}
	if len(declared) < 18 {
		t.Errorf("found only %d event types in event.go: %v", len(declared), declared)
	}
}
