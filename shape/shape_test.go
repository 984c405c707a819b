package shape

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/devagent/dev/llm"
	"github.com/devagent/dev/parser"
)

var tools = []parser.GrammarTool{{Name: "READ_FILE", Input: parser.InputFileRange}, {Name: "DONE", Input: parser.InputText}}

func server(kind llm.ServerKind, version string) llm.ServerInfo {
	return llm.ServerInfo{Kind: kind, Version: version, Window: 8192}
}

// Each server's form and field by the constrain setting (SPEC §18).
func TestFormAndFieldByServer(t *testing.T) {
	t.Parallel()
	cases := []struct {
		constrain Constrain
		server    llm.ServerInfo
		form      llm.Shape
		field     string
	}{
		{Auto, server(llm.ServerLlamaCpp, "b11434"), llm.ShapeGrammar, "grammar"},
		{Auto, server(llm.ServerVLLM, "0.11.0"), llm.ShapeGrammar, "structured_outputs.grammar"},
		{Auto, server(llm.ServerVLLM, "0.10.1"), llm.ShapeGrammar, "guided_grammar"},
		{Auto, server(llm.ServerSGLang, "0.5.4"), llm.ShapeGrammar, "ebnf"},
		{Auto, server(llm.ServerOllama, "0.17.4"), llm.ShapeNone, ""}, // until a reply misses the template
		{Auto, server(llm.ServerLMStudio, ""), llm.ShapeNone, ""},
		{Auto, server(llm.ServerUnknown, ""), llm.ShapeNone, ""},
		{Auto, server(llm.ServerOpenRouter, ""), llm.ShapeNone, ""},
		{On, server(llm.ServerLlamaCpp, ""), llm.ShapeGrammar, "grammar"},
		{On, server(llm.ServerSGLang, ""), llm.ShapeGrammar, "ebnf"},
		{On, server(llm.ServerOllama, "0.17.4"), llm.ShapeJSON, "response_format"},
		{On, server(llm.ServerLMStudio, ""), llm.ShapeJSON, "response_format"},
		{On, server(llm.ServerUnknown, ""), llm.ShapeGrammar, "grammar"},
		{JSON, server(llm.ServerLlamaCpp, ""), llm.ShapeJSON, "response_format"},
		{JSON, server(llm.ServerUnknown, ""), llm.ShapeJSON, "response_format"},
		{Off, server(llm.ServerLlamaCpp, ""), llm.ShapeNone, ""},
		{Off, server(llm.ServerOllama, ""), llm.ShapeNone, ""},
	}
	for _, c := range cases {
		r := Plan(Settings{Constrain: c.constrain, Window: 131072}, tools, Known{Server: c.server})
		if r.Form != c.form || r.Field != c.field {
			t.Errorf("constrain %s on %s %s: %q in %q, want %q in %q", c.constrain, c.server.Kind, c.server.Version, r.Form, r.Field, c.form, c.field)
		}
		if got := llm.ShapeOf(r.Params); got != c.form {
			t.Errorf("constrain %s on %s: the parameters carry %q, want %q", c.constrain, c.server.Kind, got, c.form)
		}
	}
}

// With auto on Ollama and LM Studio the JSON form comes with the first
// reply that missed the template; a form the server ignored is sent no
// more (the grammar gives way to the JSON form where the server takes it);
// a rejected shape ends all.
func TestFormAsTheRunLearns(t *testing.T) {
	t.Parallel()
	ollama, llama, generic := server(llm.ServerOllama, "0.17.4"), server(llm.ServerLlamaCpp, ""), server(llm.ServerUnknown, "")
	cases := []struct {
		name      string
		constrain Constrain
		known     Known
		want      llm.Shape
	}{
		{"auto on Ollama after a miss", Auto, Known{Server: ollama, Missed: true}, llm.ShapeJSON},
		{"auto on LM Studio after a miss", Auto, Known{Server: server(llm.ServerLMStudio, ""), Missed: true}, llm.ShapeJSON},
		{"auto on a generic server after a miss", Auto, Known{Server: generic, Missed: true}, llm.ShapeNone},
		{"auto on llama.cpp, the grammar ignored", Auto, Known{Server: llama, GrammarIgnored: true}, llm.ShapeJSON},
		{"auto on llama.cpp, both ignored", Auto, Known{Server: llama, GrammarIgnored: true, JSONIgnored: true}, llm.ShapeNone},
		{"on on a generic server, the grammar ignored", On, Known{Server: generic, GrammarIgnored: true}, llm.ShapeNone},
		{"auto on Ollama, the JSON form ignored", Auto, Known{Server: ollama, Missed: true, JSONIgnored: true}, llm.ShapeNone},
		{"json, ignored", JSON, Known{Server: llama, JSONIgnored: true}, llm.ShapeNone},
		{"json, the grammar ignored", JSON, Known{Server: llama, GrammarIgnored: true}, llm.ShapeJSON},
		{"rejected", On, Known{Server: llama, Rejected: true}, llm.ShapeNone},
	}
	for _, c := range cases {
		if got := Form(c.constrain, c.known); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

// The JSON form carries its schema in response_format and tells the model
// of it; the grammar carries no note. The same values give the same bytes.
func TestPlanJSONForm(t *testing.T) {
	t.Parallel()
	temp := 0.2
	s := Settings{Params: llm.Params{Model: "m", Temperature: &temp, Extra: map[string]any{"top_k": 1}}, Constrain: JSON, Window: 32768}
	r := Plan(s, tools, Known{Server: server(llm.ServerOllama, "0.17.4")})
	if r.Params.Schema == nil || r.Params.Schema.Name != SchemaName || string(r.Params.Schema.Schema) != string(r.Schema) || r.Params.Grammar != "" {
		t.Fatalf("params %+v", r.Params)
	}
	var schema map[string]any
	if err := json.Unmarshal(r.Schema, &schema); err != nil || schema["type"] != "object" {
		t.Errorf("schema %s: %v", r.Schema, err)
	}
	if !strings.Contains(r.Note, `- READ_FILE: "path", "lines" (optional)`) || !strings.Contains(r.Note, `- DONE: "summary"`) {
		t.Errorf("note:\n%s", r.Note)
	}
	if r.Params.Model != "m" || r.Params.Temperature != &temp || r.Params.Extra["top_k"] != 1 {
		t.Errorf("the settings' parameters were lost: %+v", r.Params)
	}
	again := Plan(s, tools, Known{Server: server(llm.ServerOllama, "0.17.4")})
	if string(again.Schema) != string(r.Schema) || again.Note != r.Note {
		t.Error("two plans of the same values differ")
	}
	g := Plan(Settings{Constrain: Auto}, tools, Known{Server: server(llm.ServerLlamaCpp, "")})
	if g.Note != "" || g.Schema != nil || !strings.HasPrefix(g.Grammar, "root ::= ") || g.Params.Grammar != g.Grammar {
		t.Errorf("grammar plan %+v", g)
	}
}

// The grammar offers a <think> block only to a model known to reason:
// asked to think, or with thinking auto, one whose chat template reasons
// or whose earlier reply of the run did (SPEC §18).
func TestThinkBlockOnlyForAModelThatReasons(t *testing.T) {
	t.Parallel()
	plain, reasons := server(llm.ServerLlamaCpp, ""), server(llm.ServerLlamaCpp, "")
	reasons.Reasoning = true
	cases := []struct {
		thinking llm.Thinking
		known    Known
		want     bool
	}{
		{llm.ThinkingAuto, Known{Server: plain}, false},
		{llm.ThinkingAuto, Known{Server: reasons}, true},
		{llm.ThinkingAuto, Known{Server: plain, Reasoning: true}, true},
		{llm.ThinkingLow, Known{Server: plain}, true},
		{llm.ThinkingHigh, Known{Server: plain}, true},
		{llm.ThinkingOff, Known{Server: reasons, Reasoning: true}, false},
	}
	for _, c := range cases {
		r := Plan(Settings{Params: llm.Params{Thinking: c.thinking}, Constrain: Auto}, tools, c.known)
		if r.Think != c.want || strings.Contains(r.Grammar, `"<think>"`) != c.want {
			t.Errorf("thinking %q, template reasons %v, seen %v: think %v, want %v", c.thinking, c.known.Server.Reasoning, c.known.Reasoning, r.Think, c.want)
		}
	}
}

// The reply cap: maxTokens, else a quarter of the smallest window known,
// doubled for a model that reasons (asked or seen).
func TestReplyCap(t *testing.T) {
	t.Parallel()
	n := 300
	cases := []struct {
		name string
		s    Settings
		k    Known
		want int
	}{
		{"maxTokens", Settings{Params: llm.Params{MaxTokens: &n}, Window: 131072}, Known{}, 300},
		{"the server's window", Settings{Window: 131072}, Known{Server: llm.ServerInfo{Window: 8192}}, 2048},
		{"the settings' window", Settings{Window: 12000}, Known{Server: llm.ServerInfo{Window: 32768}}, 3000},
		{"a window learned from an overflow", Settings{Window: 131072}, Known{Server: llm.ServerInfo{Window: 32768}, Window: 4096}, 1024},
		{"seen to reason", Settings{Window: 8192}, Known{Reasoning: true}, 4096},
		{"asked to reason", Settings{Params: llm.Params{Thinking: llm.ThinkingMedium}, Window: 8192}, Known{}, 4096},
		{"unknown window", Settings{}, Known{}, 16384},
	}
	for _, c := range cases {
		if got := Plan(c.s, tools, c.k).ReplyCap; got != c.want {
			t.Errorf("%s: reply cap %d, want %d", c.name, got, c.want)
		}
	}
}
