// Package sessions stores sessions as JSON files: atomic saves, the map from
// working directory to last session, a lock against a second process, and
// retention.
package sessions

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/devagent/dev/checkpoints"
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
	// Unreadable is how listings show a session file that cannot be read;
	// it is never stored.
	Unreadable Status = "unreadable"
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
	// Reply is the index in History of the reply whose DONE the audit
	// checked, and CompressionCount the session's then: the history that
	// index is in (a compression replaces it; a rewind cuts the history
	// and the audits together). A DONE accepted without an audit has no
	// record, so nothing else says which DONE an audit checked. Reply 0:
	// not recorded (sessions of versions before; a reply is never first).
	Reply            int `json:"reply,omitempty"`
	CompressionCount int `json:"compressionCount,omitempty"`
}

// Passed reports whether the audit accepted the work: its verdict is
// PASS, as package audit writes it.
func (a Audit) Passed() bool { return a.Verdict == "PASS" }

// Purposes of a model request.
const (
	PurposeWorker   = "worker"
	PurposeAudit    = "audit"
	PurposeCompress = "compress"
)

// Request records one model request (SPEC §16): what the server reported,
// and how long it took. Counts the server did not give are estimated
// (about four characters a token) and marked Estimated.
type Request struct {
	Timestamp        time.Time `json:"timestamp"`
	Model            string    `json:"model"`
	Purpose          string    `json:"purpose"` // worker, audit or compress
	PromptTokens     int       `json:"promptTokens"`
	CompletionTokens int       `json:"completionTokens"`
	// CachedTokens is the part of the prompt the server's cache spared it
	// from processing, when the server says (nil otherwise).
	CachedTokens *int  `json:"cachedTokens,omitempty"`
	FirstByteMs  int64 `json:"firstByteMs"`
	DurationMs   int64 `json:"durationMs"`
	// ServerMs is the server's own account of its work on the request
	// (llama.cpp's timings), 0 when it gave none: DurationMs less the
	// network, the wait for a free slot and dev.
	ServerMs int64 `json:"serverMs,omitempty"`
	// EarlyStop: the reply was closed because the model began inventing a
	// tool's result.
	EarlyStop bool `json:"earlyStop"`
	// FormatError: the reply could not be parsed and was sent back.
	FormatError bool `json:"formatError,omitempty"`
	// Estimated: the server gave no usage; the token counts are estimates.
	Estimated bool `json:"estimated,omitempty"`
	// Constrained is the form of the shape the request carried and the
	// server applied, as far as dev could tell (SPEC §18).
	Constrained Constrained `json:"constrained"`
	// MaxTokens is the reply cap the request sent (maxTokens, or the
	// default of SPEC §18); 0 when it sent none.
	MaxTokens int `json:"maxTokens,omitempty"`
	// Rejected is the reply, in brief, when it could not be used: what the
	// model wrote stays visible, though it never enters the history.
	Rejected *Rejected `json:"rejected,omitempty"`
	// Interrupted: the user interrupted the reply while it streamed;
	// Partial is what had come of it (reasoning aside, at most PartialMax
	// bytes). It never enters the history: the model did not finish it.
	Interrupted bool   `json:"interrupted,omitempty"`
	Partial     string `json:"partial,omitempty"`
}

// PartialMax bounds the partial reply a request record keeps.
const PartialMax = 64 << 10
// Constrained is the form of the shape a request carried: "grammar",
// "json", or none, written false. Sessions of earlier versions wrote true
// for the grammar, the one form they knew.
type Constrained string

// The forms of Constrained (llm.Shape's values).
const (
	NotConstrained     Constrained = ""
	ConstrainedGrammar Constrained = "grammar"
	ConstrainedJSON    Constrained = "json"
)

// MarshalJSON writes the form, or false for none.
func (c Constrained) MarshalJSON() ([]byte, error) {
	if c == NotConstrained {
		return []byte("false"), nil
	}
	return json.Marshal(string(c))
}

// UnmarshalJSON reads the form, false or null (none), or the older true
// (the grammar).
func (c *Constrained) UnmarshalJSON(b []byte) error {
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	switch v := v.(type) {
	case bool:
		*c = NotConstrained
		if v {
			*c = ConstrainedGrammar
		}
	case string:
		*c = Constrained(v)
	case nil:
		*c = NotConstrained
	default:
		return fmt.Errorf("constrained: %s is not a form of shape", b)
	}
	return nil
}

// Rejected is a reply that could not be used, kept with the request that
// got it: the problem told to the model, and the reply's first and last
// lines.
type Rejected struct {
	Problem string   `json:"problem"`
	Head    []string `json:"head"`           // the first lines that are not blank
	Tail    []string `json:"tail,omitempty"` // the last ones, when there are more
	Lines   int      `json:"lines"`          // lines of the reply
	// Cut: the reply ran to its output limit (MaxTokens) and was cut.
	Cut bool `json:"cut,omitempty"`
}

// Session is one conversation with its state, as stored in <id>.json.
// The facts a list shows (Summary's) come first, before the lists: a list
// reads a file's start only (see Store.summary).
type Session struct {
	ID               string    `json:"id"`
	CreatedAt        time.Time `json:"createdAt"`
	UpdatedAt        time.Time `json:"updatedAt"`
	WorkingDirectory string    `json:"workingDirectory"`
	OriginalPrompt   string    `json:"originalPrompt"`
	// Prompts counts the requests the user made in the session (a
	// compression keeps the count, a rewind takes back the requests it
	// undid), and LastPrompt is the last of them as typed, without the
	// files its @ mentions attached: what a list of sessions shows of
	// each without reading its history (SPEC §17). A file written before
	// they were kept has them from its history when read (promptsOf).
	Prompts    int    `json:"prompts"`
	LastPrompt string `json:"lastPrompt"`
	Model      string `json:"model"`
	Status     Status `json:"status"`
	// StatusReason says why the last run failed (the message the user
	// saw), so that --resume can tell; empty otherwise.
	StatusReason string `json:"statusReason,omitempty"`
	TotalTokens  int    `json:"totalTokens"`
	// Profile is the model profile the session last ran with, "" for none.
	Profile string `json:"profile"`
	// Cost is the USD the requests cost at the configured prices; nil when
	// a model it used has none.
	Cost             *float64      `json:"cost,omitempty"`
	TaskList         []parser.Task `json:"taskList"`
	History          []llm.Message `json:"history"`
	Compressions     []Compression `json:"compressions"`
	CompressionCount int           `json:"compressionCount"`
	Audits           []Audit       `json:"audits"`
	// Requests records every model request, in order.
	Requests []Request `json:"requests"`
	// Checkpoints are the snapshots of the working directory taken
	// during the session, oldest first (SPEC §12); their files and
	// states live in Store.Dir(ID)/checkpoints.
	Checkpoints []checkpoints.Checkpoint `json:"checkpoints"`
	// Rewinds are the session's rewinds (dev rewind, /undo), oldest
	// first: what the checkpoints alone do not say, where each went back
	// to.
	Rewinds []Rewind `json:"rewinds,omitempty"`
}
