package doctor

import (
	"context"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"net/url"
	"strings"
	"time"

	"github.com/devagent/dev/history"
	"github.com/devagent/dev/llm"
	"github.com/devagent/dev/parser"
	"github.com/devagent/dev/prompts"
	"github.com/devagent/dev/shape"
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
	// shapes are the probes of each form of shape, with a grammar or a
	// schema that allows the nonce alone.
	shapes map[llm.Shape]exchange
	nonce  string
	// protocol is the template probe, sent as a run's first request is
	// (plan); retry, when protocol missed the template and a run's retry
	// goes in another form (auto on Ollama), is that retry, in retryPlan.
	protocol, retry exchange
	plan, retryPlan shape.Request
	// capped is the protocol probe's reply cap.
	capped int

	checks map[string]Check
	facts  Facts
}

func newDoctor(cfg Config) *doctor {
	nonce := cfg.Nonce
	if nonce == "" {
		nonce = drawNonce()
	}
	return &doctor{cfg: cfg, timeouts: cfg.Timeouts.withDefaults(), checks: map[string]Check{}, shapes: map[llm.Shape]exchange{}, nonce: nonce}
}

// drawNonce is a string no model writes unless a shape makes it: the
// shape probes allow it alone.
func drawNonce() string {
	const letters = "abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789"
	b := []byte("zq-")
	for range 10 {
		b = append(b, letters[rand.IntN(len(letters))])
	}
	return string(b)
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
			d.server = d.client.Discover(ctx, d.cfg.model())
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
		d.probeShapes(ctx)
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
	r := Report{APIURL: d.cfg.APIURL, Model: d.cfg.model(), ConfigFile: d.cfg.File, Facts: d.facts, Profile: d.profile()}
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

// shapeTokens are enough tokens for the nonce, and for a server that
// ignores the shape to show it.
const shapeTokens = 48

// probeShapes sends each form of shape with a grammar or a schema that
// allows the nonce alone (SPEC §18): a reply that is exactly the nonce
// shows the form applied, any other that the server ignored it; an error
// naming it, that it refused it. Each goes on a client of its own, so that
// a refusal does not keep the shape from the other probes. The grammar
// goes in the field a run would send it in.
func (d *doctor) probeShapes(ctx context.Context) {
	field := llm.GrammarField(d.server.Kind, d.server.Version)
	schema, _ := json.Marshal(map[string]any{"type": "object", "properties": map[string]any{"nonce": map[string]any{"type": "string", "const": d.nonce}},
		"required": []string{"nonce"}, "additionalProperties": false})
	for _, form := range []llm.Shape{llm.ShapeGrammar, llm.ShapeJSON} {
		if ctx.Err() != nil {
			return
		}
		p := d.params(shapeTokens)
		p.Thinking, p.Extra = d.cfg.Sends.Params.Thinking, d.cfg.Sends.Params.Extra
		if form == llm.ShapeGrammar {
			p.Grammar, p.GrammarField = `root ::= "`+d.nonce+`"`, field
		} else {
			p.Schema = &llm.Schema{Name: "nonce", Schema: schema}
		}
		client := llm.New(llm.Config{BaseURL: d.cfg.APIURL, APIKey: d.cfg.APIKey})
		req := llm.Request{Params: p, Messages: []llm.Message{{Role: llm.RoleUser, Content: prompts.DoctorPing}}}
		d.shapes[form] = d.exchangeWith(ctx, client, d.timeouts.Roles, req)
	}
}

// verdict is what a shape probe shows of its form.
type verdict string

// Verdicts of a shape probe.
const (
	applied  verdict = "applied"
	ignored  verdict = "ignored"
	rejected verdict = "rejected"
	unknown  verdict = "" // the probe failed, or its reply had no content
)

// shapeVerdict reads the probe of form.
func (d *doctor) shapeVerdict(form llm.Shape) verdict {
	x, ok := d.shapes[form]
	switch {
	case !ok || !x.ok():
		return unknown
	case x.reply.ShapeRejected != llm.ShapeNone:
		return rejected
	}
	content := strings.TrimSpace(x.reply.Content)
	if form == llm.ShapeJSON {
		var obj map[string]any
		if json.Unmarshal([]byte(content), &obj) == nil && len(obj) == 1 && obj["nonce"] == d.nonce {
			return applied
		}
	} else if content == d.nonce {
		return applied
	}
	if content == "" {
		return unknown
	}
	return ignored
}

// known is what a run knows of the server and the model once its first
// request is answered: what discovery found, reasoning the probes saw, and
// what the shape probes showed the run would learn.
func (d *doctor) known() shape.Known {
	k := shape.Known{Server: d.server, Reasoning: d.stream.reasoningField != "" || d.roles.reasoningField != ""}
	first := shape.Form(d.cfg.Sends.Constrain, k)
	if first != llm.ShapeNone && d.shapeVerdict(first) == rejected {
		k.Rejected = true
	}
	k.GrammarIgnored = d.shapeVerdict(llm.ShapeGrammar) == ignored
	k.JSONIgnored = d.shapeVerdict(llm.ShapeJSON) == ignored
	return k
}

// protocolTools are the tools the protocol probe's shape offers: DONE.
var protocolTools = []parser.GrammarTool{{Name: "DONE", Input: parser.InputText}}

// probeProtocol asks for the template with DONE and OK, sent as a run's
// request would be (shape.Plan: its temperature, reply cap, thinking,
// extraBody and the shape of its replies, in the form the run would
// settle on for this server), and times the whole reply. A reply outside
// the template is followed, when a run's retry would go in another form
// (constrain auto on Ollama and LM Studio), by that retry.
func (d *doctor) probeProtocol(ctx context.Context) {
	k := d.known()
	d.plan = shape.Plan(d.cfg.Sends, protocolTools, k)
	d.protocol = d.protocolExchange(ctx, d.plan)
	if d.protocol.ok() && d.protocolParses(d.protocol, d.plan) == nil || ctx.Err() != nil {
		return
	}
	k.Missed = true
	if retry := shape.Plan(d.cfg.Sends, protocolTools, k); retry.Form != d.plan.Form && retry.Form != llm.ShapeNone && d.protocol.ok() {
		d.retryPlan = retry
		d.retry = d.protocolExchange(ctx, retry)
	}
}

// protocolExchange sends the protocol probe as plan has it.
func (d *doctor) protocolExchange(ctx context.Context, plan shape.Request) exchange {
	system, request := prompts.DoctorProtocol()
	d.capped = plan.ReplyCap
	p := plan.Params
	p.MaxTokens = intPtr(plan.ReplyCap)
	msgs := []llm.Message{{Role: llm.RoleSystem, Content: system}}
	if plan.Note != "" { // as a run's request has it
		msgs = append(msgs, llm.Message{Role: llm.RoleUser, Content: plan.Note})
	}
	req := llm.Request{Params: p, Messages: append(msgs, history.Request(request))}
	return d.exchange(ctx, d.timeouts.Protocol, req)
}

// protocolParses reads the protocol probe's reply as a run reads it: in
// the JSON form when it was sent so, then with the tools a run offers.
func (d *doctor) protocolParses(x exchange, plan shape.Request) error {
	_, _, err := d.parseProtocol(x, plan)
	return err
}

// parseProtocol reads the protocol probe's reply as a run reads a reply:
// the JSON form turned into the template, then parsed with the tools a run
// offers and DONE. inForm is false for a reply to a request in the JSON
// form that is not in it.
func (d *doctor) parseProtocol(x exchange, plan shape.Request) (resp parser.Response, inForm bool, err error) {
	content := x.reply.Content
	inForm = true
	if x.reply.Shaped == llm.ShapeJSON {
		text, err := parser.ReplyJSON(protocolTools).Template(content)
		if err == nil {
			content = text
		}
		inForm = err == nil
	}
	names := []string{"DONE"}
	for _, t := range d.cfg.Tools {
		if t.Name != "DONE" {
			names = append(names, t.Name)
		}
	}
	resp, err = parser.Parse(content, names)
	return resp, inForm, err
}

// params are a probe's request parameters: the run's model and
// temperature, and a reply cap of maxTokens.
func (d *doctor) params(maxTokens int) llm.Params {
	return llm.Params{Model: d.cfg.model(), Temperature: d.cfg.Sends.Params.Temperature, MaxTokens: intPtr(maxTokens)}
}

// exchange streams req within timeout on the doctor's client.
func (d *doctor) exchange(ctx context.Context, timeout time.Duration, req llm.Request) exchange {
	return d.exchangeWith(ctx, d.client, timeout, req)
}

// exchangeWith streams req on client within timeout, timing the first
// piece of content or reasoning and the whole reply.
func (d *doctor) exchangeWith(ctx context.Context, client *llm.Client, timeout time.Duration, req llm.Request) exchange {
	pctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	x := exchange{ran: true}
	start := time.Now()
	reply, err := client.Stream(pctx, req, func(delta llm.Delta) {
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
