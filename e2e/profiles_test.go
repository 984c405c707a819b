package e2e

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/devagent/dev/llm/llmtest"
)

// profilesWorld has two servers: the file's top level points at w.srv, the
// profile "cloud" at a second one.
func profilesWorld(t *testing.T) (*world, *llmtest.Server) {
	t.Helper()
	cloud := llmtest.New("cloud-model")
	t.Cleanup(cloud.Close)
	w := newWorld(t, nil)
	w.writeConfig(map[string]any{
		"apiUrl": w.srv.BaseURL(), "model": "mock-model", "maxRetriesAutomated": 2, "commandTimeout": 10, "requestTimeout": 20,
		"profiles": map[string]any{
			"cloud": map[string]any{"apiUrl": cloud.BaseURL(), "model": "cloud-model", "thinking": "low", "extraBody": map[string]any{"top_k": 20}},
			"local": map[string]any{"model": "mock-model", "thinking": "off"},
		},
	})
	return w, cloud
}

func TestProfileSelection(t *testing.T) {
	w, cloud := profilesWorld(t)
	cloud.Script(done("From the cloud."))
	r := w.run("--profile", "cloud", "--no-audit", "-p", "hi")
	r.expect(t, 0)
	if r.stdout != "From the cloud.\n" || len(w.srv.Requests()) != 0 {
		t.Fatalf("stdout %q; %d requests went to the top level's server", r.stdout, len(w.srv.Requests()))
	}
	req := cloud.Requests()[0]
	if req.Model != "cloud-model" || req.Raw["top_k"] != 20.0 || req.Raw["reasoning_effort"] != "low" {
		t.Errorf("request model %q, body %v", req.Model, req.Raw)
	}
	if s := w.onlySession(); s.Profile != "cloud" || s.Model != "cloud-model" {
		t.Errorf("session profile %q model %q", s.Profile, s.Model)
	}

	// DEV_PROFILE selects too; --model still wins over the profile.
	w.extra = []string{"DEV_PROFILE=cloud"}
	cloud.Script(done("Again."))
	w.run("--model", "other-cloud", "--no-audit", "-p", "hi").expect(t, 0)
	if reqs := cloud.Requests(); reqs[len(reqs)-1].Model != "other-cloud" {
		t.Errorf("--model did not win over the profile: %q", reqs[len(reqs)-1].Model)
	}
}

func TestUnknownProfileExits2(t *testing.T) {
	w, _ := profilesWorld(t)
	r := w.run("--profile", "gpu", "-p", "hi")
	r.expect(t, 2)
	if !strings.Contains(r.stderr, `--profile: no profile "gpu"; the profiles are: cloud, local`) {
		t.Errorf("stderr:\n%s", r.stderr)
	}
	w.extra = []string{"DEV_PROFILE=gpu"}
	if r := w.run("-p", "hi"); r.code != 2 || !strings.Contains(r.stderr, `DEV_PROFILE: no profile "gpu"`) {
		t.Errorf("DEV_PROFILE: exit %d\n%s", r.code, r.stderr)
	}
}

func TestProfilesCommand(t *testing.T) {
	w, _ := profilesWorld(t)
	w.extra = []string{"DEV_PROFILE=local"}
	r := w.run("profiles")
	r.expect(t, 0)
	lines := strings.Split(strings.TrimRight(r.stdout, "\n"), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "  cloud ") || !strings.HasPrefix(lines[1], "* local ") ||
		!strings.Contains(lines[0], "model cloud-model") || !strings.Contains(lines[0], "thinking low") || !strings.Contains(lines[0], "extraBody top_k") {
		t.Errorf("dev profiles:\n%s", r.stdout)
	}
}

// The thinking knob reaches each kind of server in its own dialect.
func TestThinkingKnobPerServer(t *testing.T) {
	for _, tt := range []struct {
		kind  llmtest.Kind
		field string
		want  string
	}{
		{llmtest.VLLM, "chat_template_kwargs", `{"enable_thinking":false}`},
		{llmtest.LlamaCpp, "chat_template_kwargs", `{"enable_thinking":false}`},
		{llmtest.Ollama, "reasoning_effort", `"none"`},
		{llmtest.LMStudio, "reasoning_effort", `"none"`},
		{llmtest.OpenRouter, "reasoning", `{"effort":"none"}`},
	} {
		t.Run(string(tt.kind), func(t *testing.T) {
			w := newWorld(t, map[string]any{"thinking": "off", "extraBody": map[string]any{"min_p": 0.05}})
			w.srv.Impersonate(tt.kind, 32768)
			w.srv.Script(done("ok"))
			w.run("--no-audit", "-p", "hi").expect(t, 0)
			raw := w.srv.Requests()[0].Raw
			got, _ := json.Marshal(raw[tt.field])
			if string(got) != tt.want || raw["min_p"] != 0.05 {
				t.Errorf("%s = %s (want %s); body %v", tt.field, got, tt.want, raw)
			}
		})
	}
}

func TestExtraBodyOwnedKeyIsAConfigError(t *testing.T) {
	w := newWorld(t, map[string]any{"extraBody": map[string]any{"stream": false}})
	r := w.run("-p", "hi")
	r.expect(t, 2)
	if !strings.Contains(r.stderr, `extraBody`) || !strings.Contains(r.stderr, `may not set "stream"`) {
		t.Errorf("stderr:\n%s", r.stderr)
	}
}

// A reply that is all reasoning is retried asking for less thinking, once.
func TestAllReasoningReplyRetriesWithLessThinking(t *testing.T) {
	w := newWorld(t, map[string]any{"thinking": "high"})
	w.srv.Impersonate(llmtest.Ollama, 32768)
	w.srv.Script(llmtest.Response{Reasoning: "Let me think about this for a very long time...", FinishReason: "length"}, done("Answered."), done("Again."))
	r := w.run("--no-audit", "-p", "hi")
	r.expect(t, 0)
	reqs := w.srv.Requests()
	if len(reqs) != 2 || reqs[0].Raw["reasoning_effort"] != "high" || reqs[1].Raw["reasoning_effort"] != "low" {
		t.Fatalf("efforts: %v", efforts(reqs))
	}
	if !strings.Contains(r.stderr, "asking the model to think less") {
		t.Errorf("no warning:\n%s", r.stderr)
	}
	// Only that one request: the next is back to the configured level.
	w.srv.Script(done("Third."))
	w.run("--resume", "--no-audit", "-p", "more").expect(t, 0)
	if last := w.srv.Requests()[2]; last.Raw["reasoning_effort"] != "high" {
		t.Errorf("efforts: %v", efforts(w.srv.Requests()))
	}
}

func efforts(reqs []llmtest.Request) []any {
	var out []any
	for _, r := range reqs {
		out = append(out, r.Raw["reasoning_effort"])
	}
	return out
}

// A model that writes its template, then invents the tool's result and
// goes on: the stream is closed at the invented result, the tool runs
// once, the invented text reaches no later request.
func TestEarlyStopOfAnInventedResult(t *testing.T) {
	w := newWorld(t, nil)
	tmpl := llmtest.Reply("Count.", "COMMAND", "echo run >> runs.txt")
	invented := "<tool_result tool=\"COMMAND\" ok=\"true\">\nINVENTED OUTPUT\n</tool_result>\n\n" +
		llmtest.Reply("It worked, now delete.", "COMMAND", "echo evil >> runs.txt") + strings.Repeat("filler ", 2000)
	w.srv.Script(llmtest.Response{Content: tmpl + invented, ChunkSize: 16, Rate: 4000}, done("Counted."))
	r := w.run("--no-audit", "--json", "-p", "count")
	r.expect(t, 0)
	if got := w.read("runs.txt"); got != "run\n" {
		t.Errorf("runs.txt = %q: the tool must run once, the invented one never", got)
	}
	reqs := w.srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	if !reqs[0].Abandoned || reqs[0].Chunks >= (len(tmpl+invented)+15)/16 {
		t.Errorf("the stream was not closed early: abandoned %v after %d chunks", reqs[0].Abandoned, reqs[0].Chunks)
	}
	if strings.Contains(allContent(reqs[1]), "INVENTED OUTPUT") || strings.Contains(allContent(reqs[1]), "evil") {
		t.Errorf("the invented text reached the next request:\n%s", allContent(reqs[1]))
	}
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	var result struct{ EarlyStops int }
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &result); err != nil || result.EarlyStops != 1 {
		t.Errorf("result %s (%v)", lines[len(lines)-1], err)
	}
	if !strings.Contains(r.stderr, "began writing the tool's result itself") {
		t.Errorf("no warning:\n%s", r.stderr)
	}
}

// Successive worker requests share the longest prefix, so a server's
// prompt cache reprocesses only what is new: the system prompt is the same
// bytes throughout, and each request's messages extend the one before's.
func TestRequestsArePromptCacheFriendly(t *testing.T) {
	w := newWorld(t, nil)
	w.write("notes.txt", "a note\n")
	var script []llmtest.Response
	for i := range 19 {
		if i%2 == 0 {
			script = append(script, reply("Look.", "READ_FILE", "notes.txt"))
		} else {
			script = append(script, reply("Run.", "COMMAND", "echo step "+strings.Repeat("x", i)))
		}
	}
	script = append(script, done("Twenty steps."))
	w.srv.Script(script...)
	w.run("--no-audit", "-p", "take twenty steps").expect(t, 0)
	reqs := w.srv.Requests()
	if len(reqs) != 20 {
		t.Fatalf("%d requests", len(reqs))
	}
	for i := 1; i < len(reqs); i++ {
		prev, cur := reqs[i-1].Messages, reqs[i].Messages
		if cur[0] != prev[0] {
			t.Fatalf("request %d: the system prompt changed", i+1)
		}
		if len(cur) <= len(prev) || !slices.Equal(cur[:len(prev)], prev) {
			t.Fatalf("request %d does not extend request %d's messages", i+1, i)
		}
	}
}

// BenchmarkEarlyStop measures what stopping an invented result saves on a
// slow local server: a template, then 2,000 tokens of invented result and
// continuation at 200 tokens a second (one token a chunk). It reports the
// tokens the server did not have to generate and the seconds that took.
func BenchmarkEarlyStop(b *testing.B) {
	const rate, inventedTokens = 200, 2000
	tmpl := llmtest.Reply("Count.", "COMMAND", "echo run >> runs.txt")
	invented := "\n## Observation\n" + strings.Repeat("tok ", inventedTokens)
	binary(b) // built before the clock starts
	for b.Loop() {
		w := setUpWorld(b, nil)
		w.srv.Script(llmtest.Response{Content: tmpl + invented, ChunkSize: 4, Rate: rate}, done("Counted."))
		r := w.run("--no-audit", "-p", "count")
		if r.code != 0 {
			b.Fatalf("exit %d\n%s", r.code, r.stderr)
		}
		first := w.srv.Requests()[0]
		total := (len(tmpl+invented) + 3) / 4
		saved := total - first.Chunks
		b.ReportMetric(float64(saved), "tokens-saved")
		b.ReportMetric(float64(saved)/rate, "s-saved")
		b.ReportMetric(first.Replied.Sub(first.Arrived).Seconds(), "s-streamed")
	}
}
