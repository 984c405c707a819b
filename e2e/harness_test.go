// Package e2e runs the dev binary as users do, against a scripted mock
// OpenAI server, and checks what they would see: exit codes, stdout, files
// written, the requests the server got and the session files left behind.
package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/devagent/dev/llm/llmtest"
	"github.com/devagent/dev/sessions"
)

// build is the dev executable, built once for the whole suite by the first
// test that needs it.
var build struct {
	once sync.Once
	dir  string // holds the binary; removed after the suite
	path string
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if build.dir != "" {
		os.RemoveAll(build.dir)
	}
	os.Exit(code)
}

// binary builds dev on first use. It runs inside a test, where go test
// records the files read; TestMain runs before that recording starts.
func binary(t testing.TB) string {
	t.Helper()
	build.once.Do(func() {
		if build.err = readSources(".."); build.err != nil {
			return
		}
		if build.dir, build.err = os.MkdirTemp("", "dev-e2e-"); build.err != nil {
			return
		}
		build.path = filepath.Join(build.dir, "dev")
		if runtime.GOOS == "windows" {
			build.path += ".exe"
		}
		args := []string{"build", "-o", build.path}
		if raceEnabled {
			args = append(args, "-race")
		}
		out, err := exec.Command("go", append(args, "..")...).CombinedOutput()
		if err != nil {
			build.err = fmt.Errorf("building dev: %w\n%s", err, out)
		}
	})
	if build.err != nil {
		t.Fatal(build.err)
	}
	return build.path
}

// readSources reads every file of the module. go test caches a result until
// the files the test read change; the binary is built from these files by a
// separate process, so reading them here is what makes an edit to main.go
// invalidate the cached e2e results.
func readSources(root string) error {
	return filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); name == ".git" || name == "testdata" {
				return filepath.SkipDir
			}
			return nil
		}
		_, err = os.ReadFile(p)
		return err
	})
}

// world is one user's machine: a config home, a project directory and a
// model server.
type world struct {
	t     testing.TB
	home  string // DEV_AGENT_HOME
	dir   string // the project, dev's working directory
	srv   *llmtest.Server
	extra []string // extra environment variables
}

// newWorld writes config.json pointing at a fresh mock server; cfg entries
// override the test defaults.
func newWorld(t *testing.T, cfg map[string]any) *world {
	t.Helper()
	t.Parallel()
	return setUpWorld(t, cfg)
}

// setUpWorld is newWorld for benchmarks, which do not run in parallel.
func setUpWorld(t testing.TB, cfg map[string]any) *world {
	t.Helper()
	w := &world{t: t, home: t.TempDir(), dir: t.TempDir(), srv: llmtest.New("mock-model", "other-model")}
	t.Cleanup(w.srv.Close)
	conf := map[string]any{
		"apiUrl":              w.srv.BaseURL(),
		"model":               "mock-model",
		"maxRetriesAutomated": 3,
		"commandTimeout":      10,
		"requestTimeout":      20,
	}
	for k, v := range cfg {
		conf[k] = v
	}
	w.writeConfig(conf)
	return w
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

type result struct {
	stdout, stderr string
	code           int
}

func (w *world) command(ctx context.Context, args ...string) (*exec.Cmd, *bytes.Buffer, *bytes.Buffer) {
	cmd := exec.CommandContext(ctx, binary(w.t), args...)
	cmd.Dir = w.dir
	cmd.Env = append([]string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + w.home,
		"DEV_AGENT_HOME=" + w.home,
		"LANG=C.UTF-8",
	}, w.extra...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	return cmd, &stdout, &stderr
}

// startUntilHanging starts dev and returns once one of its requests hangs at
// the server (a Hang response): the moment to signal it. exitCode ends it.
func (w *world) startUntilHanging(args ...string) (cmd *exec.Cmd, stdout, stderr *bytes.Buffer) {
	w.t.Helper()
	cmd, stdout, stderr = w.command(w.t.Context(), args...)
	if err := cmd.Start(); err != nil {
		w.t.Fatal(err)
	}
	select {
	case <-w.srv.Hanging():
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		cmd.Wait()
		w.t.Fatalf("dev %q never got its request to the server; stderr:\n%s", args, stderr)
	}
	return cmd, stdout, stderr
}

// exitCode waits for a started dev to end and returns its exit code.
func exitCode(t testing.TB, cmd *exec.Cmd) int {
	t.Helper()
	err := cmd.Wait()
	if err == nil {
		return 0
	}
	exit, ok := err.(interface{ ExitCode() int })
	if !ok {
		t.Fatal(err)
	}
	return exit.ExitCode()
}

// run runs dev to completion (with a generous deadline) and returns what it did.
func (w *world) run(args ...string) result {
	w.t.Helper()
	return w.runInput("", args...)
}

func (w *world) runInput(stdin string, args ...string) result {
	w.t.Helper()
	return w.runWithin(60*time.Second, stdin, args...)
}

// runWithin runs dev to completion with stdin, failing the test if it has
// not finished after d.
func (w *world) runWithin(d time.Duration, stdin string, args ...string) result {
	w.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	cmd, stdout, stderr := w.command(ctx, args...)
	cmd.Stdin = strings.NewReader(stdin)
	err := cmd.Run()
	code := 0
	if err != nil {
		exit, ok := err.(*exec.ExitError)
		if !ok {
			w.t.Fatalf("running dev %q: %v", args, err)
		}
		code = exit.ExitCode()
	}
	if ctx.Err() != nil {
		w.t.Fatalf("dev %q did not finish in time; stderr:\n%s", args, stderr)
	}
	return result{stdout.String(), stderr.String(), code}
}

func (w *world) write(rel, content string) {
	w.t.Helper()
	path := filepath.Join(w.dir, rel)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		w.t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		w.t.Fatal(err)
	}
}

func (w *world) read(rel string) string {
	w.t.Helper()
	data, err := os.ReadFile(filepath.Join(w.dir, rel))
	if err != nil {
		w.t.Fatalf("reading %s: %v", rel, err)
	}
	return string(data)
}

// sessionFiles returns the sessions stored, by id.
func (w *world) sessions() map[string]*sessions.Session {
	w.t.Helper()
	files, _ := filepath.Glob(filepath.Join(w.home, "sessions", "*.json"))
	out := map[string]*sessions.Session{}
	for _, f := range files {
		if filepath.Base(f) == "directory-map.json" {
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			w.t.Fatal(err)
		}
		var s sessions.Session
		if err := json.Unmarshal(data, &s); err != nil {
			w.t.Fatalf("session file %s is not valid JSON: %v\n%s", f, err, data)
		}
		out[s.ID] = &s
	}
	return out
}

// onlySession returns the single session stored.
func (w *world) onlySession() *sessions.Session {
	w.t.Helper()
	all := w.sessions()
	if len(all) != 1 {
		w.t.Fatalf("want exactly one session, have %d", len(all))
	}
	for _, s := range all {
		return s
	}
	return nil
}

func (r result) expect(t *testing.T, code int) {
	t.Helper()
	if r.code != code {
		t.Fatalf("exit code %d, want %d\nstdout:\n%s\nstderr:\n%s", r.code, code, r.stdout, r.stderr)
	}
}

func reply(thoughts, tool, input string) llmtest.Response {
	return llmtest.Response{Content: llmtest.Reply(thoughts, tool, input)}
}

func done(summary string) llmtest.Response {
	return reply("All done.", "DONE", summary)
}

// verdict is the auditor's final reply.
func verdict(report string) llmtest.Response {
	return reply("Checked.", "DONE", report)
}

// isAudit tells the auditor's requests from the worker's.
func isAudit(req llmtest.Request) bool {
	return len(req.Messages) > 0 && strings.HasPrefix(req.Messages[0].Content, "You are the auditor of dev")
}

// lastUser is the content of the last user message of a request.
func lastUser(req llmtest.Request) string {
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if req.Messages[i].Role == "user" {
			return req.Messages[i].Content
		}
	}
	return ""
}

func allContent(req llmtest.Request) string {
	var b strings.Builder
	for _, m := range req.Messages {
		b.WriteString(m.Content + "\n")
	}
	return b.String()
}

// syncBuffer is stderr that tests may read while dev writes it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
