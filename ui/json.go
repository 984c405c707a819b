package ui

import (
	"encoding/json"
	"io"
	"sync"

	"github.com/devagent/dev/loop"
	"github.com/devagent/dev/parser"
)

// JSON writes one JSON object per event and line. The field names are a
// stable interface for scripts (documented in the README).
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

type jsonTool struct {
	Name  string `json:"name"`
	Input string `json:"input"`
}

// Emit writes e as one line. Streaming pieces, request and compression
// starts and the context window are left out: they are progress for
// people (on stderr), and would flood a pipe.
func (j *JSON) Emit(e loop.Event) {
	var v any
	switch e := e.(type) {
	case loop.SessionStarted:
		v = struct {
			Type    string `json:"type"`
			ID      string `json:"id"`
			Resumed bool   `json:"resumed"`
			Model   string `json:"model"`
			Dir     string `json:"workingDirectory"`
		}{e.Name(), e.ID, e.Resumed, e.Model, e.Dir}
	case loop.ReplyParsed:
		tools := make([]jsonTool, len(e.Response.Tools))
		for i, c := range e.Response.Tools {
			tools[i] = jsonTool{c.Name, c.Input}
		}
		tasks := e.Response.Tasks
		if tasks == nil {
			tasks = []parser.Task{}
		}
		v = struct {
			Type     string        `json:"type"`
			Step     int           `json:"step"`
			Thoughts string        `json:"thoughts"`
			Tasks    []parser.Task `json:"tasks"`
			Tools    []jsonTool    `json:"tools"`
		}{e.Name(), e.Step, e.Response.Thoughts, tasks, tools}
	case loop.ToolStarted:
		v = struct {
			Type  string `json:"type"`
			Tool  string `json:"tool"`
			Input string `json:"input"`
		}{e.Name(), e.Tool, e.Input}
	case loop.ToolFinished:
		v = struct {
			Type   string `json:"type"`
			Tool   string `json:"tool"`
			Input  string `json:"input"`
			OK     bool   `json:"ok"`
			Output string `json:"output"`
		}{e.Name(), e.Result.Tool, e.Result.Summary, e.Result.OK, e.Result.Output}
	case loop.FormatProblem:
		v = struct {
			Type    string `json:"type"`
			Message string `json:"message"`
			Attempt int    `json:"attempt"`
			Max     int    `json:"max"`
		}{e.Name(), e.Message, e.Attempt, e.Max}
	case loop.Retrying:
		v = struct {
			Type        string  `json:"type"`
			Message     string  `json:"message"`
			Attempt     int     `json:"attempt"`
			Max         int     `json:"max"`
			WaitSeconds float64 `json:"waitSeconds"`
		}{e.Name(), e.Message, e.Attempt, e.Max, e.Wait.Seconds()}
	case loop.Compressed:
		v = struct {
			Type         string `json:"type"`
			Reason       string `json:"reason"`
			TokensBefore int    `json:"tokensBefore"`
			TokensAfter  int    `json:"tokensAfter"`
			Window       int    `json:"window"`
		}{e.Name(), e.Reason, e.TokensBefore, e.TokensAfter, e.Window}
	case loop.AuditFinished:
		v = struct {
			Type     string `json:"type"`
			Verdict  string `json:"verdict"`
			Feedback string `json:"feedback"`
			Steps    int    `json:"steps"`
		}{e.Name(), string(e.Result.Verdict), e.Result.Feedback, e.Result.Steps}
	case loop.Warning:
		v = message{e.Name(), e.Message}
	case loop.Failure:
		v = message{e.Name(), e.Message}
	case loop.Finished:
		v = struct {
			Type         string `json:"type"`
			Status       string `json:"status"`
			ExitCode     int    `json:"exitCode"`
			Summary      string `json:"summary"`
			SessionID    string `json:"sessionId"`
			Loops        int    `json:"loops"`
			Tokens       int    `json:"tokens"`
			FormatErrors int    `json:"formatErrors"`
			Audits       int    `json:"audits"`
		}{e.Name(), e.Status, e.ExitCode, e.Summary, e.SessionID, e.Loops, e.Tokens, e.FormatErrors, e.Audits}
	case loop.BackgroundStarted:
		v = struct {
			Type    string `json:"type"`
			ID      string `json:"id"`
			Command string `json:"command"`
			PID     int    `json:"pid"`
		}{e.Name(), e.ID, e.Command, e.PID}
	case loop.BackgroundExited:
		v = struct {
			Type           string  `json:"type"`
			ID             string  `json:"id"`
			Command        string  `json:"command"`
			Status         string  `json:"status"`
			ExitCode       int     `json:"exitCode"`
			RuntimeSeconds float64 `json:"runtimeSeconds"`
		}{e.Name(), e.ID, e.Command, e.Status, e.ExitCode, e.Runtime.Seconds()}
	default:
		return
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	_ = j.enc.Encode(v) // a closed stdout cannot be reported anywhere useful
}

type message struct {
	Type    string `json:"type"`
	Message string `json:"message"`
}

// Multi sends each event to every sink.
type Multi []loop.Sink

// Emit forwards e.
func (m Multi) Emit(e loop.Event) {
	for _, s := range m {
		s.Emit(e)
	}
}
