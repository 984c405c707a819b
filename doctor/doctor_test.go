package doctor_test

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/devagent/dev/doctor"
	"github.com/devagent/dev/llm"
	"github.com/devagent/dev/llm/llmtest"
	"github.com/devagent/dev/shape"
	"github.com/devagent/dev/tools"
	"github.com/devagent/dev/ui"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

const (
	model      = "qwen3-coder"
	configFile = "/home/user/.dev-agent/config.json"
)

var (
	templateOK = llmtest.Reply("The user wants the template with DONE.", "DONE", "OK")
	thinking   = "The user wants the template. I answer with DONE and OK."
)

// isPing tells the one-token probes (streaming, roles) from the protocol
// probe.
func isPing(req llmtest.Request) bool {
	n, _ := req.Raw["max_tokens"].(float64)
	return n == 1
}

func hasSystem(req llmtest.Request) bool {
	return len(req.Messages) > 0 && req.Messages[0].Role == llm.RoleSystem
}

// answer is how a healthy model answers the probes.
func answer(reasoning string) func(llmtest.Request) (llmtest.Response, bool) {
	return func(req llmtest.Request) (llmtest.Response, bool) {
		if isPing(req) {
			return llmtest.Response{Content: "OK", FinishReason: "length", Usage: &llm.Usage{PromptTokens: 12, CompletionTokens: 1, TotalTokens: 13}}, true
		}
		return llmtest.Response{Reasoning: reasoning, Content: templateOK, Usage: &llm.Usage{PromptTokens: 201, CompletionTokens: 31, TotalTokens: 232}}, true
	}
}

// scenario is one golden report: a server, and the configuration checked.
type scenario struct {
	name  string
	setup func(t *testing.T) doctor.Config
}

// server starts a mock serving models, impersonating kind (unless "").
func server(t *testing.T, kind llmtest.Kind, window int, models ...string) *llmtest.Server {
	t.Helper()
	s := llmtest.New(models...)
	t.Cleanup(s.Close)
	if kind != "" {
		s.Impersonate(kind, window)
	}
	return s
}

// nonce is the string the shape probes allow alone, fixed for the golden
// reports.
const nonce = "zq-Nonce4Test"

// sends is what a run of the default settings sends model.
func sends() shape.Settings {
	return shape.Settings{Params: llm.Params{Model: model}, Constrain: shape.Auto, Window: 131072}
}

func config(s *llmtest.Server) doctor.Config {
	return doctor.Config{APIURL: s.BaseURL(), Sends: sends(), Tools: tools.Shaped(tools.Worker().Docs()), Nonce: nonce,
		File: configFile, FileFound: true, Safety: safety, Checkpoints: project}
}

var scenarios = []scenario{
	// Each server kind, configured as a user would run it.
	{"llamacpp", func(t *testing.T) doctor.Config {
		s := server(t, llmtest.LlamaCpp, 8192, model)
		s.Respond(answer(thinking))
		return config(s)
	}},
	{"vllm", func(t *testing.T) doctor.Config {
		s := server(t, llmtest.VLLM, 32768, model)
		s.Respond(answer(thinking))
		return config(s)
	}},
	{"ollama", func(t *testing.T) doctor.Config {
		s := server(t, llmtest.Ollama, 4096, model, "llama3.2")
		s.Respond(answer(""))
		return config(s)
	}},
	{"lmstudio", func(t *testing.T) doctor.Config {
		s := server(t, llmtest.LMStudio, 16384, model, "openai/gpt-oss-20b")
		s.Respond(func(req llmtest.Request) (llmtest.Response, bool) {
			if isPing(req) {
				return llmtest.Response{Content: "OK", Usage: &llm.Usage{}}, true // LM Studio's all-zero usage
			}
			return llmtest.Response{Content: "<think>\n" + thinking + "\n</think>\n\n" + templateOK, Usage: &llm.Usage{}}, true
		})
		return config(s)
	}},
	{"generic", func(t *testing.T) doctor.Config {
		s := server(t, llmtest.Generic, 0, model, "gpt-4.1-mini")
		s.RejectStreamOptions()
		s.Respond(answer(""))
		return config(s)
	}},

	// What goes wrong.
	{"dead", func(t *testing.T) doctor.Config {
		s := llmtest.New(model)
		s.Close()
		return config(s)
	}},
	{"no-config-file", func(t *testing.T) doctor.Config {
		s := server(t, llmtest.VLLM, 131072, model)
		s.Respond(answer(""))
		c := config(s)
		c.FileFound = false
		return c
	}},
	{"bad-config", func(t *testing.T) doctor.Config {
		// An unusable file leaves no settings to name.
		return doctor.Config{File: configFile, FileFound: true,
			Err: errors.New(configFile + `:3:15: "maxLoops" must be an integer, got string "many"`)}
	}},
	{"unknown-model", func(t *testing.T) doctor.Config {
		s := server(t, llmtest.Ollama, 8192, "qwen3:8b", "qwen2.5-coder:7b", "llama3.2")
		s.Respond(answer(""))
		return config(s)
	}},
	{"no-v1", func(t *testing.T) doctor.Config {
		s := server(t, llmtest.Generic, 0, model)
		c := config(s)
		c.APIURL = s.URL
		return c
	}},
	{"unauthorized", func(t *testing.T) doctor.Config {
		s := server(t, "", 0, model)
		s.Route("GET /v1/models", http.StatusUnauthorized, `{"error":{"message":"Incorrect API key provided: sk-wrong.","type":"invalid_request_error","code":"invalid_api_key"}}`)
		return config(s)
	}},
	{"strict-template", func(t *testing.T) doctor.Config {
		// A Mistral-style template that takes no system message, under
		// llama.cpp --jinja: llama.cpp reports the template error as a 500.
		s := server(t, llmtest.LlamaCpp, 32768, model)
		s.Respond(func(req llmtest.Request) (llmtest.Response, bool) {
			if hasSystem(req) {
				return llmtest.Response{Status: http.StatusInternalServerError,
					Body: `{"error":{"code":500,"message":"Jinja Exception: Conversation roles must alternate user/assistant/user/assistant/...","type":"server_error"}}`}, true
			}
			return answer("")(req)
		})
		return config(s)
	}},
	{"reasoning-exhausts-max-tokens", func(t *testing.T) doctor.Config {
		s := server(t, llmtest.VLLM, 40960, model)
		s.Respond(func(req llmtest.Request) (llmtest.Response, bool) {
			if isPing(req) {
				return answer("")(req)
			}
			return llmtest.Response{Reasoning: "Okay, the user wants a template. Let me think about which tool to choose and why", FinishReason: "length",
				Usage: &llm.Usage{PromptTokens: 201, CompletionTokens: 64, TotalTokens: 265}}, true
		})
		c := config(s)
		c.Sends.Params.MaxTokens = ptr(64)
		return c
	}},
	{"unparseable", func(t *testing.T) doctor.Config {
		s := server(t, llmtest.Generic, 65536, model)
		s.Respond(func(req llmtest.Request) (llmtest.Response, bool) {
			if isPing(req) {
				return answer("")(req)
			}
			return llmtest.Response{Content: "Sure! Here is the template you asked for: DONE, OK.", Usage: &llm.Usage{PromptTokens: 201, CompletionTokens: 14, TotalTokens: 215}}, true
		})
		return config(s)
	}},
	{"wrong-tool", func(t *testing.T) doctor.Config {
		s := server(t, llmtest.VLLM, 65536, model)
		s.Respond(func(req llmtest.Request) (llmtest.Response, bool) {
			if isPing(req) {
				return answer("")(req)
			}
			return llmtest.Response{Content: "## Thoughts\nLet me look around first.\n\n## Tool Choice\nDONE\n\n## Tool Input\nI have nothing to do yet, so I will stop here.",
				Usage: &llm.Usage{PromptTokens: 201, CompletionTokens: 30, TotalTokens: 231}}, true
		})
		return config(s)
	}},
	// The replies the server shapes (SPEC §18).
	{"unconstrained", func(t *testing.T) doctor.Config {
		// constrain off on llama.cpp, and a model that answers outside
		// the template: the fix starts with constrain.
		s := server(t, llmtest.LlamaCpp, 32768, model)
		s.Respond(func(req llmtest.Request) (llmtest.Response, bool) {
			switch {
			case isPing(req):
				return answer("")(req)
			case req.Grammar != "" && len(req.Applied) == 0:
				return llmtest.Response{Content: "# Agent Response\n\n## Tho", FinishReason: "length"}, true
			}
			return llmtest.Response{Content: "Sure! Here is the template you asked for: DONE, OK.", Usage: &llm.Usage{PromptTokens: 201, CompletionTokens: 14, TotalTokens: 215}}, true
		})
		c := config(s)
		c.Sends.Constrain = shape.Off
		return c
	}},
	{"grammar-rejected", func(t *testing.T) doctor.Config {
		// A server that refuses the grammar: the run would warn and go
		// on without it; the protocol probe goes without it too.
		s := server(t, llmtest.LlamaCpp, 32768, model)
		s.RejectGrammar()
		s.Respond(answer(""))
		return config(s)
	}},
	{"sglang", func(t *testing.T) doctor.Config {
		s := server(t, llmtest.SGLang, 40960, model)
		s.Respond(answer(""))
		return config(s)
	}},
	{"grammar-ignored", func(t *testing.T) doctor.Config {
		// constrain on, and a server that takes the grammar and answers
		// freely (vLLM after 0.12 with guided_grammar does): found out.
		s := server(t, llmtest.Generic, 0, model)
		s.Respond(answer(""))
		c := config(s)
		c.Sends.Constrain = shape.On
		return c
	}},
	{"ollama-miss", func(t *testing.T) doctor.Config {
		// A model that misses the template unshaped: a run's retry goes in
		// the JSON form, which Ollama applies.
		s := server(t, llmtest.Ollama, 32768, model)
		s.Respond(func(req llmtest.Request) (llmtest.Response, bool) {
			if isPing(req) || req.Schema != "" {
				return answer("")(req)
			}
			return llmtest.Response{Content: "Sure! DONE, OK.", Usage: &llm.Usage{PromptTokens: 201, CompletionTokens: 6, TotalTokens: 207}}, true
		})
		return config(s)
	}},
	{"run-tool", func(t *testing.T) doctor.Config {
		// In the template, with a tool a run offers that the probe did
		// not ask for: a poor choice, not "not in the template".
		s := server(t, llmtest.Ollama, 32768, model)
		s.Respond(func(req llmtest.Request) (llmtest.Response, bool) {
			if isPing(req) {
				return answer("")(req)
			}
			return llmtest.Response{Content: llmtest.Reply("I will write the file.", "WRITE_FILE", "hello.txt\n```\nOK\n```"),
				Usage: &llm.Usage{PromptTokens: 201, CompletionTokens: 25, TotalTokens: 226}}, true
		})
		return config(s)
	}},
	{"cut-at-default-cap", func(t *testing.T) doctor.Config {
		// maxTokens unset: the probe is capped at a quarter of the window,
		// and a reply that runs to it says so, not "slow".
		s := server(t, llmtest.VLLM, 8192, model)
		s.Respond(func(req llmtest.Request) (llmtest.Response, bool) {
			if isPing(req) || req.MaxTokens != 2048 {
				return answer("")(req)
			}
			return llmtest.Response{Content: "# Agent Response\n\n## Thoughts\n" + strings.Repeat("I think. ", 300), FinishReason: "length",
				Usage: &llm.Usage{PromptTokens: 201, CompletionTokens: 2048, TotalTokens: 2249}}, true
		})
		return config(s)
	}},
	{"still-reasoning", func(t *testing.T) doctor.Config {
		s := server(t, llmtest.LlamaCpp, 65536, model)
		s.Respond(func(req llmtest.Request) (llmtest.Response, bool) {
			if isPing(req) {
				return answer("")(req)
			}
			return llmtest.Response{Reasoning: strings.Repeat("Let me consider this carefully. ", 8), Hang: true}, true
		})
		c := config(s)
		c.Timeouts.Protocol = 300 * time.Millisecond
		c.Timeouts.Roles = 300 * time.Millisecond // the grammar probe's too
		return c
	}},
}

func ptr[T any](v T) *T { return &v }

// timings are the only part of a report that changes from run to run.
var timings = regexp.MustCompile(`\b\d+(\.\d+)? (ms|s)\b`)

func render(t *testing.T, r doctor.Report, serverURL string) string {
	t.Helper()
	var buf bytes.Buffer
	if err := ui.Doctor(&ui.Streams{Out: &buf}, r); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if serverURL != "" {
		out = strings.ReplaceAll(out, serverURL, "http://127.0.0.1:PORT")
	}
	return timings.ReplaceAllString(out, "<time>")
}

func TestGolden(t *testing.T) {
	t.Parallel()
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			cfg := sc.setup(t)
			r := doctor.Run(context.Background(), cfg)
			got := render(t, r, strings.TrimSuffix(strings.TrimSuffix(cfg.APIURL, "/v1"), "/"))
			golden := filepath.Join("testdata", sc.name+".golden")
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./doctor -update to create it)", err)
			}
			if got != string(want) {
				t.Errorf("report differs from %s (go test ./doctor -update rewrites it):\n--- got\n%s--- want\n%s", golden, got, want)
			}
			if r.OK == r.Failed() {
				t.Errorf("OK = %v with %d failed checks", r.OK, r.Count(doctor.Fail))
			}
		})
	}
}

// project is a working directory of 1,234 files, as Linux sees it.
var project = doctor.Checkpoints{On: true, Dir: "/home/user/project", Files: 1234, Dirs: 56, Bytes: 3 << 20, Took: 12 * time.Millisecond,
	MaxBytes: 2 << 30, WatchLimit: 65536}

// safety is what a default configuration on Linux reports.
var safety = doctor.Safety{Approval: "auto", Sandbox: "off", SandboxFiles: true, SandboxWhy: "Landlock ABI 7: files, network, signals", Redact: true}
