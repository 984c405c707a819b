package llm

import (
	"context"
	"errors"
	"io"
	"math"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// modelsTimeout bounds the GET /models made to explain an unknown model.
const modelsTimeout = 5 * time.Second

// Client streams chat completions. It is safe for use by one run; it
// remembers per-run discoveries such as a server rejecting stream_options.
type Client struct {
	cfg  Config
	base string // BaseURL without a trailing slash
	http *http.Client
	// noStreamOptions: the server rejected stream_options once; do not send
	// it again for the client's lifetime.
	noStreamOptions atomic.Bool
	// noShape: the server rejected a shape once; send none again.
	noShape atomic.Bool

	discoverMu sync.Mutex
	discovered map[string]ServerInfo // by model: Discover probes once

	bodies bodyEncoder // of chat requests, which repeat the history
}

// New returns a client for cfg.
func New(cfg Config) *Client {
	hc := cfg.HTTPClient
	if hc == nil {
		// No total timeout: slow CPUs take minutes on a long prompt.
		// Silence is bounded by IdleTimeout instead.
		hc = &http.Client{}
	}
	return &Client{cfg: cfg, base: strings.TrimRight(cfg.BaseURL, "/"), http: hc}
}

// call is the state of one HTTP exchange: its own context (cancelled with
// errStalled by the idle timer), the doer that observes the response, and a
// go-openai client bound to that doer. go-openai clients are cheap, and one
// per call keeps per-call state out of globals and context values.
type call struct {
	ctx     context.Context // the caller's
	callCtx context.Context
	cancel  context.CancelCauseFunc
	doer    *callDoer
	api     *openai.Client
	url     string
}

func (c *Client) newCall(ctx context.Context, path string, stream bool) *call {
	callCtx, cancel := context.WithCancelCause(ctx)
	d := newCallDoer(c.http, c.cfg.IdleTimeout, cancel, stream)
	oc := openai.DefaultConfig(c.cfg.APIKey) // go-openai sends the bearer header only for a non-empty key
	oc.BaseURL = c.base
	oc.HTTPClient = d
	// go-openai counts every non-data line (keep-alive comments, id:, blank
	// lines) against this limit; minutes of keep-alives must never fail a stream.
	oc.EmptyMessagesLimit = math.MaxUint
	return &call{ctx: ctx, callCtx: callCtx, cancel: cancel, doer: d, api: openai.NewClientWithConfig(oc), url: c.base + path}
}

func (cl *call) close() {
	cl.doer.stop()
	cl.cancel(nil)
}

// fail turns an error from go-openai or the transport into an *Error.
func (cl *call) fail(err error) error {
	d := cl.doer
	switch {
	case cl.ctx.Err() != nil:
		return &Error{Kind: KindOther, Message: "request cancelled", URL: cl.url, Err: cl.ctx.Err()}
	case errors.Is(context.Cause(cl.callCtx), errStalled):
		return &Error{Kind: KindStalled, Message: "no data for " + d.idle.String(), URL: cl.url, Err: errStalled}
	case d.lines.lastError() != nil:
		return classify(d.status, d.header, d.lines.lastError(), cl.url, true)
	case d.status >= 400:
		e := classify(d.status, d.header, d.body, cl.url, false)
		e.Err = err
		return e
	case !d.sent:
		// go-openai refused to build the request (its model-specific checks).
		return &Error{Kind: KindBadRequest, Message: err.Error(), URL: cl.url, Err: err}
	}
	var apiErr *openai.APIError
	if errors.As(err, &apiErr) {
		// A data: {"error":...} event the watcher did not see.
		se := serverError{message: cleanMessage(apiErr.Message), typ: apiErr.Type}
		switch code := apiErr.Code.(type) {
		case float64:
			se.code = int(code)
		case string:
			se.codeText = code
		}
		e := classifyError(d.status, d.header, se, cl.url, true)
		e.Err = err
		return e
	}
	return transportError(err, cl.url)
}

// transportError classifies a failure below HTTP: nothing answered, or the
// connection broke.
func transportError(err error, endpoint string) *Error {
	cause := err
	var ue *url.Error
	if errors.As(err, &ue) {
		cause = ue.Err // its text repeats the method and URL
	}
	var op *net.OpError
	var dns *net.DNSError
	if (errors.As(err, &op) && op.Op == "dial") || errors.As(err, &dns) {
		return &Error{Kind: KindUnreachable, Message: dialReason(cause), URL: endpoint, Err: err}
	}
	return &Error{Kind: KindNetwork, Message: cause.Error(), URL: endpoint, Err: err}
}

func dialReason(err error) string {
	var dns *net.DNSError
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused"
	case errors.As(err, &dns) && dns.IsNotFound:
		return "no such host " + dns.Name
	}
	var op *net.OpError
	if errors.As(err, &op) && op.Err != nil {
		return op.Err.Error()
	}
	return err.Error()
}

// Models lists the model ids the server offers (GET {BaseURL}/models).
func (c *Client) Models(ctx context.Context) ([]string, error) {
	cl := c.newCall(ctx, "/models", false)
	defer cl.close()
	list, err := cl.api.ListModels(cl.callCtx)
	if err != nil {
		return nil, c.finish(cl.fail(err))
	}
	ids := make([]string, 0, len(list.Models))
	for _, m := range list.Models {
		if m.ID != "" {
			ids = append(ids, m.ID)
		}
	}
	return ids, nil
}

// finish adjusts an *Error for the caller: an unreachable server is named
// by the base URL the user configured, not by the endpoint path.
func (c *Client) finish(err error) error {
	var e *Error
	if errors.As(err, &e) && e.Kind == KindUnreachable {
		e.URL = c.base
	}
	return err
}

// Stream sends req once (no retries; the caller owns the retry policy) and
// returns the whole reply, calling onDelta (may be nil) for each piece.
// Errors are *Error; context cancellation returns an error wrapping ctx.Err().
//
// A server that rejects stream_options gets the request once more without
// it, and never again during the client's lifetime. An unknown model is
// reported with the models the server lists, when it answers GET /models.
func (c *Client) Stream(ctx context.Context, req Request, onDelta func(Delta)) (Reply, error) {
	if c.noShape.Load() {
		req.Grammar, req.GrammarField, req.Schema = "", "", nil
	}
	withUsage := !c.noStreamOptions.Load()
	reply, err := c.streamOnce(ctx, req, withUsage, onDelta)
	// Each rejection is cured once, in whichever order the server names
	// them.
	var rejected Shape
	var shapeError string
	for range 2 {
		switch {
		case withUsage && rejectsStreamOptions(err):
			c.noStreamOptions.Store(true)
			withUsage = false
		case rejected == ShapeNone && rejectsShape(err, req.Params):
			c.noShape.Store(true)
			rejected, shapeError = ShapeOf(req.Params), errorMessage(err)
			req.Grammar, req.GrammarField, req.Schema = "", "", nil
		default:
			continue
		}
		reply, err = c.streamOnce(ctx, req, withUsage, onDelta)
	}
	if err == nil {
		reply.Shaped = ShapeOf(req.Params)
		reply.ShapeRejected, reply.ShapeError = rejected, shapeError
	}
	var e *Error
	if errors.As(err, &e) && e.Kind == KindModelNotFound && ctx.Err() == nil {
		mctx, cancel := context.WithTimeout(ctx, modelsTimeout)
		e.Models, _ = c.Models(mctx) // best effort: the error stands without them
		cancel()
	}
	return reply, c.finish(err)
}

// StreamOptionsRejected reports whether the server rejected
// stream_options.include_usage, so that requests now go without it (and
// without usage, unless the server sends it anyway).
func (c *Client) StreamOptionsRejected() bool { return c.noStreamOptions.Load() }

// ShapeRejected reports whether the server rejected a shape, so that
// requests now go without one.
func (c *Client) ShapeRejected() bool { return c.noShape.Load() }

// rejectsShape reports whether err is the server refusing the shape p
// carries: a 4xx or 5xx whose message names it (llama.cpp: "failed to
// parse grammar"; a server that knows no such field: "Unrecognized request
// argument supplied: grammar"; a schema it cannot use: "response_format",
// "json_schema").
func rejectsShape(err error, p Params) bool {
	var e *Error
	form := ShapeOf(p)
	if form == ShapeNone || !errors.As(err, &e) || e.Status < 400 || e.Kind == KindOverflow {
		return false
	}
	m := strings.ToLower(e.Message)
	words := []string{"grammar", "structured_outputs", "structured outputs", "ebnf"}
	if form == ShapeJSON {
		words = []string{"response_format", "json_schema", "json schema", "schema"}
	}
	for _, w := range words {
		if strings.Contains(m, w) {
			return true
		}
	}
	return false
}

func errorMessage(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Message
	}
	return err.Error()
}

func rejectsStreamOptions(err error) bool {
	var e *Error
	if !errors.As(err, &e) || e.Status < 400 || e.Status >= 500 {
		return false
	}
	m := strings.ToLower(e.Message)
	return strings.Contains(m, "stream_options") || strings.Contains(m, "include_usage")
}

func (c *Client) streamOnce(ctx context.Context, req Request, withUsage bool, onDelta func(Delta)) (reply Reply, err error) {
	start := time.Now()
	var firstByte time.Duration
	defer func() {
		reply.FirstByte, reply.Duration = firstByte, time.Since(start)
	}()
	cl := c.newCall(ctx, "/chat/completions", true)
	defer cl.close()
	cl.doer.alive = req.Alive
	extra := c.extraFields(req)
	wr := chatRequest(req, withUsage, extra)
	body, err := c.bodies.encode(wr)
	if err == nil {
		body, err = withFields(body, extra)
	}
	if err != nil {
		return Reply{}, &Error{Kind: KindBadRequest, Message: "encoding the request: " + err.Error(), URL: cl.url, Err: err}
	}
	// go-openai checks the parameters and builds the HTTP request around a
	// body without the messages; the doer sends body (see body.go).
	cl.doer.requestBody = body
	stream, err := cl.api.CreateChatCompletionStream(cl.callCtx, wr.params)
	if err != nil {
		return Reply{}, cl.fail(err)
	}
	defer stream.Close()

	stopped := false
	acc := replyBuilder{onDelta: func(d Delta) {
		if firstByte == 0 {
			firstByte = time.Since(start)
		}
		if onDelta != nil {
			onDelta(d)
		}
		stopped = stopped || (req.Stop != nil && req.Stop(d))
	}}
	d := cl.doer
	for !stopped {
		raw, err := stream.RecvRaw()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return Reply{}, cl.fail(err)
		}
		if e := cl.take(&acc, raw); e != nil {
			return Reply{}, e
		}
		if acc.cut {
			break // the rest is not wanted; closing the stream ends it
		}
	}
	if d.oversized {
		acc.markCut()
	}
	if stopped {
		// The deferred closes end the request: the server sees the
		// connection go and stops generating.
		reply := acc.reply()
		reply.Stopped = true
		return reply, nil
	}
	if payload := d.lines.lastError(); payload != nil {
		// llama.cpp's `error:` line inside a 200 stream, which go-openai skips.
		return Reply{}, classify(d.status, d.header, payload, cl.url, true)
	}
	if d.body != nil {
		// The server ignored stream:true and sent one JSON completion.
		if e := cl.take(&acc, d.body); e != nil {
			return Reply{}, e
		}
		if !acc.started() {
			return Reply{}, &Error{Kind: KindServer, Status: d.status, Message: "unexpected reply: " + clip(string(d.body)), URL: cl.url}
		}
		return acc.reply(), nil
	}
	// EOF without [DONE] is a complete reply once content or a finish
	// reason came (some servers never send [DONE]); before that it is a
	// connection that ended too soon.
	if !d.lines.done && !acc.started() {
		msg := "stream ended before any reply"
		if ct := d.header.Get("Content-Type"); ct != "" && !strings.HasPrefix(ct, "text/event-stream") {
			// Likely not an OpenAI-compatible endpoint at all (an HTML page, say).
			msg += " (Content-Type " + ct + ")"
		}
		return Reply{}, &Error{Kind: KindNetwork, Status: d.status, Message: msg, URL: cl.url}
	}
	return acc.reply(), nil
}

// take adds one payload to the reply, or returns the error it reports.
func (cl *call) take(acc *replyBuilder, payload []byte) *Error {
	errPayload, err := acc.add(payload)
	switch {
	case err != nil:
		// Garbage from a broken server or proxy; another attempt may fare better.
		return &Error{Kind: KindServer, Status: cl.doer.status, Message: "malformed reply chunk: " + err.Error(), URL: cl.url, Err: err}
	case errPayload != nil:
		return classify(cl.doer.status, cl.doer.header, errPayload, cl.url, true)
	}
	return nil
}

// chatRequest builds the wire request: its parameters, in go-openai's type
// without the messages, and the normalised messages (the body encoder
// writes both, see body.go). It never sets tools or tool_choice: dev speaks
// a markdown protocol, and servers without tool support reject them.
//
// Keys of extra (see extraFields) that dev also sets are left to extra.
func chatRequest(req Request, withUsage bool, extra map[string]any) wireRequest {
	out := openai.ChatCompletionRequest{
		Model:  req.Model,
		Stream: true,
	}
	if withUsage {
		out.StreamOptions = &openai.StreamOptions{IncludeUsage: true}
	}
	_, extraTemperature := extra["temperature"]
	_, extraMaxTokens := extra["max_tokens"]
	zeroTemperature := false
	if req.Temperature != nil && !extraTemperature {
		// A temperature of 0 is sent as 0: every server dev supports reads
		// it as greedy decoding. A tiny positive stand-in is not greedy on
		// llama.cpp, which divides the logits by it and samples garbage
		// (seen with b11434: 1e-45 gave random characters, 0 a sane reply).
		out.Temperature = float32(*req.Temperature)
		zeroTemperature = out.Temperature == 0
	}
	if req.MaxTokens != nil && !extraMaxTokens {
		// max_tokens, deprecated by OpenAI for max_completion_tokens, is the
		// field llama.cpp, vLLM, Ollama and LM Studio read; OpenAI still
		// accepts it for chat models.
		out.MaxTokens = *req.MaxTokens //lint:ignore SA1019 see above
	}
	return wireRequest{params: out, zeroTemperature: zeroTemperature, msgs: Normalize(req.Messages)}
}
