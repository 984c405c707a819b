package doctor

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/devagent/dev/llm"
	"github.com/devagent/dev/parser"
	"github.com/devagent/dev/shape"
	"github.com/devagent/dev/textdist"
	"github.com/devagent/dev/textfmt"
)

// Thresholds of the checks.
const (
	// smallWindow: below it a window is too small for agent work (the
	// system prompt, a few file reads and the replies fill it).
	smallWindow = 16384
	// suggestedWindow is the window the fixes propose.
	suggestedWindow = 32768
	// farBelow: a server window under maxContextTokens / farBelow is far
	// below what the user configured.
	farBelow = 4
	// slowFirstToken: a first token later than this for a one-line prompt
	// means a model still loading, or a server too slow for comfort.
	slowFirstToken = 10 * time.Second
	// listedModels is how many of the server's models a line names.
	listedModels = 8
)

func (d *doctor) set(c Check) { d.checks[c.Name] = c }

// config reports how the configuration file fared.
func (d *doctor) config() {
	c := Check{Name: CheckConfig, Status: OK, Detail: d.cfg.File}
	switch {
	case d.cfg.Err != nil:
		c.Status, c.Detail = Fail, d.cfg.Err.Error()
		c.Fix = "correct the file (dev config opens it in your editor), or delete it to get the defaults back"
	case !d.cfg.FileFound:
		c.Detail = "no file at " + d.cfg.File + ": using the defaults (dev creates the file on its first run)"
	case len(d.cfg.Warnings) > 0:
		c.Status, c.Detail = Warn, d.cfg.Warnings[0]
		if n := len(d.cfg.Warnings) - 1; n > 0 {
			c.Detail += fmt.Sprintf(" (and %d more)", n)
		}
		c.Fix = "correct or remove the key: dev ignores it"
	}
	d.set(c)
}

// build turns what the probes found into checks. Checks whose probes did
// not run are left for skipRest.
func (d *doctor) build() {
	if d.models.ran {
		d.reachable()
	}
	if d.serverRan {
		d.serverCheck()
		d.contextCheck()
	}
	if d.stream.ran {
		d.modelCheck()
		d.streamingCheck()
	}
	if d.stream.ok() || d.protocol.ran {
		d.reasoningCheck()
	}
	if d.roles.ran {
		d.rolesCheck()
	}
	for _, form := range []llm.Shape{llm.ShapeGrammar, llm.ShapeJSON} {
		if x, ok := d.shapes[form]; ok && x.ran {
			d.shapeCheck(form)
		}
	}
	if d.protocol.ran {
		d.protocolCheck()
	}
}

// shapeCheck reports what the probe of form showed (SPEC §18): applied,
// ignored (a warning naming the field and what to do) or rejected, and
// whether runs send the form.
func (d *doctor) shapeCheck(form llm.Shape) {
	x := d.shapes[form]
	name, what, field := CheckGrammar, "the reply grammar", llm.GrammarField(d.server.Kind, d.server.Version)
	if form == llm.ShapeJSON {
		name, what, field = CheckJSON, "the JSON form", llm.FieldResponseFormat
	}
	c := Check{Name: name, Status: OK}
	runs, sent := d.runsSend(form)
	switch {
	case x.timeout:
		c.Status = Warn
		c.Detail = fmt.Sprintf("no reply within %s to a short request with %s in %s", duration(d.timeouts.Roles), what, field)
		c.Fix = "run dev doctor again; a server this slow makes every step slow"
		d.set(c)
		return
	case x.err != nil:
		c.Status = Warn
		if sent {
			c.Status = Fail
		}
		c.Detail = fmt.Sprintf("a request with %s in %s failed: %s; %s", what, field, errText(x.err), runs)
		c.Fix = d.errorFix(x.err)
		d.set(c)
		return
	}
	v := d.shapeVerdict(form)
	if form == llm.ShapeGrammar {
		d.facts.Grammar, d.facts.GrammarField = string(v), field
		accepted, applied := v != rejected, v == applied
		d.facts.GrammarAccepted = &accepted
		if v != unknown && v != rejected {
			d.facts.GrammarApplied = &applied
		}
	} else {
		d.facts.JSONForm = string(v)
	}
	switch v {
	case applied:
		c.Detail = fmt.Sprintf("applied in %s: the reply was exactly the one string the probe allowed; %s", field, runs)
		if !sent && d.cfg.Sends.Constrain != shape.Off && shape.Form(d.cfg.Sends.Constrain, shape.Known{Server: d.server, Missed: true}) == llm.ShapeNone {
			c.Detail += "; constrain " + onFor(form) + " would let the server shape the replies"
		}
	case rejected:
		c.Detail = fmt.Sprintf("rejected in %s: %s; %s", field, textfmt.Excerpt(x.reply.ShapeError, 160), runs)
		if sent {
			c.Status = Warn
			c.Detail += ", so replies are not shaped: dev warns and sends them without it"
			c.Fix = "set constrain to off in " + d.cfg.File + " to stop trying, or run a server that shapes replies (llama.cpp; vLLM 0.10.2 and later; SGLang; Ollama and LM Studio in the JSON form)"
		}
	case ignored:
		c.Status = Warn
		c.Detail = fmt.Sprintf("ignored in %s: the server took the request and answered freely (%q); %s", field, textfmt.Excerpt(x.reply.Content, 30), runs)
		c.Fix = d.ignoredFix(form)
	default:
		c.Detail = fmt.Sprintf("accepted in %s (the reply had no content to tell whether it was applied); %s", field, runs)
		if x.reply.FinishReason == "length" {
			c.Detail = fmt.Sprintf("accepted in %s; the reply ran to its token limit (%d) before any content, so it cannot tell whether it was applied; %s", field, shapeTokens, runs)
		}
	}
	d.set(c)
}

// onFor is the constrain setting that sends form to any server.
func onFor(form llm.Shape) string {
	if form == llm.ShapeJSON {
		return "json"
	}
	return "on"
}

// runsSend says whether and when a run sends form to this server (the
// forms shape.Form picks), and in words.
func (d *doctor) runsSend(form llm.Shape) (string, bool) {
	c := d.cfg.Sends.Constrain
	setting := "constrain " + d.constrainSetting()
	k := shape.Known{Server: d.server}
	first := shape.Form(c, k)
	k.Missed = true
	afterMiss := shape.Form(c, k)
	k.Missed, k.GrammarIgnored = false, true
	fallback := shape.Form(c, k)
	switch {
	case first == form:
		return "runs send it (" + setting + ")", true
	case afterMiss == form:
		return "runs send it from the first reply that misses the template on (" + setting + ")", true
	case first == llm.ShapeGrammar && fallback == form:
		return "runs send it if the server ignores the grammar (" + setting + ")", true
	case c == shape.Off:
		return "runs send no shape (constrain off)", false
	}
	return "runs do not send it (" + setting + ")", false
}

// ignoredFix says what to do about a form the server took and ignored.
func (d *doctor) ignoredFix(form llm.Shape) string {
	if form == llm.ShapeJSON {
		return "this server does not apply a JSON schema in response_format: set constrain to auto (or on) in " + d.cfg.File + " where it applies the grammar, else off"
	}
	switch d.server.Kind {
	case llm.ServerOllama, llm.ServerLMStudio:
		return fmt.Sprintf("nothing to change: %s takes no grammar, so runs send it the JSON form (constrain auto or on)", d.server.Kind)
	case llm.ServerVLLM:
		return "vLLM reads guided_grammar before 0.10.2 and structured_outputs from 0.10.2: check that GET /version answers (dev picks the field by it), or set constrain to json in " + d.cfg.File
	case llm.ServerLlamaCpp:
		return "check that llama-server reads the grammar field (any recent build does), or set constrain to json in " + d.cfg.File
	case llm.ServerSGLang:
		return "start SGLang with a grammar backend (--grammar-backend xgrammar), or set constrain to json in " + d.cfg.File
	}
	return "this server does not apply the grammar: set constrain to json in " + d.cfg.File + " if the json line shows the JSON form applied, else to off"
}

func (d *doctor) constrainSetting() string {
	if d.cfg.Sends.Constrain == "" {
		return "auto"
	}
	return string(d.cfg.Sends.Constrain)
}

// shapeWouldHelp names the constrain setting that would have the server
// shape the replies: the protocol probe went without a shape, and the
// server applies a form (or did not tell). "" when none would.
func (d *doctor) shapeWouldHelp() string {
	if d.plan.Form != llm.ShapeNone || d.retryPlan.Form != llm.ShapeNone {
		return ""
	}
	for _, form := range []llm.Shape{llm.ShapeGrammar, llm.ShapeJSON} {
		if v := d.shapeVerdict(form); v == applied || (v == unknown && d.shapes[form].ok()) {
			return onFor(form)
		}
	}
	return ""
}

// protocolFix names what would help a model that gave no parseable reply,
// in order: the server shaping the replies, the reply cap, a stronger
// model (SPEC §18).
func (d *doctor) protocolFix(cut, timeout bool) string {
	var fixes []string
	if setting := d.shapeWouldHelp(); setting != "" {
		how := "set constrain to " + setting + " in " + d.cfg.File
		if d.cfg.Sends.Constrain == shape.Off && shape.Recognised(d.server.Kind) {
			how = "set constrain to auto (or " + setting + ") in " + d.cfg.File
		}
		fixes = append(fixes, how+": the server shapes the replies to the template")
	}
	switch {
	case cut:
		fixes = append(fixes, fmt.Sprintf("raise maxTokens in %s above %s", d.cfg.File, textfmt.Thousands(int64(d.capped))))
	case timeout:
		fixes = append(fixes, fmt.Sprintf("lower maxTokens in %s (now %s) so that a rambling reply ends sooner", d.cfg.File, textfmt.Thousands(int64(d.capped))))
	}
	fixes = append(fixes, "use a stronger instruction-following model")
	if len(fixes) == 1 {
		return fixes[0]
	}
	for i := range fixes {
		fixes[i] = fmt.Sprintf("%d) %s", i+1, fixes[i])
	}
	return "in order: " + strings.Join(fixes, "; ")
}

func (d *doctor) reachable() {
	m := d.models
	c := Check{Name: CheckReachable, Status: OK}
	get := "GET " + d.endpoint("/models")
	e := m.err
	switch {
	case e == nil:
		d.facts.Models = m.ids
		d.facts.ModelsSeconds = seconds(m.elapsed)
		c.Detail = fmt.Sprintf("%s answered in %s (%s)", get, duration(m.elapsed), textfmt.Plural(len(m.ids), "model"))
	case m.timeout:
		c.Status = Fail
		c.Detail = fmt.Sprintf("no answer to %s within %s", get, duration(d.timeouts.Reach))
		c.Fix = "check that the server at " + d.cfg.APIURL + " is running and not stuck (it accepts connections but does not answer)"
	case e.Kind == llm.KindUnreachable:
		c.Status = Fail
		c.Detail = fmt.Sprintf("cannot connect to %s: %s", d.cfg.APIURL, e.Message)
		c.Fix = "start the server, or set apiUrl in " + d.cfg.File + " (or DEV_API_URL) to where it listens"
	case e.Kind == llm.KindAuth:
		c.Status = Fail
		c.Detail = fmt.Sprintf("the server refused the request (HTTP %d: %s)", e.Status, e.Message)
		c.Fix = "set apiKey in " + d.cfg.File + " or DEV_API_KEY"
	case m.v1Works:
		c.Status = Fail
		c.Detail = fmt.Sprintf("%s: HTTP %d, but %s/v1/models answers", get, e.Status, strings.TrimRight(d.cfg.APIURL, "/"))
		c.Fix = "set apiUrl to " + strings.TrimRight(d.cfg.APIURL, "/") + "/v1 in " + d.cfg.File + " (or DEV_API_URL)"
	case e.Status == 0:
		c.Status = Fail
		c.Detail = fmt.Sprintf("%s failed: %s", get, e.Message)
		c.Fix = "check apiUrl in " + d.cfg.File + ": it should be the server's OpenAI-compatible API, e.g. http://localhost:8080/v1"
	default:
		// It answered, just not with a list: the chat requests decide.
		c.Status = Warn
		c.Detail = fmt.Sprintf("the server answered, but %s failed (%s)", get, errText(e))
		c.Fix = "none needed if the checks below pass; dev lists models only to explain an unknown model"
	}
	d.set(c)
}

// serverName is the name the report gives the server.
func (d *doctor) serverName() string {
	if d.server.Kind != llm.ServerUnknown {
		return string(d.server.Kind)
	}
	if name := llm.Hosted(d.cfg.APIURL); name != "" {
		return name
	}
	return "generic"
}

func (d *doctor) serverCheck() {
	name := d.serverName()
	d.facts.Server, d.facts.Version = name, d.server.Version
	c := Check{Name: CheckServer, Status: OK}
	switch {
	case d.server.Kind == llm.ServerUnknown:
		what := "a generic OpenAI-compatible server"
		if name != "generic" {
			what = name
		}
		c.Detail = what + " (no llama.cpp, vLLM, Ollama or LM Studio endpoint answered)"
	default:
		c.Detail = name
		if d.server.Version != "" {
			c.Detail += " " + d.server.Version
		}
		c.Detail += " (" + endpointOf(d.server.Source) + ")"
	}
	d.set(c)
}

// endpointOf is the method and path of a Discover source, without the field.
func endpointOf(source string) string {
	f := strings.Fields(source)
	if len(f) >= 2 {
		return f[0] + " " + f[1]
	}
	return source
}

func (d *doctor) modelCheck() {
	c := Check{Name: CheckModel, Status: OK}
	model, ids := d.cfg.model(), d.models.ids
	listed := slices.ContainsFunc(ids, func(id string) bool {
		return id == model || (d.server.Kind == llm.ServerOllama && llm.SameOllamaModel(id, model))
	})
	missing := d.stream.err != nil && d.stream.err.Kind == llm.KindModelNotFound
	if missing && len(ids) == 0 {
		ids = d.stream.err.Models
	}
	setModel := "set model in " + d.cfg.File + " (or DEV_MODEL, or --model) to one of them"
	switch {
	case missing && len(ids) > 0:
		c.Status = Fail
		c.Detail = fmt.Sprintf("the server has no model %q; it serves %s", model, closest(ids, model))
		c.Fix = setModel
	case missing:
		c.Status = Fail
		c.Detail = fmt.Sprintf("the server has no model %q (%s), and does not list its models", model, textfmt.Excerpt(d.stream.err.Message, 300))
		c.Fix = "set model in " + d.cfg.File + " (or DEV_MODEL, or --model) to a model the server serves"
	case listed:
		c.Detail = fmt.Sprintf("%s is served (%s listed)", model, textfmt.Plural(len(ids), "model"))
	case len(ids) == 0 && d.stream.ok():
		c.Detail = fmt.Sprintf("the server does not list its models; it answered a request for %s", model)
	case len(ids) == 0:
		c.Status = Skip
		c.Detail = "not checked: the server does not list its models, and the request failed"
	case d.server.Kind == llm.ServerLlamaCpp && d.stream.ok():
		c.Detail = fmt.Sprintf("llama.cpp answers any model name with its loaded model (%s)", closest(ids, model))
	case d.stream.ok():
		c.Status = Warn
		c.Detail = fmt.Sprintf("%q is not in the server's list (%s), but the server answered it", model, closest(ids, model))
		c.Fix = "use a listed name, so that the model you expect is the one that answers"
	default:
		c.Status = Warn
		c.Detail = fmt.Sprintf("%q is not in the server's list: %s", model, closest(ids, model))
		c.Fix = setModel
	}
	d.set(c)
}

// closest names up to listedModels of ids, the likeliest meant first, and
// how many more there are: ids that contain the name ("qwen/qwen3-coder"
// for "qwen3-coder"), then by edit distance.
func closest(ids []string, model string) string {
	m := strings.ToLower(model)
	rank := func(id string) int {
		id = strings.ToLower(id)
		d := textdist.Distance(id, m)
		if strings.Contains(id, m) {
			d -= 1 << 20
		}
		return d
	}
	sorted := slices.Clone(ids)
	slices.SortStableFunc(sorted, func(a, b string) int { return rank(a) - rank(b) })
	if len(sorted) <= listedModels {
		return strings.Join(sorted, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(sorted[:listedModels], ", "), len(sorted)-listedModels)
}

func (d *doctor) contextCheck() {
	window, configured := d.server.Window, d.cfg.Sends.Window
	working := configured
	if window > 0 && window < configured {
		working = window
	}
	d.facts.ContextWindow, d.facts.ContextWindowSource, d.facts.WorkingWindow = window, d.server.Source, working
	c := Check{Name: CheckContext, Status: OK}
	if window == 0 && d.stream.err != nil && d.stream.err.Kind == llm.KindModelNotFound {
		c.Status, c.Detail = Skip, "not checked: the server does not serve the model"
		d.set(c)
		return
	}
	if window == 0 {
		switch d.server.Kind {
		case llm.ServerOllama, llm.ServerLMStudio:
			c.Status = Warn
			c.Detail = fmt.Sprintf("%s did not report a window for %s (it does only while the model is loaded); dev assumes maxContextTokens (%s)",
				d.server.Kind, d.cfg.model(), textfmt.Thousands(int64(configured)))
			c.Fix = d.windowFix(suggestedWindow) + ", and set maxContextTokens to match"
		default:
			c.Detail = fmt.Sprintf("not reported by the server; dev assumes maxContextTokens (%s) and takes the real limit from the first overflow error",
				textfmt.Thousands(int64(configured)))
		}
		d.set(c)
		return
	}
	c.Detail = fmt.Sprintf("%s tokens per request (%s", textfmt.Thousands(int64(window)), d.server.Source)
	if d.server.Slots > 1 {
		c.Detail += fmt.Sprintf(", %d slots", d.server.Slots)
	}
	c.Detail += ")"
	suggest := max(suggestedWindow, min(configured, 2*suggestedWindow))
	switch {
	case working < smallWindow:
		c.Status = Warn
		c.Detail += fmt.Sprintf(": too small for agent work (under %s), dev will compress every few steps", textfmt.Thousands(int64(smallWindow)))
		c.Fix = d.windowFix(suggest)
	case window*farBelow < configured:
		c.Status = Warn
		c.Detail += fmt.Sprintf(": far below maxContextTokens (%s); dev works within %s", textfmt.Thousands(int64(configured)), textfmt.Thousands(int64(working)))
		c.Fix = d.windowFix(suggest) + fmt.Sprintf(", or set maxContextTokens to %d in %s", window, d.cfg.File)
	case window < configured:
		c.Detail += fmt.Sprintf("; dev works within it (maxContextTokens is %s)", textfmt.Thousands(int64(configured)))
	default:
		c.Detail += fmt.Sprintf("; dev works within maxContextTokens (%s)", textfmt.Thousands(int64(configured)))
	}
	d.set(c)
}

// windowFix says how to give the model a window of n tokens on this server.
func (d *doctor) windowFix(n int) string {
	switch d.server.Kind {
	case llm.ServerLlamaCpp:
		return fmt.Sprintf("start llama-server with -c %d -np 1 (-c is shared by the -np slots)", n)
	case llm.ServerVLLM:
		return fmt.Sprintf("start vllm serve with --max-model-len %d (as far as the model and GPU memory allow)", n)
	case llm.ServerOllama:
		return fmt.Sprintf("run ollama serve with OLLAMA_CONTEXT_LENGTH=%d (or PARAMETER num_ctx %d in a Modelfile)", n, n)
	case llm.ServerLMStudio:
		return fmt.Sprintf("load the model with a larger context: lms load %s --context-length %d", d.cfg.model(), n)
	}
	return "use a server or model with a larger context window"
}

func (d *doctor) streamingCheck() {
	x := d.stream
	c := Check{Name: CheckStreaming, Status: OK}
	switch {
	case x.timeout:
		c.Status = Warn
		c.Detail = fmt.Sprintf("no reply to a one-token request within %s", duration(d.timeouts.Stream))
		c.Fix = "if the model was loading, run dev doctor again; if the server is this slow, raise requestTimeout in " + d.cfg.File
		d.set(c)
		return
	case x.err != nil && x.err.Kind == llm.KindModelNotFound:
		c.Status = Skip
		c.Detail = "not checked: the server does not serve the model"
		d.set(c)
		return
	case x.err != nil:
		c.Status = Fail
		c.Detail = "a one-token streaming request failed: " + errText(x.err)
		c.Fix = d.errorFix(x.err)
		d.set(c)
		return
	}
	usage := x.reply.Usage != nil
	accepted := !d.client.StreamOptionsRejected()
	d.facts.Usage, d.facts.StreamOptions = &usage, &accepted
	var parts []string
	if x.firstToken > 0 {
		d.facts.FirstTokenSeconds = seconds(x.firstToken)
		parts = append(parts, "first token after "+duration(x.firstToken))
	} else {
		parts = append(parts, "no token, finished after "+duration(x.elapsed))
	}
	if usage {
		parts = append(parts, "usage reported")
	} else {
		parts = append(parts, "no usage")
	}
	if accepted {
		parts = append(parts, "stream_options accepted")
	} else {
		parts = append(parts, "stream_options rejected (dev sends requests without it)")
	}
	c.Detail = strings.Join(parts, "; ")
	switch {
	case x.firstToken > slowFirstToken:
		c.Status = Warn
		c.Fix = "the model was probably loading: run dev doctor again; if it stays this slow, expect minutes per step and raise requestTimeout"
	case !usage:
		c.Status = Warn
		c.Fix = "nothing to change: dev estimates prompt sizes at 4 bytes per token instead, so compression starts less precisely"
	}
	d.set(c)
}

// errorFix says what to do about a failed chat request.
func (d *doctor) errorFix(e *llm.Error) string {
	switch e.Kind {
	case llm.KindAuth:
		return "set apiKey in " + d.cfg.File + " or DEV_API_KEY"
	case llm.KindOverflow:
		return d.windowFix(suggestedWindow)
	case llm.KindBadRequest:
		if isTemplateMessage(e.Message) {
			return d.templateFix()
		}
	}
	return "check the server's log for this request"
}

func isTemplateMessage(m string) bool {
	m = strings.ToLower(m)
	return strings.Contains(m, "jinja") || strings.Contains(m, "template") || strings.Contains(m, "roles must alternate")
}

// rejectsShape reports whether the role probe's failure is the chat
// template refusing its messages: the one-token request (a lone user
// message) went through, and this one, which differs only in its messages,
// was refused as a bad request (llama.cpp reports template errors as 500).
func rejectsShape(e *llm.Error, plain exchange) bool {
	if isTemplateMessage(e.Message) {
		return true
	}
	return plain.ok() && (e.Kind == llm.KindBadRequest || (e.Kind == llm.KindServer && e.Status == 500))
}

// templateFix says how to get a chat template that accepts a system message
// and alternating turns.
func (d *doctor) templateFix() string {
	switch d.server.Kind {
	case llm.ServerLlamaCpp:
		return "start llama-server with --jinja and the model's own template, or give one that accepts a system message with --chat-template-file"
	case llm.ServerVLLM:
		return "start vllm serve with a chat template that accepts a system message (--chat-template)"
	case llm.ServerOllama:
		return "use a model whose template accepts a system message (or set TEMPLATE in a Modelfile)"
	}
	return "use a model whose chat template accepts a system message and alternating user and assistant turns"
}

func (d *doctor) rolesCheck() {
	x := d.roles
	c := Check{Name: CheckRoles, Status: OK, Detail: "system, user, assistant, user: accepted"}
	switch {
	case x.timeout:
		c.Status = Warn
		c.Detail = fmt.Sprintf("no reply within %s to system, user, assistant, user", duration(d.timeouts.Roles))
		c.Fix = "run dev doctor again; a server this slow makes every step slow"
	case x.err != nil && rejectsShape(x.err, d.stream):
		c.Status = Fail
		c.Detail = "the chat template rejects the conversation shape dev sends: " + textfmt.Excerpt(x.err.Message, 300)
		c.Fix = d.templateFix()
	case x.err != nil:
		c.Status = Fail
		c.Detail = "system, user, assistant, user failed: " + errText(x.err)
		c.Fix = d.errorFix(x.err)
	}
	d.set(c)
}

// reasoning is what the probes saw of reasoning: the field, or inline
// think blocks.
func (d *doctor) reasoningSeen() (field, thinking string) {
	for _, x := range []exchange{d.stream, d.protocol} {
		if x.reasoningField != "" {
			return x.reasoningField, x.reply.Reasoning
		}
	}
	for _, x := range d.inlineEvidence() {
		if _, thinking := parser.StripThinking(x.reply.Content); thinking != "" {
			return "<think>", thinking
		}
	}
	return "", ""
}

// inlineEvidence are the exchanges whose inline think blocks show that the
// model reasons: the grammar offers a <think> block only to a model already
// known to reason, so any block is the model's own.
func (d *doctor) inlineEvidence() []exchange {
	return []exchange{d.stream, d.protocol}
}

func (d *doctor) reasoningCheck() {
	field, _ := d.reasoningSeen()
	d.facts.ReasoningField = field
	c := Check{Name: CheckReasoning, Status: OK}
	switch field {
	case "":
		c.Detail = "none seen"
	case "<think>":
		c.Detail = "inline <think> blocks in the content (dev strips them; --verbose shows them)"
	default:
		c.Detail = "in the " + field + " field (--verbose shows it; it is never stored)"
	}
	p := d.protocol
	content, _ := parser.StripThinking(p.reply.Content)
	reasoned := p.reply.Reasoning != "" || field == "<think>" || p.reasoningBytes > 0
	switch {
	case p.ok() && p.reply.FinishReason == "length" && strings.TrimSpace(content) == "" && reasoned:
		c.Status = Fail
		c.Detail += "; it used the whole reply budget" + d.maxTokensText() + ": no answer came"
		c.Fix = "raise or remove maxTokens in " + d.cfg.File + ", or limit reasoning on the server" + d.reasoningLimit()
	case p.timeout && p.contentBytes == 0 && p.reasoningBytes > 0:
		c.Status = Warn
		c.Detail += fmt.Sprintf("; still reasoning after %s (about %s tokens), no answer yet", duration(d.timeouts.Protocol), textfmt.Thousands(int64((p.reasoningBytes+3)/4)))
		c.Fix = "every step will take long: use a model without thinking, or limit reasoning on the server" + d.reasoningLimit()
	}
	d.set(c)
}

func (d *doctor) maxTokensText() string {
	if d.cfg.Sends.Params.MaxTokens != nil {
		return fmt.Sprintf(" (maxTokens %d)", *d.cfg.Sends.Params.MaxTokens)
	}
	if d.capped > 0 {
		return fmt.Sprintf(" (the default maxTokens, %s tokens: a quarter of the context window)", textfmt.Thousands(int64(d.capped)))
	}
	return " (the server's output limit)"
}

func (d *doctor) reasoningLimit() string {
	switch d.server.Kind {
	case llm.ServerLlamaCpp:
		return " (llama-server --reasoning-budget 0 turns it off)"
	case llm.ServerVLLM:
		return ` (recent vllm serve: --default-chat-template-kwargs '{"enable_thinking": false}' for Qwen3-style models)`
	}
	return ""
}

// protocolCheck judges the protocol probe, sent as a run sends its
// requests: a reply that parses is what every step needs; none (a reply
// outside the template, one cut at its cap, or none in time) is a
// failure, whose fix names what would help. When a run's retry after a
// miss goes in another form, the retry is judged, the miss said.
func (d *doctor) protocolCheck() {
	x, plan := d.protocol, d.plan
	c := Check{Name: CheckProtocol, Status: OK}
	first := ""
	if d.retry.ran {
		first = fmt.Sprintf("; unshaped, the first reply missed the template (%s), and a run's retry goes in the JSON form (constrain %s on %s)",
			d.protocolProblem(d.protocol, d.plan), d.constrainSetting(), d.server.Kind)
		x, plan = d.retry, d.retryPlan
	}
	tokens, estimated := x.tokens()
	d.facts.ProtocolTokens, d.facts.ProtocolEstimate, d.facts.ProtocolSeconds = tokens, estimated, seconds(x.elapsed)
	shaped := x.reply.Shaped
	d.facts.ProtocolShape, d.facts.ProtocolConstrained, d.facts.ProtocolMaxTokens = string(shaped), shaped != llm.ShapeNone, plan.ReplyCap
	count := textfmt.Thousands(int64(tokens))
	if estimated {
		count = "~" + count
	}
	after := fmt.Sprintf("after %s tokens, %s", count, duration(x.elapsed))
	switch shaped {
	case llm.ShapeGrammar:
		after += ", shaped by the server's grammar"
	case llm.ShapeJSON:
		after += ", shaped by the server in the JSON form"
	}
	slower := "a stronger instruction-following model (or a lower temperature) does better"
	switch {
	case x.timeout:
		c.Status = Fail
		c.Detail = fmt.Sprintf("no complete reply within %s (about %s tokens so far, of at most %s): no reply to parse%s",
			duration(d.timeouts.Protocol), textfmt.Thousands(int64((x.contentBytes+x.reasoningBytes+3)/4)), textfmt.Thousands(int64(plan.ReplyCap)), first)
		c.Fix = d.protocolFix(false, true)
		d.set(c)
		return
	case x.err != nil:
		c.Status = Fail
		c.Detail = "the request failed: " + errText(x.err) + first
		c.Fix = d.errorFix(x.err)
		d.set(c)
		return
	}
	parsed := false
	defer func() { d.facts.ProtocolParsed = &parsed }()
	resp, inForm, err := d.parseProtocol(x, plan)
	switch {
	case shaped == llm.ShapeJSON && !inForm && x.reply.FinishReason != "length":
		c.Status = Fail
		c.Detail = "not in the JSON form the request carried, nor in the template " + strings.TrimSuffix(after, ", shaped by the server in the JSON form") +
			": the server ignored the schema" + first
		c.Fix = d.protocolFix(false, false) + " (dev sends the error back, but a model that keeps failing ends the run with exit 5)"
	case x.reply.FinishReason == "length" && err != nil:
		c.Status = Fail
		c.Detail = "the reply ran to its token limit" + d.maxTokensText() + " before the template was complete (" + after + ")" + first
		c.Fix = d.protocolFix(true, false)
	case err != nil:
		c.Status = Fail
		c.Detail = "not in the template " + after + ": " + textfmt.Excerpt(textfmt.FirstLine(err.Error()), 200) + first
		c.Fix = d.protocolFix(false, false) + " (dev sends the error back, but a model that keeps failing ends the run with exit 5)"
	case len(resp.Tools) == 0 || resp.Tools[0].Name != "DONE" || !saysOK(resp.Tools[0].Input):
		// In the template, a poor choice: a tool a run offers, or DONE
		// with another input.
		parsed = true
		got := "no tool"
		if len(resp.Tools) > 0 {
			got = fmt.Sprintf("%s %q", resp.Tools[0].Name, textfmt.Excerpt(resp.Tools[0].Input, 40))
		}
		c.Status = Warn
		c.Detail = fmt.Sprintf("in the template %s, but it chose %s instead of DONE \"OK\"%s", after, got, first)
		c.Fix = "the model follows instructions loosely: " + slower
	default:
		parsed = true
		c.Detail = "answered in the template (DONE \"OK\") " + after + first
		if len(resp.Warnings) > 0 {
			c.Detail += "; accepted leniently: " + strings.TrimSuffix(resp.Warnings[0], ".")
		}
	}
	d.set(c)
}

// protocolProblem is why a protocol probe's reply was no use, in a few
// words.
func (d *doctor) protocolProblem(x exchange, plan shape.Request) string {
	switch {
	case x.reply.FinishReason == "length":
		return "it ran to its token limit" + d.maxTokensText()
	case !x.ok():
		return "no reply"
	}
	_, _, err := d.parseProtocol(x, plan)
	if err == nil {
		return "none"
	}
	return textfmt.Excerpt(textfmt.FirstLine(err.Error()), 80)
}

// tokens is the reply's completion tokens: the server's count, or an
// estimate at 4 bytes per token.
func (x exchange) tokens() (n int, estimated bool) {
	if u := x.reply.Usage; u != nil && u.CompletionTokens > 0 {
		return u.CompletionTokens, false
	}
	b := len(x.reply.Content) + len(x.reply.Reasoning)
	if b == 0 {
		b = x.contentBytes + x.reasoningBytes
	}
	return (b + 3) / 4, true
}

func saysOK(input string) bool {
	s := strings.Trim(strings.TrimSpace(input), "\"'`.!")
	return strings.EqualFold(s, "OK")
}

// errText is a failed request in one line, without the URL the report
// already names: "request rejected (HTTP 500): Jinja Exception: ...".
func errText(e *llm.Error) string {
	s := e.Kind.String()
	if e.Status != 0 {
		s += fmt.Sprintf(" (HTTP %d)", e.Status)
	}
	if e.Message != "" {
		s += ": " + e.Message
	}
	return textfmt.Excerpt(s, 300)
}

// duration shows a probe's time the way the report does: milliseconds
// under a second, else seconds with one decimal.
func duration(d time.Duration) string {
	if d < time.Second {
		return fmt.Sprintf("%d ms", d.Milliseconds())
	}
	return fmt.Sprintf("%.1f s", d.Seconds())
}
