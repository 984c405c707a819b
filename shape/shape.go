// Package shape is what a run sends the model server with each request
// (SPEC §18): the form that shapes the reply (the grammar, the JSON form,
// or none) for the server's kind and version and the constrain setting,
// the body field it goes in, the request parameters, the reply cap, the
// grammar or the schema, and what the model is told of the JSON form. One
// pure function, Plan, computes it: a run's conversations call it before
// every request, and dev doctor calls it to say what a run will send.
//
// It stands on floor 1, just above llm and parser, whose values it
// combines, so that doctor (floor 2), which may import neither step nor
// app, reads its prediction from the same code a run uses.
package shape

import (
	"github.com/devagent/dev/llm"
	"github.com/devagent/dev/parser"
	"github.com/devagent/dev/prompts"
)

// Constrain is the constrain setting (config key, profile key, flag
// --constrain).
type Constrain string

// The constrain settings.
const (
	// Auto shapes the replies of every server dev recognises, in that
	// server's form; on Ollama and LM Studio from the first reply that
	// missed the template on.
	Auto Constrain = "auto"
	// On shapes every request: in the server's form where it has one,
	// else with the grammar in llama.cpp's field.
	On Constrain = "on"
	// JSON sends the JSON form to any server.
	JSON Constrain = "json"
	// Off never shapes.
	Off Constrain = "off"
)

// SchemaName names the JSON form's schema in response_format.
const SchemaName = "agent_response"

// Settings are what a run's requests are sent with, from the settings.
type Settings struct {
	// Params are the request parameters: model, temperature, maxTokens
	// (nil: the default cap of SPEC §18), thinking, extraBody. Plan adds
	// the shape.
	Params    llm.Params
	Constrain Constrain
	// Window is the context window dev works within as far as the settings
	// say (maxContextTokens).
	Window int
}

// Known is what a run knows, at a request, of the server and the model.
// It is a value: Plan reads it, and the run keeps one, shared by its
// conversations, that grows as the run learns.
type Known struct {
	// Server is what discovery found.
	Server llm.ServerInfo
	// Window, when not 0, is a window the run learned below the
	// settings' and the server's (the server refused a longer prompt).
	Window int
	// Reasoning: a reply of the run showed reasoning (a reasoning field or
	// a <think> block).
	Reasoning bool
	// Missed: a reply of the run could not be parsed. With constrain auto,
	// Ollama and LM Studio get the JSON form from then on.
	Missed bool
	// GrammarIgnored and JSONIgnored: the server took that form and did not
	// apply it (a reply to a request that carried it did not parse as it
	// allows). Rejected: the server refused a shape; none is sent again.
	GrammarIgnored, JSONIgnored, Rejected bool
}

// Request is what a run sends with one request.
type Request struct {
	// Params are the settings' parameters with the shape: Grammar and
	// GrammarField, or Schema. MaxTokens stays the configured maxTokens
	// (nil when unset): the caller sends ReplyCap, or less when the window
	// leaves less room.
	Params llm.Params
	// Form is the shape's form, Field the body field it goes in
	// (llm.Field...; "" with none).
	Form  llm.Shape
	Field string
	// ReplyCap is the max_tokens the reply is sent with: maxTokens, or the
	// default cap of the window (ReplyCap).
	ReplyCap int
	// Think: the grammar lets a <think> block come first.
	Think bool
	// Grammar is the GBNF the request carries, Schema the JSON form's
	// schema; empty for the other forms.
	Grammar string
	Schema  []byte
	// Note is what the model is told of the JSON form while the form is
	// sent, a message of its own after the system prompt (never in it, and
	// before the history, so that the server's prompt cache keeps it); ""
	// with another form.
	Note string
}

// Plan is what a run sends with a request whose replies offer tools, from
// the settings and what the run knows. It is a pure function: the same
// values give the same bytes.
func Plan(s Settings, tools []parser.GrammarTool, k Known) Request {
	window := s.Window
	for _, w := range []int{k.Server.Window, k.Window} {
		if w > 0 && (window <= 0 || w < window) {
			window = w
		}
	}
	asked := thinkingAsked(s.Params.Thinking)
	r := Request{Params: s.Params, Form: Form(s.Constrain, k), ReplyCap: ReplyCap(s.Params.MaxTokens, window, asked || k.Reasoning)}
	r.Params.Grammar, r.Params.GrammarField, r.Params.Schema = "", "", nil
	switch r.Form {
	case llm.ShapeGrammar:
		r.Field = llm.GrammarField(k.Server.Kind, k.Server.Version)
		r.Think = asked || s.Params.Thinking == llm.ThinkingAuto && (k.Server.Reasoning || k.Reasoning)
		r.Grammar = parser.ReplyGrammar(tools, parser.GrammarOptions{Thinking: r.Think, ReplyCap: r.ReplyCap}).GBNF()
		r.Params.Grammar, r.Params.GrammarField = r.Grammar, r.Field
	case llm.ShapeJSON:
		form := parser.ReplyJSON(tools)
		r.Field, r.Schema = llm.FieldResponseFormat, form.Schema()
		r.Params.Schema = &llm.Schema{Name: SchemaName, Schema: r.Schema}
		r.Note = Note(form)
	}
	return r
}

// Form is the form a request is shaped in (SPEC §18): constrain off, or a
// server that refused a shape, none; json, the JSON form; on, the server's
// form (the grammar where it has none); auto, the server's form, which on
// Ollama and LM Studio comes once a reply missed the template. A form the
// server ignored is sent no more: the grammar gives way to the JSON form
// where the server takes it, the JSON form to none.
func Form(c Constrain, k Known) llm.Shape {
	if c == Off || k.Rejected {
		return llm.ShapeNone
	}
	kind := k.Server.Kind
	f := llm.ShapeNone
	switch c {
	case JSON:
		f = llm.ShapeJSON
	case On:
		f = ServerForm(kind)
		if f == llm.ShapeNone {
			f = llm.ShapeGrammar
		}
	default:
		f = ServerForm(kind)
		if f == llm.ShapeJSON && !k.Missed {
			f = llm.ShapeNone
		}
	}
	if f == llm.ShapeGrammar && k.GrammarIgnored {
		f = llm.ShapeNone
		if Recognised(kind) {
			f = llm.ShapeJSON
		}
	}
	if f == llm.ShapeJSON && k.JSONIgnored {
		f = llm.ShapeNone
	}
	return f
}

// serverForm is the form a server of kind applies: the grammar on
// llama.cpp, vLLM and SGLang, the JSON form on Ollama and LM Studio, which
// take no grammar; none for the others.
func ServerForm(kind llm.ServerKind) llm.Shape {
	switch kind {
	case llm.ServerLlamaCpp, llm.ServerVLLM, llm.ServerSGLang:
		return llm.ShapeGrammar
	case llm.ServerOllama, llm.ServerLMStudio:
		return llm.ShapeJSON
	}
	return llm.ShapeNone
}

// Recognised reports whether constrain auto shapes the replies of a server
// of kind: the local servers dev knows, which all take the JSON form too.
func Recognised(kind llm.ServerKind) bool { return ServerForm(kind) != llm.ShapeNone }

// ReplyCap is the max_tokens of a request (SPEC §18): maxTokens when set,
// else the default cap of the window (llm.DefaultMaxTokens), doubled for a
// model that reasons (asked to, or seen to).
func ReplyCap(maxTokens *int, window int, reasons bool) int {
	if maxTokens != nil {
		return *maxTokens
	}
	return llm.DefaultMaxTokens(window, reasons)
}

func thinkingAsked(t llm.Thinking) bool {
	return t == llm.ThinkingLow || t == llm.ThinkingMedium || t == llm.ThinkingHigh
}

// Note is what the model is told of the JSON form of form.
func Note(form *parser.JSONForm) string {
	var tools []prompts.JSONTool
	for _, t := range form.Tools() {
		jt := prompts.JSONTool{Name: t.Name}
		for _, f := range t.Fields {
			jt.Fields = append(jt.Fields, prompts.JSONField{Name: f.Name, Optional: f.Optional})
		}
		tools = append(tools, jt)
	}
	return prompts.JSONForm(tools, parser.MaxToolCalls)
}
