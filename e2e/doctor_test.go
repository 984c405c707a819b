package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/devagent/dev/llm"
	"github.com/devagent/dev/llm/llmtest"
)

// probeAnswers answers dev doctor's probes as a healthy model does: one
// token to the one-token requests, the template with DONE to the protocol
// probe.
func probeAnswers(reasoning string) func(llmtest.Request) (llmtest.Response, bool) {
	return func(req llmtest.Request) (llmtest.Response, bool) {
		if n, _ := req.Raw["max_tokens"].(float64); n == 1 {
			return llmtest.Response{Content: "OK", FinishReason: "length", Usage: &llm.Usage{PromptTokens: 12, CompletionTokens: 1, TotalTokens: 13}}, true
		}
		return llmtest.Response{Reasoning: reasoning, Content: llmtest.Reply("Answering with the template.", "DONE", "OK"),
			Usage: &llm.Usage{PromptTokens: 201, CompletionTokens: 24, TotalTokens: 225}}, true
	}
}

// homeFiles lists what is in the config home, recursively.
func (w *world) homeFiles() []string {
	w.t.Helper()
	var files []string
	filepath.WalkDir(w.home, func(p string, d os.DirEntry, err error) error {
		if err == nil && p != w.home {
			rel, _ := filepath.Rel(w.home, p)
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	return files
}

func TestDoctorLlamaCpp(t *testing.T) {
	w := newWorld(t, nil)
	w.srv.Impersonate(llmtest.LlamaCpp, 8192)
	w.srv.Respond(probeAnswers("The user wants DONE."))
	config := w.readHome("config.json")
	r := w.run("doctor")
	r.expect(t, 0)
	for _, want := range []string{
		"dev doctor: " + w.srv.BaseURL() + ", model mock-model\n",
		"  ok    reachable  GET /v1/models answered in ",
		"  ok    server     llama.cpp b7120-3f9a0e1c2 (GET /props)\n",
		"  ok    model      mock-model is served (2 models listed)\n",
		"  warn  context    8,192 tokens per request (GET /props default_generation_settings.n_ctx): too small for agent work",
		"                   fix: start llama-server with -c 65536 -np 1 (-c is shared by the -np slots)\n",
		"; usage reported; stream_options accepted\n",
		"  ok    reasoning  in the reasoning_content field",
		"  ok    roles      system, user, assistant, user: accepted\n",
		"  ok    grammar    applied in grammar: the reply was exactly the one string the probe allowed; runs send it (constrain auto)\n",
		"  ok    json       applied in response_format: the reply was exactly the one string the probe allowed; runs send it if the server ignores the grammar (constrain auto)\n",
		"  ok    protocol   answered in the template (DONE \"OK\") after 24 tokens, ",
		"  ok    snapshots  " + w.dir + " holds ",
		"\n12 ok, 1 warning, nothing failed\n",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, r.stdout)
		}
	}
	if r.stderr != "" {
		t.Errorf("stderr = %q", r.stderr)
	}
	if strings.Contains(r.stdout, "\x1b[") {
		t.Errorf("colour codes on a stdout that is not a terminal:\n%q", r.stdout)
	}
	if got := w.homeFiles(); !slices.Equal(got, []string{"config.json"}) || w.readHome("config.json") != config {
		t.Errorf("dev doctor wrote to the config home: %q", got)
	}
}

func TestDoctorOllamaJSON(t *testing.T) {
	w := newWorld(t, nil)
	w.srv.Impersonate(llmtest.Ollama, 4096)
	w.srv.Respond(probeAnswers("Thinking."))
	r := w.run("doctor", "--json")
	r.expect(t, 0)
	var report struct {
		APIURL string `json:"apiUrl"`
		OK     bool   `json:"ok"`
		Checks []struct {
			Name, Status, Detail, Fix string
		} `json:"checks"`
		Facts map[string]any `json:"facts"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &report); err != nil {
		t.Fatalf("stdout is not one JSON object: %v\n%s", err, r.stdout)
	}
	var names []string
	for _, c := range report.Checks {
		names = append(names, c.Name)
	}
	want := []string{"config", "reachable", "server", "model", "context", "streaming", "reasoning", "roles", "grammar", "json", "protocol", "safety", "snapshots"}
	if !report.OK || report.APIURL != w.srv.BaseURL() || !slices.Equal(names, want) {
		t.Errorf("report ok %v, apiUrl %s, checks %q", report.OK, report.APIURL, names)
	}
	f := report.Facts
	if f["server"] != "Ollama" || f["version"] != "0.17.4" || f["contextWindow"] != 4096.0 || f["reasoningField"] != "reasoning" ||
		f["usage"] != true || f["protocolParsed"] != true || f["protocolTokens"] != 24.0 || f["grammar"] != "ignored" || f["jsonForm"] != "applied" {
		t.Errorf("facts = %v", f)
	}
	if c := report.Checks[4]; c.Status != "warn" || !strings.Contains(c.Fix, "OLLAMA_CONTEXT_LENGTH=65536") {
		t.Errorf("context check = %+v", c)
	}
}

func TestDoctorDeadServer(t *testing.T) {
	w := newWorld(t, nil)
	w.srv.Close()
	r := w.run("doctor")
	r.expect(t, 1)
	for _, want := range []string{
		"  fail  reachable  cannot connect to " + w.srv.BaseURL() + ": connection refused\n",
		"fix: start the server, or set apiUrl in " + filepath.Join(w.home, "config.json") + " (or DEV_API_URL) to where it listens\n",
		"  skip  protocol   not checked: the server is unreachable\n",
		"3 ok, 0 warnings, 9 not checked, 1 failed\n",
		"  ok    safety     sandbox off",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, r.stdout)
		}
	}
}

// Without config.json, dev doctor checks the defaults and the environment,
// and creates nothing.
func TestDoctorWithoutConfigWritesNothing(t *testing.T) {
	w := newWorld(t, nil)
	if err := os.Remove(filepath.Join(w.home, "config.json")); err != nil {
		t.Fatal(err)
	}
	w.srv.Impersonate(llmtest.VLLM, 65536)
	w.srv.Respond(probeAnswers(""))
	w.extra = append(w.extra, "DEV_API_URL="+w.srv.BaseURL(), "DEV_MODEL=mock-model")
	r := w.run("doctor")
	r.expect(t, 0)
	if want := "  ok    config     no file at " + filepath.Join(w.home, "config.json") + ": using the defaults"; !strings.Contains(r.stdout, want) {
		t.Errorf("stdout lacks %q:\n%s", want, r.stdout)
	}
	if !strings.Contains(r.stdout, "  ok    server     vLLM 0.11.0 (GET /v1/models)\n") {
		t.Errorf("the environment's apiUrl was not used:\n%s", r.stdout)
	}
	if got := w.homeFiles(); len(got) != 0 {
		t.Errorf("dev doctor created %q", got)
	}
}

func TestDoctorUnknownModelFlag(t *testing.T) {
	w := newWorld(t, nil)
	w.srv.Impersonate(llmtest.Ollama, 32768)
	r := w.run("doctor", "--model", "mock-modle")
	r.expect(t, 1)
	if want := `  fail  model      the server has no model "mock-modle"; it serves mock-model:latest, other-model:latest` + "\n"; !strings.Contains(r.stdout, want) {
		t.Errorf("stdout lacks %q:\n%s", want, r.stdout)
	}
	if reqs := w.srv.Requests(); len(reqs) != 1 || reqs[0].Model != "mock-modle" {
		t.Errorf("requests %+v; want the one for the flag's model", reqs)
	}
}

func TestDoctorInvalidConfig(t *testing.T) {
	w := newWorld(t, map[string]any{"maxLoops": "many"})
	before := w.readHome("config.json")
	r := w.run("doctor")
	r.expect(t, 1)
	if !strings.Contains(r.stdout, "  fail  config     ") || !strings.Contains(r.stdout, "maxLoops") ||
		!strings.Contains(r.stdout, "  skip  reachable  not checked: the configuration cannot be used\n") {
		t.Errorf("stdout:\n%s", r.stdout)
	}
	if len(w.srv.Requests()) != 0 || w.readHome("config.json") != before {
		t.Error("dev doctor used the server or changed the file despite an invalid configuration")
	}
}

func TestDoctorUsage(t *testing.T) {
	w := newWorld(t, nil)
	r := w.run("doctor", "extra")
	r.expect(t, 2)
	if !strings.Contains(r.stderr, "dev doctor takes no arguments") {
		t.Errorf("stderr = %q", r.stderr)
	}
	r = w.run("--help")
	if !strings.Contains(r.stdout, "dev doctor [--json]") || !strings.Contains(r.stdout, "check the model server and say what to change") {
		t.Errorf("--help does not list doctor:\n%s", r.stdout)
	}
}

// readHome reads a file of the config home.
func (w *world) readHome(rel string) string {
	w.t.Helper()
	data, err := os.ReadFile(filepath.Join(w.home, rel))
	if err != nil {
		w.t.Fatalf("reading %s: %v", rel, err)
	}
	return string(data)
}

// dev doctor reports the safety layers in force, and offers a profile with
// what it measured.
func TestDoctorSafetyAndProfile(t *testing.T) {
	w := newWorld(t, map[string]any{"approval": "edits"})
	w.srv.Impersonate(llmtest.LlamaCpp, 32768)
	w.srv.Respond(func(req llmtest.Request) (llmtest.Response, bool) {
		return llmtest.Response{Reasoning: "Hmm.", Content: llmtest.Reply("ok", "DONE", "OK")}, true
	})
	w.extra = []string{"MY_API_TOKEN=abcdefgh12345678"}
	r := w.run("doctor")
	r.expect(t, 0)
	for _, want := range []string{"  ok    safety     sandbox off", "approval edits", "secrets redacted (token shapes and 1 environment variables: MY_API_TOKEN)",
		`"llama-cpp-mock-model": {`, `"maxContextTokens": 32768`, `"thinking": "off"`, "then: dev --profile llama-cpp-mock-model"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("dev doctor lacks %q:\n%s", want, r.stdout)
		}
	}
	if strings.Contains(r.stdout, "abcdefgh12345678") {
		t.Error("dev doctor printed a secret's value")
	}
	if r := w.run("doctor", "--json"); !strings.Contains(r.stdout, `"profile": {`) || !strings.Contains(r.stdout, `"name": "llama-cpp-mock-model"`) {
		t.Errorf("dev doctor --json lacks the profile:\n%s", r.stdout)
	}
	w.writeConfig(map[string]any{"apiUrl": w.srv.BaseURL(), "model": "mock-model", "sandbox": "workspace"})
	if r := w.run("doctor"); !strings.Contains(r.stdout, "safety     sandbox workspace (Landlock ABI") {
		t.Errorf("sandbox workspace:\n%s", r.stdout)
	}
}

// A protocol probe that gets no parseable reply is a failure (exit 1), not
// "nothing failed": its fix names what would help, in order (SPEC §18).
// The shape probes go whatever constrain says; the protocol probe goes as
// a run's request would, the run's custom tools among those it reads.
func TestDoctorNoParseableReplyFails(t *testing.T) {
	w := newWorld(t, map[string]any{"constrain": "off",
		"tools": []map[string]any{{"name": "RUN_TESTS", "description": "Runs the tests.", "command": "true"}}})
	w.srv.Impersonate(llmtest.LlamaCpp, 32768)
	w.srv.Respond(func(req llmtest.Request) (llmtest.Response, bool) {
		if n, _ := req.Raw["max_tokens"].(float64); n == 1 {
			return llmtest.Response{Content: "OK", FinishReason: "length"}, true
		}
		return llmtest.Response{Content: "Sure! def main(): print('OK')"}, true
	})
	r := w.run("doctor")
	r.expect(t, 1)
	for _, want := range []string{
		"  ok    grammar    applied in grammar: the reply was exactly the one string the probe allowed; runs send no shape (constrain off)",
		"  ok    json       applied in response_format: the reply was exactly the one string the probe allowed; runs send no shape (constrain off)",
		"  fail  protocol   not in the template after ",
		"fix: in order: 1) set constrain to auto (or on) in " + filepath.Join(w.home, "config.json") + ": the server shapes the replies to the template; 2) use a stronger instruction-following model",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, r.stdout)
		}
	}
	protocol := w.srv.Requests()[len(w.srv.Requests())-1]
	if protocol.Grammar != "" || protocol.Schema != "" || protocol.MaxTokens != 8192 {
		t.Errorf("protocol probe: grammar %q, max_tokens %d; want none with constrain off, and a quarter of the window", protocol.Grammar, protocol.MaxTokens)
	}

	// A reply in the template with a tool a run offers (a custom one
	// here) is a poor choice: a warning, not "not in the template".
	w.srv.Respond(func(req llmtest.Request) (llmtest.Response, bool) {
		if n, _ := req.Raw["max_tokens"].(float64); n == 1 {
			return llmtest.Response{Content: "OK", FinishReason: "length"}, true
		}
		return llmtest.Response{Content: llmtest.Reply("Test first.", "RUN_TESTS", "")}, true
	})
	r = w.run("doctor")
	r.expect(t, 0)
	if !strings.Contains(r.stdout, "  warn  protocol   in the template after ") || !strings.Contains(r.stdout, `but it chose RUN_TESTS "" instead of DONE "OK"`) {
		t.Errorf("a run's tool in the template:\n%s", r.stdout)
	}

	// constrain auto (the default) on llama.cpp: the protocol probe is
	// shaped, and the shaped reply parses.
	w.writeConfig(map[string]any{"apiUrl": w.srv.BaseURL(), "model": "mock-model"})
	w.srv.Respond(probeAnswers(""))
	r = w.run("doctor", "--json")
	r.expect(t, 0)
	var report struct{ Facts map[string]any }
	if err := json.Unmarshal([]byte(r.stdout), &report); err != nil || report.Facts["protocolConstrained"] != true || report.Facts["grammar"] != "applied" ||
		report.Facts["jsonForm"] != "applied" || report.Facts["protocolShape"] != "grammar" {
		t.Errorf("facts %v (%v)", report.Facts, err)
	}
}

// dev doctor tells applied from ignored for each form, on each server the
// mock impersonates: the grammar applied by llama.cpp, vLLM and SGLang,
// each in its field, ignored by Ollama and LM Studio, which apply the JSON
// form (SPEC §18).
func TestDoctorShapesByServer(t *testing.T) {
	for _, tc := range []struct {
		kind          llmtest.Kind
		model         string
		grammar, json string
	}{
		{llmtest.LlamaCpp, "mock-model", "  ok    grammar    applied in grammar", "  ok    json       applied in response_format"},
		{llmtest.VLLM, "mock-model", "  ok    grammar    applied in structured_outputs.grammar", "  ok    json       applied in response_format"},
		{llmtest.SGLang, "mock-model", "  ok    grammar    applied in ebnf", "  ok    json       applied in response_format"},
		{llmtest.Ollama, "mock-model:latest", "  warn  grammar    ignored in grammar: the server took the request and answered freely", "  ok    json       applied in response_format"},
		{llmtest.LMStudio, "mock-model", "  warn  grammar    ignored in grammar: the server took the request and answered freely", "  ok    json       applied in response_format"},
	} {
		t.Run(string(tc.kind), func(t *testing.T) {
			w := newWorld(t, nil)
			w.srv.Impersonate(tc.kind, 32768)
			w.writeConfig(map[string]any{"apiUrl": w.srv.BaseURL(), "model": tc.model})
			w.srv.Respond(probeAnswers(""))
			r := w.run("doctor")
			r.expect(t, 0)
			for _, want := range []string{tc.grammar, tc.json, "  ok    protocol   answered in the template"} {
				if !strings.Contains(r.stdout, want) {
					t.Errorf("dev doctor lacks %q:\n%s", want, r.stdout)
				}
			}
			if testing.Verbose() {
				for _, line := range strings.Split(r.stdout, "\n") {
					if strings.Contains(line, " grammar ") || strings.Contains(line, " json ") || strings.Contains(line, " protocol ") || strings.Contains(line, "fix:") {
						t.Log(line)
					}
				}
			}
		})
	}
}
