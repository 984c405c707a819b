// Package audit is the read-only audit sub-agent: before a worker's DONE is
// accepted, a separate conversation with its own system prompt inspects the
// workspace and gives a verdict. Its tools cannot change anything: READ_FILE,
// LIST_DIRECTORY, DONE, and COMMAND limited to an allowlist of read-only
// commands. It emits nothing and never prints; the caller renders its result.
package audit

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/devagent/dev/llm"
	"github.com/devagent/dev/parser"
	"github.com/devagent/dev/prompts"
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

// Step is one reply of the auditor and what its tools returned.
type Step struct {
	Thoughts string
	Calls    []parser.ToolCall
	Results  []tools.Result
}

// Result is a finished audit.
type Result struct {
	Verdict    Verdict
	Feedback   string // the auditor's report, or why the audit could not pass
	Steps      int    // replies of the auditor
	Transcript []Step
}

// Auditor runs audits. Model should retry transient failures itself
// (llm.Retrier), as for the worker.
type Auditor struct {
	Model       llm.Streamer
	ModelName   string
	Temperature *float64
	MaxTokens   *int
	// Env is where allowed commands run: the worker's directory and
	// command timeout. It must not offer background processes or questions.
	Env        *tools.Env
	Commands   []string // allowed command prefixes (config auditCommands)
	MaxSteps   int      // replies before the audit gives up and fails
	MaxRetries int      // consecutive unparseable replies before ErrFormat
}

// DefaultMaxSteps bounds an audit when MaxSteps is not set.
const DefaultMaxSteps = 30

// noVerdict is told to the auditor once when its DONE lacks a verdict.
const noVerdict = "Your report has no verdict. Use DONE again with the same report ending in the line `Overall: PASS` or `Overall: FAIL`."

// audit is the state of one audit conversation.
type audit struct {
	*Auditor
	tools   *tools.Registry
	system  string
	history []llm.Message
	result  Result
}

// Audit checks the work described by in and returns the verdict. Errors are
// the model's (API failures, ErrFormat) or ctx's; a failed check is a FAIL
// result, not an error.
func (a *Auditor) Audit(ctx context.Context, in Input) (Result, error) {
	au := &audit{Auditor: a, tools: a.registry()}
	au.system = prompts.Audit{Dir: a.Env.Dir, Tools: promptTools(au.tools)}.Render()
	au.history = []llm.Message{{Role: llm.RoleUser, Content: request(in)}}
	maxSteps := a.MaxSteps
	if maxSteps <= 0 {
		maxSteps = DefaultMaxSteps
	}
	formatFailures, askedForVerdict := 0, false
	for au.result.Steps < maxSteps {
		reply, err := a.Model.Stream(ctx, au.chatRequest(), nil)
		if err != nil {
			return au.result, err
		}
		au.result.Steps++
		resp, err := au.parse(reply)
		if err != nil {
			if formatFailures++; formatFailures > a.MaxRetries {
				return au.result, fmt.Errorf("%w: %w", ErrFormat, err)
			}
			au.reject(reply, err)
			continue
		}
		formatFailures = 0
		au.history = append(au.history, llm.Message{Role: llm.RoleAssistant, Content: resp.Template()})
		results := au.act(ctx, resp)
		au.result.Transcript = append(au.result.Transcript, Step{Thoughts: resp.Thoughts, Calls: resp.Tools, Results: results})
		if ctx.Err() != nil {
			return au.result, ctx.Err()
		}
		if last := results[len(results)-1]; last.Done {
			verdict, ok := ParseVerdict(last.Output)
			if ok || askedForVerdict {
				return au.finish(verdict, ok, last.Output), nil
			}
			askedForVerdict = true
			last.OK, last.Output = false, noVerdict
			results[len(results)-1] = last
		}
		au.history = append(au.history, llm.Message{Role: llm.RoleUser, Content: tools.ResultsMessage(resp.Tools, results, "")})
	}
	au.result.Verdict = Fail
	au.result.Feedback = fmt.Sprintf("The audit could not reach a verdict within %d steps. Make the work easy to verify: name the files changed and the command that proves it works.", maxSteps)
	return au.result, nil
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
	for _, d := range r.Docs() {
		if d.Description != "" { // refusals are not offered
			out = append(out, prompts.Tool{Name: d.Name, Description: d.Description, Example: d.Example})
		}
	}
	return out
}

func request(in Input) string {
	req := prompts.AuditRequest{Request: in.Request, Summary: in.Summary, Files: in.Files}
	if in.Original != in.Request {
		req.Original = in.Original
	}
	marks := map[parser.Status]string{parser.Complete: "[x]", parser.InProgress: "[~]", parser.Pending: "[ ]"}
	for _, t := range in.Tasks {
		req.Tasks = append(req.Tasks, marks[t.Status]+" "+t.Text)
	}
	for _, c := range in.Commands {
		req.Commands = append(req.Commands, prompts.AuditCommand{Command: c.Command, ExitCode: c.ExitCode})
	}
	return req.Render()
}

func (au *audit) chatRequest() llm.Request {
	msgs := make([]llm.Message, 0, len(au.history)+1)
	msgs = append(msgs, llm.Message{Role: llm.RoleSystem, Content: au.system})
	msgs = append(msgs, au.history...)
	return llm.Request{Model: au.ModelName, Messages: msgs, Temperature: au.Temperature, MaxTokens: au.MaxTokens}
}

func (au *audit) parse(reply llm.Reply) (parser.Response, error) {
	if reply.FinishReason == "length" {
		return parser.Response{}, &parser.FormatError{Message: prompts.CutOff(strings.TrimSpace(reply.Content) == "")}
	}
	return tools.ParseReply(reply.Content, au.tools)
}

// reject tells the auditor why its reply could not be used. The audit is
// short, so failed attempts stay in its history.
func (au *audit) reject(reply llm.Reply, err error) {
	content, _ := parser.StripThinking(reply.Content)
	if strings.TrimSpace(content) == "" {
		content = "(empty reply)"
	}
	au.history = append(au.history,
		llm.Message{Role: llm.RoleAssistant, Content: content},
		llm.Message{Role: llm.RoleUser, Content: "Your reply could not be used: " + err.Error() + "\n\n" + prompts.FormatReminder()})
}

// act runs the reply's tools in order, stopping at the first failure and
// after DONE.
func (au *audit) act(ctx context.Context, resp parser.Response) []tools.Result {
	var results []tools.Result
	for _, call := range resp.Tools {
		tool, _ := au.tools.Lookup(call.Name) // checked by parse
		res := tool.Run(ctx, au.Env, call.Input)
		results = append(results, res)
		if res.Done || !res.OK || ctx.Err() != nil {
			break
		}
	}
	return results
}

func (au *audit) finish(verdict Verdict, ok bool, report string) Result {
	au.result.Feedback = strings.TrimSpace(report)
	au.result.Verdict = verdict
	if !ok {
		au.result.Verdict = Fail
		au.result.Feedback += "\n\n(The auditor gave no verdict, so the work is not accepted.)"
	}
	return au.result
}
