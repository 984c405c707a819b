package doctor

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"time"

	"github.com/devagent/dev/history"
	"github.com/devagent/dev/llm"
	"github.com/devagent/dev/parser"
	"github.com/devagent/dev/prompts"
)

// doctor is one Run: the probes' results, then the checks built from them.
type doctor struct {
	cfg      Config
	timeouts Timeouts
	client   *llm.Client

	models    listing
	server    llm.ServerInfo
	serverRan bool
	stream    exchange // the one-token request
	roles     exchange // system, user, assistant, user
	grammar   exchange // a short request with the reply grammar
	protocol  exchange // the template probe
	// constrained: the protocol probe carries the grammar, as a run's
	// requests would; capped is its reply cap.
	constrained bool
	capped      int

	checks map[string]Check
	facts  Facts
}

func newDoctor(cfg Config) *doctor {
	return &doctor{cfg: cfg, timeouts: cfg.Timeouts.withDefaults(), checks: map[string]Check{}}
}

// listing is the outcome of GET /models.
type listing struct {
	ran     bool
	ids     []string
	err     *llm.Error
	elapsed time.Duration
	timeout bool
	// v1Works: the request failed, but apiUrl + "/v1" lists models.
	v1Works bool
}

// exchange is one chat request and what came of it.
type exchange struct {
	ran        bool
	reply      llm.Reply
	err        *llm.Error
	elapsed    time.Duration
	firstToken time.Duration // 0: no content or reasoning arrived
	timeout    bool          // the probe's own deadline passed
	// So far, for a probe that timed out: bytes of content and reasoning,
	// and the field reasoning came in.
	contentBytes, reasoningBytes int
	reasoningField               string
}

func (e exchange) ok() bool { return e.ran && e.err == nil && !e.timeout }

func (d *doctor) run(ctx context.Context) {
	if d.config(); d.cfg.Err != nil {
		d.skipRest("the configuration cannot be used")
		return
	}
	d.safety()
	d.checkpoints()
	d.client = llm.New(llm.Config{BaseURL: d.cfg.APIURL, APIKey: d.cfg.APIKey})
	stop := ""
	if ctx.Err() == nil {
		stop = d.probeModels(ctx)
	}
	if stop == "" && ctx.Err() == nil {
		stop = d.probeStream(ctx)
		// The fingerprint comes after the first request, so that a server
		// loading models on demand (Ollama, LM Studio) has the model loaded
		// and reports its window, and even when that request failed.
		if ctx.Err() == nil {
			d.server = d.client.Discover(ctx, d.cfg.Model)
			d.serverRan = true
		}
	}
	if stop == "" && ctx.Err() == nil {
		d.probeRoles(ctx)
		if d.roles.err != nil && rejectsShape(d.roles.err, d.stream) {
			stop = "the chat template rejects dev's requests"
		}
	}
	if stop == "" && ctx.Err() == nil {
		d.probeGrammar(ctx)
	}
	if stop == "" && ctx.Err() == nil {
		d.probeProtocol(ctx)
	}
	if ctx.Err() != nil {
		stop = "interrupted"
	}
	d.build()
	d.skipRest(stop)
}

// skipRest marks every check not made yet as skipped, for reason.
func (d *doctor) skipRest(reason string) {
	if reason == "" {
		reason = "an earlier check failed"
	}
	for _, name := range checkOrder {
		if _, done := d.checks[name]; !done {
			d.checks[name] = Check{Name: name, Status: Skip, Detail: "not checked: " + reason}
		}
	}
}

func (d *doctor) report() Report {
	r := Report{APIURL: d.cfg.APIURL, Model: d.cfg.Model, ConfigFile: d.cfg.File, Facts: d.facts, Profile: d.profile()}
	for _, name := range checkOrder {
		r.Checks = append(r.Checks, d.checks[name])
	}
	r.OK = !r.Failed()
	return r
}

// probeModels lists the models, timing the round trip: whether anything
// answers at all. A server that does not answer, or refuses the key, ends
// the checks.
func (d *doctor) probeModels(ctx context.Context) string {
	pctx, cancel := context.WithTimeout(ctx, d.timeouts.Reach)
	defer cancel()
	start := time.Now()
	ids, err := d.client.Models(pctx)
	// A probe cut short by ctx found nothing: its check is skipped.
	d.models = listing{ran: ctx.Err() == nil, ids: ids, elapsed: time.Since(start)}
	if err == nil {
		return ""
	}
	d.models.timeout = ctx.Err() == nil && pctx.Err() != nil
	d.models.err = asError(err)
	e := d.models.err
	switch {
	case ctx.Err() != nil:
		return "interrupted"
	case d.models.timeout:
		return "the server did not answer"
	case e.Kind == llm.KindUnreachable:
		return "the server is unreachable"
	case e.Kind == llm.KindAuth:
		return "the server refused the API key"
	case e.Status == 0:
		return "the connection failed"
	case e.Status == 404 && !strings.HasSuffix(strings.TrimRight(d.cfg.APIURL, "/"), "/v1"):
		// The commonest slip: the server's root instead of its API.
		v1 := llm.New(llm.Config{BaseURL: strings.TrimRight(d.cfg.APIURL, "/") + "/v1", APIKey: d.cfg.APIKey})
		vctx, cancel := context.WithTimeout(ctx, d.timeouts.Reach)
		defer cancel()
		if _, err := v1.Models(vctx); err == nil {
			d.models.v1Works = true
			return "apiUrl lacks /v1"
		}
	}
	return "" // it answered; the chat requests will tell more
}

// probeStream sends the one-token streaming request. With stream_options
// rejected, the client retries without it, as a run would.
func (d *doctor) probeStream(ctx context.Context) string {
	req := llm.Request{Params: d.params(1),
		Messages: []llm.Message{{Role: llm.RoleUser, Content: prompts.DoctorPing}}}
	d.stream = d.exchange(ctx, d.timeouts.Stream, req)
	switch {
	case ctx.Err() != nil:
		return "interrupted"
	case d.stream.timeout:
		return "the server did not answer a one-token request in time"
	case d.stream.err != nil && d.stream.err.Kind == llm.KindModelNotFound:
		return "the server does not serve the model"
	case d.stream.err != nil:
		return "a plain streaming request failed"
	}
	return ""
}

// probeRoles sends one token's request in the shape of every dev request:
// system, then user and assistant alternating. Strict chat templates reject
// other shapes, and some reject a system message at all.
func (d *doctor) probeRoles(ctx context.Context) {
	system, user, assistant, again := prompts.DoctorTurns()
	req := llm.Request{Params: d.params(1),
		Messages: []llm.Message{{Role: llm.RoleSystem, Content: system}, {Role: llm.RoleUser, Content: user},
			{Role: llm.RoleAssistant, Content: assistant}, {Role: llm.RoleUser, Content: again}}}
	d.roles = d.exchange(ctx, d.timeouts.Roles, req)
}

// grammarTokens are enough tokens of a reply to see whether it begins as
// the grammar allows.
const grammarTokens = 8

// probeGrammar sends a short request with the reply grammar, as the client
// of a run would: whether the server takes it, and whether the reply
// begins as the grammar allows. A rejection makes the client send no
// grammar after, as in a run.
//
// The request asks for a one-word answer, which no model writes as the
// template unless the grammar makes it.
func (d *doctor) probeGrammar(ctx context.Context) {
	g := d.cfg.Grammar
	if g == "" {
		g = d.protocolGrammar()
	}
	req := llm.Request{Params: d.params(grammarTokens),
		Messages: []llm.Message{{Role: llm.RoleUser, Content: prompts.DoctorPing}}}
	req.Grammar = g
	d.grammar = d.exchange(ctx, d.timeouts.Roles, req)
}

// grammarOptions shape the probes' grammars as a run's would be shaped.
func (d *doctor) grammarOptions() parser.GrammarOptions {
	think, thinkChars := llm.ThinkBlock(d.cfg.Thinking, d.server)
	return parser.GrammarOptions{Thinking: think, ThinkChars: thinkChars, ReplyCap: d.replyCap()}
}

// protocolGrammar is the grammar of the protocol probe's replies: DONE is
// its one tool.
func (d *doctor) protocolGrammar() string {
	return parser.ReplyGrammar([]parser.GrammarTool{{Name: "DONE", Input: parser.InputText}},
		d.grammarOptions()).GBNF()
}

// constrains reports whether a run's requests carry the grammar: constrain
// on, or auto on a server known to apply it (SPEC §18).
func (d *doctor) constrains() bool {
	switch d.cfg.Constrain {
	case "on":
		return true
	case "off":
		return false
	}
	return llm.GrammarServer(d.server.Kind)
}

// probeProtocol asks for the template with DONE and OK, with the run's
// temperature, reply cap (maxTokens, or the default of SPEC §18) and
// grammar when a run would send one, and times the whole reply.
func (d *doctor) probeProtocol(ctx context.Context) {
	system, request := prompts.DoctorProtocol()
	d.capped = d.replyCap()
	req := llm.Request{Params: d.params(d.capped),
		Messages: []llm.Message{{Role: llm.RoleSystem, Content: system}, history.Request(request)}}
	if d.constrains() {
		req.Grammar = d.protocolGrammar()
	}
	d.protocol = d.exchange(ctx, d.timeouts.Protocol, req)
	// As sent: the client drops a grammar the server rejected.
	d.constrained = req.Grammar != "" && !d.client.GrammarRejected()
}

// params are a probe's request parameters: the run's model and
// temperature, and a reply cap of maxTokens.
func (d *doctor) params(maxTokens int) llm.Params {
	return llm.Params{Model: d.cfg.Model, Temperature: d.cfg.Temperature, MaxTokens: intPtr(maxTokens)}
}

// replyCap is the max_tokens a run's request would send: maxTokens, or the
// default cap of the window dev works with, doubled for a model seen or
// asked to reason.
func (d *doctor) replyCap() int {
	if d.cfg.MaxTokens != nil {
		return *d.cfg.MaxTokens
	}
	window := d.cfg.MaxContextTokens
	if w := d.server.Window; w > 0 && (window <= 0 || w < window) {
		window = w
	}
	reasons := d.stream.reasoningField != "" || d.roles.reasoningField != ""
	switch d.cfg.Thinking {
	case llm.ThinkingLow, llm.ThinkingMedium, llm.ThinkingHigh:
		reasons = true
	}
	return llm.DefaultMaxTokens(window, reasons)
}

// exchange streams req within timeout, timing the first piece of content
// or reasoning and the whole reply.
func (d *doctor) exchange(ctx context.Context, timeout time.Duration, req llm.Request) exchange {
	pctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	x := exchange{ran: true}
	start := time.Now()
	reply, err := d.client.Stream(pctx, req, func(delta llm.Delta) {
		if x.firstToken == 0 {
			x.firstToken = max(time.Since(start), time.Nanosecond)
		}
		x.contentBytes += len(delta.Content)
		x.reasoningBytes += len(delta.Reasoning)
		if x.reasoningField == "" {
			x.reasoningField = delta.ReasoningField
		}
	})
	x.elapsed = time.Since(start)
	x.reply = reply
	// A probe cut short by ctx found nothing: its check is skipped.
	x.ran = ctx.Err() == nil
	if err != nil {
		x.timeout = ctx.Err() == nil && pctx.Err() != nil
		x.err = asError(err)
	}
	return x
}

// asError is err as an *llm.Error (the client returns nothing else).
func asError(err error) *llm.Error {
	var e *llm.Error
	if errors.As(err, &e) {
		return e
	}
	return &llm.Error{Kind: llm.KindOther, Message: err.Error(), Err: err}
}

func intPtr(n int) *int { return &n }

func seconds(d time.Duration) *float64 {
	s := d.Seconds()
	return &s
}

// endpoint is the path of the API endpoint under apiUrl, e.g. /v1/models.
func (d *doctor) endpoint(path string) string {
	u, err := url.Parse(d.cfg.APIURL)
	if err != nil {
		return path
	}
	return strings.TrimRight(u.Path, "/") + path
}
