// Package config reads dev's configuration: the config directory of the OS,
// config.json (created with defaults when missing) and the environment
// overrides, into a plain struct. Only main imports it.
package config

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
}

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

// AuditPolicies are the values of the audit key, in the order help shows them.
var AuditPolicies = []string{AuditChanges, AuditAlways, AuditOff}
