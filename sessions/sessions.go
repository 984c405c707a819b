// Package sessions stores sessions as JSON files: atomic saves, the map from
// working directory to last session, a lock against a second process, and
// retention.
package sessions

import (
	"time"

	"github.com/devagent/dev/llm"
	"github.com/devagent/dev/parser"
)

// Status of a session.
type Status string

// Session statuses.
const (
	Active      Status = "active"
	Complete    Status = "complete"
	Failed      Status = "failed"
	Interrupted Status = "interrupted"
)

// Compression records one context compression.
type Compression struct {
	Timestamp    time.Time `json:"timestamp"`
	TokensBefore int       `json:"tokensBefore"`
	TokensAfter  int       `json:"tokensAfter"`
}

// Audit records one audit of a DONE.
type Audit struct {
	Timestamp time.Time `json:"timestamp"`
	Steps     int       `json:"steps"`
	Verdict   string    `json:"verdict"` // PASS or FAIL
	Feedback  string    `json:"feedback"`
}

// Session is one conversation with its state, as stored in <id>.json.
type Session struct {
	ID               string    `json:"id"`
	CreatedAt        time.Time `json:"createdAt"`
	UpdatedAt        time.Time `json:"updatedAt"`
	WorkingDirectory string    `json:"workingDirectory"`
	OriginalPrompt   string    `json:"originalPrompt"`
	Model            string    `json:"model"`
	Status           Status    `json:"status"`
	// StatusReason says why the last run failed (the message the user
	// saw), so that --resume can tell; empty otherwise.
	StatusReason     string        `json:"statusReason,omitempty"`
	TaskList         []parser.Task `json:"taskList"`
	History          []llm.Message `json:"history"`
	TotalTokens      int           `json:"totalTokens"`
	Compressions     []Compression `json:"compressions"`
	CompressionCount int           `json:"compressionCount"`
	Audits           []Audit       `json:"audits"`
}
