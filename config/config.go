// Package config reads dev's configuration: the config directory of the OS,
// config.json (created with defaults when missing) and the environment
// overrides, into a plain struct. Only main imports it.
package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Config is the user's configuration. Durations are in seconds as in the file.
type Config struct {
	APIURL               string   `json:"apiUrl"`
	APIKey               string   `json:"apiKey"`
	Model                string   `json:"model"`
	AuditModel           string   `json:"auditModel"`
	CompressModel        string   `json:"compressModel"`
	MaxContextTokens     int      `json:"maxContextTokens"`
	CompressThreshold    float64  `json:"compressThreshold"`
	CommandTimeout       int      `json:"commandTimeout"`
	RequestTimeout       int      `json:"requestTimeout"`
	MaxRetries           int      `json:"maxRetries"`
	MaxRetriesAutomated  int      `json:"maxRetriesAutomated"`
	MaxLoops             int      `json:"maxLoops"`
	MaxAuditFailures     int      `json:"maxAuditFailures"`
	AuditCommands        []string `json:"auditCommands"`
	Audit                string   `json:"audit"` // AuditChanges, AuditAlways or AuditOff
	SessionRetentionDays int      `json:"sessionRetentionDays"`
	Temperature          *float64 `json:"temperature,omitempty"`
	MaxTokens            *int     `json:"maxTokens,omitempty"`

	// Checkpoints of the working directory (SPEC §12).
	Checkpoints            bool  `json:"checkpoints"`
	CheckpointMaxFileBytes int64 `json:"checkpointMaxFileBytes"`

	// Safety (SPEC §13).
	WritableRoots       []string `json:"writableRoots"`       // absolute, or ~/…: see WritableRootPaths
	DenyCommands        []string `json:"denyCommands"`        // command prefixes never started
	DenyBuiltinCommands bool     `json:"denyBuiltinCommands"` // the builtin denied list is in force
	AllowCommands       []string `json:"allowCommands"`       // command prefixes approval does not ask about
	Approval            string   `json:"approval"`            // auto, edits, ask, plan
	Sandbox             string   `json:"sandbox"`             // off, workspace
	// SandboxNetwork is what the sandbox leaves open of the network.
	SandboxNetwork SandboxNetwork `json:"sandboxNetwork"`
	RedactSecrets  bool           `json:"redactSecrets"`

	// Model tuning (SPEC §14).
	// Thinking is how much a reasoning model should think: auto (send
	// nothing), off, low, medium or high, sent in the server's dialect.
	Thinking string `json:"thinking"`
	// ExtraBody is merged into every chat request (server knobs).
	ExtraBody map[string]any `json:"extraBody"`
	// Constrain is whether the server shapes replies to the protocol's
	// template, and in which form (SPEC §18): auto (each server dev
	// recognises, in its form), on (any server), json (the JSON form to
	// any server), off.
	Constrain string `json:"constrain"`
	// Profiles name sets of model settings; Profile is the active one
	// (after DEV_PROFILE and --profile), "" for none.
	Profiles map[string]Profile `json:"profiles"`
	Profile  string             `json:"profile"`

	// Prices are USD per million tokens, by model (SPEC §16).
	Prices map[string]Price `json:"prices"`

	// Tools are the custom tools; MCPServers the MCP servers by name
	// (SPEC §15).
	Tools      []CustomTool         `json:"tools"`
	MCPServers map[string]MCPServer `json:"mcpServers"`
}

// Approval modes and sandbox settings, as the file spells them.
const (
	ApprovalAuto  = "auto"
	ApprovalEdits = "edits"
	ApprovalAsk   = "ask"
	// ApprovalPlan: the model may only read; its DONE is a plan (SPEC §17).
	ApprovalPlan = "plan"

	SandboxOff       = "off"
	SandboxWorkspace = "workspace"
)

// SandboxNetwork is the sandboxNetwork key (SPEC §13): the TCP ports that
// sandboxed commands may connect to and listen on, `[]` (none) by default,
// or "all" for the whole network.
type SandboxNetwork struct {
	All   bool
	Ports []int
}

// SandboxNetworkAll is how the file spells an open network.
const SandboxNetworkAll = "all"

// MarshalJSON writes "all" or the list of ports ([] for none).
func (n SandboxNetwork) MarshalJSON() ([]byte, error) {
	if n.All {
		return json.Marshal(SandboxNetworkAll)
	}
	if n.Ports == nil {
		return []byte("[]"), nil
	}
	return json.Marshal(n.Ports)
}

// UnmarshalJSON reads "all" or an array of port numbers; null leaves the
// value as it is.
func (n *SandboxNetwork) UnmarshalJSON(data []byte) error {
	switch {
	case string(data) == "null":
		return nil
	case len(data) > 0 && data[0] == '"':
		var s string
		if err := json.Unmarshal(data, &s); err != nil {
			return err
		}
		if s != SandboxNetworkAll {
			return fmt.Errorf("not %q", SandboxNetworkAll)
		}
		*n = SandboxNetwork{All: true}
		return nil
	case len(data) == 0 || data[0] != '[':
		return errors.New("neither a string nor an array")
	}
	var ports []int
	if err := json.Unmarshal(data, &ports); err != nil {
		return err
	}
	*n = SandboxNetwork{Ports: ports}
	if ports == nil {
		n.Ports = []int{}
	}
	return nil
}

// String is the setting for people: "all", or the ports separated by
// commas ("" for none).
func (n SandboxNetwork) String() string {
	if n.All {
		return SandboxNetworkAll
	}
	s := make([]string, len(n.Ports))
	for i, p := range n.Ports {
		s[i] = strconv.Itoa(p)
	}
	return strings.Join(s, ", ")
}

// Price is what a model's tokens cost, in USD per million.
type Price struct {
	Input  float64 `json:"input"`
	Output float64 `json:"output"`
	// CachedInput prices prompt tokens the server's cache served; 0 uses
	// Input.
	CachedInput float64 `json:"cachedInput,omitempty"`
}

// Profile is a named set of model settings laid over the file's top level
// when it is active. Nil fields leave the top level's value.
type Profile struct {
	APIURL           *string        `json:"apiUrl,omitempty"`
	APIKey           *string        `json:"apiKey,omitempty"`
	Model            *string        `json:"model,omitempty"`
	AuditModel       *string        `json:"auditModel,omitempty"`
	CompressModel    *string        `json:"compressModel,omitempty"`
	MaxContextTokens *int           `json:"maxContextTokens,omitempty"`
	Temperature      *float64       `json:"temperature,omitempty"`
	MaxTokens        *int           `json:"maxTokens,omitempty"`
	Thinking         *string        `json:"thinking,omitempty"`
	ExtraBody        map[string]any `json:"extraBody,omitempty"`
	Constrain        *string        `json:"constrain,omitempty"`
}

// Flags are the command line's settings, which win over the environment
// and the file.
type Flags struct {
	Profile   string // --profile
	Model     string // --model
	Approval  string // --approval
	Sandbox   string // --sandbox
	Constrain string // --constrain
}

// Thinking levels (config thinking).
const (
	ThinkingAuto   = "auto"
	ThinkingOff    = "off"
	ThinkingLow    = "low"
	ThinkingMedium = "medium"
	ThinkingHigh   = "high"
)

// Constrain settings (config constrain, flag --constrain).
const (
	ConstrainAuto = "auto" // the servers dev recognises, each in its form (SPEC §18)
	ConstrainOn   = "on"   // any server: its form, or the grammar
	ConstrainJSON = "json" // the JSON form, to any server
	ConstrainOff  = "off"
)

// ownedBodyKeys are the chat request's keys dev writes itself, which
// extraBody may not set.
const ownedBodyKeys = "model, messages, stream, stream_options"

// Error is an unusable configuration: the file (or variable), and where.
type Error struct {
	Path   string // config file path, or the environment variable's name
	Key    string // offending key, "" when unknown
	Line   int    // 1-based position in the file (column in characters), 0 when not applicable
	Column int
	Reason string
	Err    error // underlying I/O error, nil for content problems
}

// The audit policies (the audit key).
const (
	// AuditChanges audits a DONE only when its request changed files or
	// ran a command; a pure answer is accepted without an audit.
	AuditChanges = "changes"
	AuditAlways  = "always"
	AuditOff     = "off"
)

// ApprovalModes are the values of the approval key, in the order
// Shift+Tab cycles through them.
var ApprovalModes = []string{ApprovalAuto, ApprovalEdits, ApprovalAsk, ApprovalPlan}

// AuditPolicies are the values of the audit key, in the order help shows them.
var AuditPolicies = []string{AuditChanges, AuditAlways, AuditOff}
