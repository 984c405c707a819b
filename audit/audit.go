// Package audit is the read-only audit sub-agent: before a worker's DONE is
// accepted, a separate conversation with its own system prompt inspects the
// workspace and gives a verdict. Its tools cannot change anything: READ_FILE,
// LIST_DIRECTORY, DONE, and COMMAND limited to an allowlist of read-only
// commands. It emits its steps as events and never prints.
package audit

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/devagent/dev/event"
	"github.com/devagent/dev/history"
	"github.com/devagent/dev/llm"
	"github.com/devagent/dev/parser"
	"github.com/devagent/dev/prompts"
	"github.com/devagent/dev/redact"
	"github.com/devagent/dev/sessions"
	"github.com/devagent/dev/shape"
	"github.com/devagent/dev/step"
	"github.com/devagent/dev/tools"
)

// ErrFormat: the auditor kept answering in a format that cannot be parsed.
var ErrFormat = errors.New("the auditor kept answering in an unparseable format")

// Command is a command the worker ran, with its exit code.
type Command struct {
	Command  string
	ExitCode int
}

// Input is what the auditor is told about the work.
type Input struct {
	Request  string // the request the worker answered with DONE
	Original string // the session's first request, when it differs
	Tasks    []parser.Task
	Summary  string   // the worker's DONE summary
	Files    []string // written or edited
	Commands []Command
}

// Result is a finished audit.
type Result struct {
	Verdict  Verdict
	Feedback string // the auditor's report, or why the audit could not pass
	Steps    int    // replies of the auditor
	Tokens   int    // spent by the audit's requests
	// Requests records the audit's model requests (SPEC §16).
	Requests []sessions.Request
}

// Auditor runs audits: each is a conversation of package step, with the
// auditor's system prompt and read-only tools, and the same handling of
// unusable replies and context overflows as the worker's. Model should
// retry transient failures itself (llm.Retrier), as for the worker.
type Auditor struct {
	Model step.Model
	// Params go with every audit request; Model is auditModel (by default
	// the worker's model).
	Params llm.Params
	// Env is where allowed commands run: the worker's directory, command
	// timeout and session directory. It must not offer background
	// processes or questions.
	Env        *tools.Env
	Commands   []string // allowed command prefixes (config auditCommands)
	MaxSteps   int      // replies before the audit gives up and fails
	MaxRetries int      // consecutive unparseable replies before ErrFormat
	// Sink receives the audit's steps as events marked event.Auditor.
	Sink event.Sink
	// Secrets masks what the audit stores and shows: tool results and the
	// auditor's own text (see step.Conversation); nil masks nothing.
	Secrets *redact.Redactor
	// Room keeps a long audit inside the context window.
	step.Room
	// Constrain and Known shape the auditor's replies with its own
	// read-only tools (SPEC §18; step.Conversation's): Known is the run's,
	// shared with the worker.
	Constrain shape.Constrain
	Known     *shape.Known
}

// DefaultMaxSteps bounds an audit when MaxSteps is not set.
const DefaultMaxSteps = 30

// noVerdict is told to the auditor once when its DONE lacks a verdict.
const noVerdict = "Your report has no verdict. Use DONE again with the same report ending in the line `Overall: PASS` or `Overall: FAIL`."

// Audit checks the work described by in and returns the verdict. Errors are
// the model's (API failures, ErrFormat) or ctx's; a failed check is a FAIL
// result, not an error.
func (a *Auditor) Audit(ctx context.Context, in Input) (result Result, err error) {
	registry := a.registry()
	request := request(in)
	state := &sessions.Session{OriginalPrompt: request}
	conv := &step.Conversation{
		Agent:      event.Auditor,
		Model:      a.Model,
		Params:     a.Params,
		Constrain:  a.Constrain,
		Offered:    tools.Shaped(offered(registry)),
		Known:      a.Known,
		System:     prompts.Audit{Dir: a.Env.Dir, Tools: promptTools(registry)}.Render(),
		Tools:      registry,
		Env:        a.Env,
		Secrets:    a.Secrets,
		Sink:       a.Sink,
		MaxRetries: a.MaxRetries,
		Room:       a.Room,
		State:      state,
	}
	conv.Append(llm.Message{Role: llm.RoleUser, Content: request})
	maxSteps := a.MaxSteps
	if maxSteps <= 0 {
		maxSteps = DefaultMaxSteps
	}
	defer func() { result.Tokens, result.Requests = state.TotalTokens, state.Requests }()
	finish := func(verdict Verdict, feedback string) (Result, error) {
		result.Verdict, result.Feedback = verdict, feedback
		return result, nil
	}
	askedForVerdict := false
	for result.Steps < maxSteps {
		if err := conv.MaybeCompress(ctx); err != nil {
			return result, err
		}
		reply, err := conv.Request(ctx, result.Steps+1)
		if err != nil {
			return result, err
		}
		result.Steps++
		resp, err := conv.Parse(reply)
		if err != nil {
			if conv.Reject(reply, err) {
				return result, fmt.Errorf("%w: %w", ErrFormat, err)
			}
			continue
		}
		conv.Accept(resp, result.Steps)
		results, _ := conv.Act(ctx, resp)
		if ctx.Err() != nil {
			return result, ctx.Err()
		}
		if last := results[len(results)-1]; last.Done {
			verdict, ok := ParseVerdict(last.Output)
			report := strings.TrimSpace(last.Output)
			switch {
			case ok:
				return finish(verdict, report)
			case askedForVerdict:
				return finish(Fail, report+"\n\n(The auditor gave no verdict, so the work is not accepted.)")
			}
			askedForVerdict = true
			last.OK, last.Output = false, noVerdict
			results[len(results)-1] = last
		}
		conv.Append(history.Results(resp.Tools, tools.Held(results), ""))
	}
	return finish(Fail, fmt.Sprintf("The audit could not reach a verdict within %d steps. Make the work easy to verify: name the files changed and the command that proves it works.", maxSteps))
}

// registry is the auditor's tools: the read-only ones, and every other
// worker tool as a refusal.
func (a *Auditor) registry() *tools.Registry {
	allowed := []tools.Tool{tools.ReadFileTool{}, tools.ListDirectoryTool{}, commandTool{policy: newPolicy(a.Commands)}, doneTool{}}
	names := make([]string, len(allowed))
	for i, t := range allowed {
		names[i] = t.Name()
	}
	all := append([]tools.Tool(nil), allowed...)
	for _, name := range tools.Worker().Names() {
		if !slices.Contains(names, name) {
			all = append(all, refusedTool{name: name, allowed: names})
		}
	}
	return tools.NewRegistry(all...)
}

func promptTools(r *tools.Registry) []prompts.Tool {
	var out []prompts.Tool
	for _, d := range offered(r) {
		out = append(out, prompts.Tool{Name: d.Name, Description: d.Description, Example: d.Example})
	}
	return out
}

// offered are the tools the auditor is offered: its read-only ones, not
// the refusals standing for the worker's others.
func offered(r *tools.Registry) []tools.Doc {
	var out []tools.Doc
	for _, d := range r.Docs() {
		if d.Description != "" {
			out = append(out, d)
		}
	}
	return out
}

func request(in Input) string {
	req := prompts.AuditRequest{Request: in.Request, Summary: in.Summary, Files: in.Files}
	if in.Original != in.Request {
		req.Original = in.Original
	}
	for _, t := range in.Tasks {
		req.Tasks = append(req.Tasks, t.String())
	}
	for _, c := range in.Commands {
		req.Commands = append(req.Commands, prompts.AuditCommand{Command: c.Command, ExitCode: c.ExitCode})
	}
	return req.Render()
}
