package ui

import (
	"encoding/json"
	"io"
	"sync"

	"github.com/devagent/dev/event"
	"github.com/devagent/dev/parser"
)

// JSON writes one JSON object per event and line: the --json interface for
// scripts. Its schema is the json* types below, one per event `type`,
// pinned by testdata/json-events.golden and documented in
// docs/command-line.md.
type JSON struct {
	mu  sync.Mutex
	enc *json.Encoder
}

// NewJSON returns a renderer writing to w (stdout).
func NewJSON(w io.Writer) *JSON {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return &JSON{enc: enc}
}

// The --json schema. Field names are a stable interface: add fields, never
// rename one without saying so in docs/command-line.md.
type (
	jsonSession struct {
		Type    string `json:"type"`
		ID      string `json:"id"`
		Resumed bool   `json:"resumed"`
		Model   string `json:"model"`
		Dir     string `json:"workingDirectory"`
	}
	jsonResponse struct {
		Type     string         `json:"type"`
		Agent    event.Agent    `json:"agent"`
		Step     int            `json:"step"`
		Thoughts string         `json:"thoughts"`
		Tasks    []parser.Task  `json:"tasks"`
		Tools    []jsonToolCall `json:"tools"`
	}
	jsonToolCall struct {
		Name  string `json:"name"`
		Input string `json:"input"`
	}
	jsonAttachment struct {
		Type   string `json:"type"`
		Path   string `json:"path"`
		Lines  int    `json:"lines"`
		Binary bool   `json:"binary"`
	}
	jsonToolStart struct {
		Type  string      `json:"type"`
		Agent event.Agent `json:"agent"`
		Tool  string      `json:"tool"`
		Input string      `json:"input"` // the raw `## Tool Input` text
	}
	jsonToolResult struct {
		Type    string      `json:"type"`
		Agent   event.Agent `json:"agent"`
		Tool    string      `json:"tool"`
		Input   string      `json:"input"`   // the raw `## Tool Input` text, as in tool_start
		Summary string      `json:"summary"` // the input in one line: a path, a command
		OK      bool        `json:"ok"`
		Output  string      `json:"output"`
		Files   []jsonFile  `json:"files"` // what the tool changed in the working directory
	}
	jsonFile struct {
		Path   string `json:"path"`
		Change string `json:"change"` // added, modified, deleted
	}
	jsonFormatError struct {
		Type    string      `json:"type"`
		Agent   event.Agent `json:"agent"`
		Message string      `json:"message"`
		Attempt int         `json:"attempt"`
		Max     int         `json:"max"`
		Final   bool        `json:"final"`
		Cut     bool        `json:"cut"`
		Limit   int         `json:"limit,omitempty"`
		Head    []string    `json:"head"`
		Tail    []string    `json:"tail"`
		Lines   int         `json:"lines"`
	}
	jsonRetry struct {
		Type        string  `json:"type"`
		Message     string  `json:"message"`
		Attempt     int     `json:"attempt"`
		Max         int     `json:"max"`
		WaitSeconds float64 `json:"waitSeconds"`
	}
	jsonCompression struct {
		Type         string      `json:"type"`
		Agent        event.Agent `json:"agent"`
		Reason       string      `json:"reason"`
		TokensBefore int         `json:"tokensBefore"`
		TokensAfter  int         `json:"tokensAfter"`
		Window       int         `json:"window"`
	}
	jsonAudit struct {
		Type     string `json:"type"`
		Verdict  string `json:"verdict"`
		Feedback string `json:"feedback"`
		Steps    int    `json:"steps"`
	}
	// jsonMessage is a warning, a notice or an error.
	jsonMessage struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	}
	jsonResult struct {
		Type         string   `json:"type"`
		Status       string   `json:"status"`
		ExitCode     int      `json:"exitCode"`
		Summary      string   `json:"summary"`
		SessionID    string   `json:"sessionId"`
		Loops        int      `json:"loops"`
		Tokens       int      `json:"tokens"`
		FormatErrors int      `json:"formatErrors"`
		Audits       int      `json:"audits"`
		EarlyStops   int      `json:"earlyStops"`
		Cost         *float64 `json:"cost,omitempty"`
		// Audit: what became of the DONE's audit (passed, skipped, off);
		// left out when no DONE was accepted.
		Audit string `json:"audit,omitempty"`
	}
	jsonBackgroundStart struct {
		Type    string `json:"type"`
		ID      string `json:"id"`
		Command string `json:"command"`
		PID     int    `json:"pid"`
	}
	jsonBackgroundExit struct {
		Type           string  `json:"type"`
		ID             string  `json:"id"`
		Command        string  `json:"command"`
		Status         string  `json:"status"`
		ExitCode       int     `json:"exitCode"`
		RuntimeSeconds float64 `json:"runtimeSeconds"`
	}
)

// jsonOf is the --json form of e; false for the events left out: streaming
// pieces (and what came of an interrupted reply), request, compression and
// audit starts, and the context window are progress for people (on
// stderr), and would flood a pipe.
func jsonOf(e event.Event) (any, bool) {
	switch e := e.(type) {
	case event.SessionStarted:
		return jsonSession{e.Name(), e.ID, e.Resumed, e.Model, e.Dir}, true
	case event.ReplyParsed:
		calls := make([]jsonToolCall, len(e.Response.Tools))
		for i, c := range e.Response.Tools {
			calls[i] = jsonToolCall{c.Name, c.Input}
		}
		tasks := e.Response.Tasks
		if tasks == nil {
			tasks = []parser.Task{}
		}
		return jsonResponse{e.Name(), e.Agent, e.Step, e.Response.Thoughts, tasks, calls}, true
	case event.FileAttached:
		return jsonAttachment{e.Name(), e.Path, e.Lines, e.Binary}, true
	case event.ToolStarted:
		return jsonToolStart{e.Name(), e.Agent, e.Tool, e.Input}, true
	case event.ToolFinished:
		r := e.Result
		files := make([]jsonFile, len(e.Files))
		for i, f := range e.Files {
			files[i] = jsonFile{f.Path, f.Change}
		}
		return jsonToolResult{e.Name(), e.Agent, r.Tool, e.Input, r.Summary, r.OK, r.Output, files}, true
	case event.FormatProblem:
		return jsonFormatError{e.Name(), e.Agent, e.Message, e.Attempt, e.Max, e.Final, e.Cut, e.Limit,
			nonNil(e.Head), nonNil(e.Tail), e.Lines}, true
	case event.Retrying:
		return jsonRetry{e.Name(), e.Message, e.Attempt, e.Max, e.Wait.Seconds()}, true
	case event.Compressed:
		return jsonCompression{e.Name(), e.Agent, e.Reason, e.TokensBefore, e.TokensAfter, e.Window}, true
	case event.AuditFinished:
		return jsonAudit{e.Name(), e.Verdict, e.Feedback, e.Steps}, true
	case event.Warning:
		return jsonMessage{e.Name(), e.Message}, true
	case event.Notice:
		return jsonMessage{e.Name(), e.Message}, true
	case event.Failure:
		return jsonMessage{e.Name(), e.Message}, true
	case event.Finished:
		return jsonResult{e.Name(), e.Status, e.ExitCode, e.Summary, e.SessionID, e.Loops, e.Tokens, e.FormatErrors, e.Audits, e.EarlyStops, e.Cost, e.Audit}, true
	case event.BackgroundStarted:
		return jsonBackgroundStart{e.Name(), e.ID, e.Command, e.PID}, true
	case event.BackgroundExited:
		return jsonBackgroundExit{e.Name(), e.ID, e.Command, e.Status, e.ExitCode, e.Runtime.Seconds()}, true
	}
	return nil, false
}

// Emit writes e as one line, when it has a --json form.
func (j *JSON) Emit(e event.Event) {
	v, ok := jsonOf(e)
	if !ok {
		return
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	_ = j.enc.Encode(v) // a closed stdout is noticed by the writer (see main)
}

// nonNil writes an empty list as [], never null.
func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
