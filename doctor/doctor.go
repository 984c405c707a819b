// Package doctor checks a chat server against what dev needs and says what
// to change: whether it answers, which server it is, whether it serves the
// model, the context window it really gives, how it streams (first token,
// usage, reasoning, stream_options), whether its chat template accepts the
// conversation shape dev sends, whether it applies, ignores or refuses
// each form of shape (the reply grammar, the JSON form), and whether the
// model answers in the protocol's template, sent as a run sends it. Run returns a Report; it never prints and never
// writes anything.
package doctor

import (
	"context"
	"time"

	"github.com/devagent/dev/parser"
	"github.com/devagent/dev/shape"
)

// Status is a check's outcome.
type Status string

// Statuses, from good to bad; Skip is a check that could not run.
const (
	OK   Status = "ok"
	Warn Status = "warn"
	Fail Status = "fail"
	Skip Status = "skip"
)

// Names of the checks, in report order.
const (
	CheckConfig    = "config"
	CheckReachable = "reachable"
	CheckServer    = "server"
	CheckModel     = "model"
	CheckContext   = "context"
	CheckStreaming = "streaming"
	CheckReasoning = "reasoning"
	CheckRoles     = "roles"
	CheckGrammar   = "grammar"
	CheckJSON      = "json"
	CheckProtocol  = "protocol"
	CheckSafety    = "safety"
	// CheckCheckpoints needs no server either (checkpoints.go); its name
	// fits the column of the others.
	CheckCheckpoints = "snapshots"
)

var checkOrder = []string{CheckConfig, CheckReachable, CheckServer, CheckModel, CheckContext,
	CheckStreaming, CheckReasoning, CheckRoles, CheckGrammar, CheckJSON, CheckProtocol, CheckSafety, CheckCheckpoints}

// Check is one line of the report.
type Check struct {
	Name   string `json:"name"`
	Status Status `json:"status"`
	Detail string `json:"detail"`        // what was found, one line
	Fix    string `json:"fix,omitempty"` // what to change, one line; "" when nothing
}

// Facts are the measurements behind the checks, for scripts. Fields that
// were not measured are left out of the JSON.
type Facts struct {
	Server        string   `json:"server,omitempty"` // "llama.cpp", "vLLM", "Ollama", "LM Studio", "OpenAI", "OpenRouter" or "generic"
	Version       string   `json:"version,omitempty"`
	Models        []string `json:"models,omitempty"`
	ModelsSeconds *float64 `json:"modelsSeconds,omitempty"` // GET /models round trip
	// ContextWindow is what the server reports (0: it does not say), and
	// WorkingWindow what dev works with: the smaller of that and
	// maxContextTokens.
	ContextWindow       int      `json:"contextWindow,omitempty"`
	ContextWindowSource string   `json:"contextWindowSource,omitempty"`
	WorkingWindow       int      `json:"workingWindow,omitempty"`
	FirstTokenSeconds   *float64 `json:"firstTokenSeconds,omitempty"`
	Usage               *bool    `json:"usage,omitempty"` // the stream reported token usage
	StreamOptions       *bool    `json:"streamOptionsAccepted,omitempty"`
	// ReasoningField is where reasoning came: "reasoning_content",
	// "reasoning", "reasoning_text", "<think>" (inline in the content),
	// or "" when none was seen.
	ReasoningField string `json:"reasoningField,omitempty"`
	// Grammar and JSONForm are what the shape probes showed of each form
	// (SPEC §18): "applied", "ignored" or "rejected" ("" when they could
	// not tell). GrammarField is the body field the grammar went in.
	// GrammarAccepted and GrammarApplied say the same of the grammar as
	// booleans (nil: not told).
	Grammar         string `json:"grammar,omitempty"`
	JSONForm        string `json:"jsonForm,omitempty"`
	GrammarAccepted *bool  `json:"grammarAccepted,omitempty"`
	GrammarApplied  *bool  `json:"grammarApplied,omitempty"`
	GrammarField    string `json:"grammarField,omitempty"`
	// ProtocolShape is the form of the shape the protocol probe carried,
	// as a run's request would ("grammar", "json", "" for none), and
	// ProtocolConstrained whether it carried one; ProtocolMaxTokens is the
	// reply cap it sent.
	ProtocolShape       string   `json:"protocolShape,omitempty"`
	ProtocolConstrained bool     `json:"protocolConstrained,omitempty"`
	ProtocolMaxTokens   int      `json:"protocolMaxTokens,omitempty"`
	ProtocolParsed      *bool    `json:"protocolParsed,omitempty"`
	ProtocolTokens      int      `json:"protocolTokens,omitempty"`
	ProtocolSeconds     *float64 `json:"protocolSeconds,omitempty"`
	ProtocolEstimate    bool     `json:"protocolTokensEstimated,omitempty"` // no usage: ProtocolTokens counts 4 bytes per token
}

// Report is the outcome of Run.
type Report struct {
	APIURL     string  `json:"apiUrl"`
	Model      string  `json:"model"`
	ConfigFile string  `json:"configFile"`
	OK         bool    `json:"ok"` // no check failed
	Checks     []Check `json:"checks"`
	Facts      Facts   `json:"facts"`
	// Profile is a ready-to-paste profile for config.json's "profiles"
	// with what was measured; nil when the server could not be probed.
	Profile *Profile `json:"profile,omitempty"`
}

// Failed reports whether a check failed.
func (r Report) Failed() bool { return r.Count(Fail) > 0 }

// Count is the number of checks with status s.
func (r Report) Count(s Status) int {
	n := 0
	for _, c := range r.Checks {
		if c.Status == s {
			n++
		}
	}
	return n
}

// Check returns the check called name, and whether there is one.
func (r Report) Check(name string) (Check, bool) {
	for _, c := range r.Checks {
		if c.Name == name {
			return c, true
		}
	}
	return Check{}, false
}

// Config is what Run checks: the settings dev would run with, and how the
// configuration file fared.
type Config struct {
	APIURL, APIKey string
	// Sends is what a run of the settings sends with its requests (model,
	// temperature, maxTokens, thinking, extraBody, constrain,
	// maxContextTokens), and Tools are the tools its worker's replies
	// offer: doctor asks shape.Plan, with what it finds of the server, what
	// a run sends, as a run does.
	Sends shape.Settings
	Tools []parser.GrammarTool
	// Nonce is the string the shape probes allow alone; "" draws one.
	Nonce string

	File      string   // config.json's path, named in fixes
	FileFound bool     // false: no file, the defaults are in use
	Warnings  []string // about the file (unknown keys, ...)
	// Err is a configuration dev cannot use: it is the only check that
	// runs.
	Err error

	// Safety is what the settings ask of the safety layers, and what the
	// OS offers, for the safety check.
	Safety Safety
	// Checkpoints is what checkpoints cost in the working directory.
	Checkpoints Checkpoints

	Timeouts Timeouts // zero fields take the defaults
}

// model is the model a run asks for.
func (c Config) model() string { return c.Sends.Params.Model }

// Timeouts bound each probe. A dead server costs at most Reach; a live one
// at most the sum (plus llm.DiscoverTimeout).
type Timeouts struct {
	Reach    time.Duration // GET /models
	Stream   time.Duration // the one-token request (may include loading the model)
	Roles    time.Duration // the one-token request in the protocol's shape; each shape probe
	Protocol time.Duration // the protocol probe's whole reply
}

// Default probe timeouts.
const (
	DefaultReach    = 5 * time.Second
	DefaultStream   = 15 * time.Second
	DefaultRoles    = 10 * time.Second
	DefaultProtocol = 20 * time.Second
)

func (t Timeouts) withDefaults() Timeouts {
	or := func(d, def time.Duration) time.Duration {
		if d > 0 {
			return d
		}
		return def
	}
	return Timeouts{or(t.Reach, DefaultReach), or(t.Stream, DefaultStream), or(t.Roles, DefaultRoles), or(t.Protocol, DefaultProtocol)}
}

// Run checks the server of cfg. Every probe is bounded by its timeout and
// by ctx: when ctx ends, the checks not yet made are skipped. Run sends a
// few tiny chat requests and reads the server's status endpoints; it writes
// nothing.
func Run(ctx context.Context, cfg Config) Report {
	d := newDoctor(cfg)
	d.run(ctx)
	return d.report()
}
