package mcp

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/devagent/dev/mcp/mcptest"
)

// syncBuffer is a bytes.Buffer the servers' stderr copiers may share.
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

func connect(t *testing.T, opts Options, configs ...ServerConfig) *Set {
	t.Helper()
	if opts.grace == 0 {
		opts.grace = 200 * time.Millisecond
	}
	set := Connect(context.Background(), configs, opts)
	t.Cleanup(func() {
		if err := set.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return set
}

func lookup(t *testing.T, set *Set, server, tool string) *Tool {
	t.Helper()
	for _, tl := range set.Tools() {
		if tl.Server == server && tl.Name == tool {
			return tl
		}
	}
	t.Fatalf("no tool %s.%s among %d tools; warnings: %q", server, tool, len(set.Tools()), set.Warnings())
	return nil
}

func texts(r Result) string {
	var parts []string
	for _, c := range r.Content {
		parts = append(parts, c.Text)
	}
	return strings.Join(parts, "|")
}

func TestStdioServer(t *testing.T) {
	t.Parallel()
	exe := serverBinary(t)
	dir := t.TempDir()
	mirror := &syncBuffer{}
	set := connect(t, Options{Dir: dir, Stderr: mirror, Getenv: func(k string) string {
		return map[string]string{"SECRET_SOURCE": "s3cr3t"}[k]
	}}, ServerConfig{Name: "local", Command: exe, Args: []string{"noise"}, Env: map[string]string{"GREETING": "hello ${SECRET_SOURCE}"}})

	if w := set.Warnings(); len(w) != 0 {
		t.Fatalf("warnings: %q", w)
	}
	srv := set.Servers()[0]
	if !srv.Connected() || srv.Transport != Stdio || srv.Target != exe+" noise" || srv.Info() != "devtest 1.2.3" {
		t.Errorf("server = connected %v, transport %q, target %q, info %q", srv.Connected(), srv.Transport, srv.Target, srv.Info())
	}
	echo := lookup(t, set, "local", mcptest.Echo)
	if echo.Description != mcptest.EchoDescription || !strings.Contains(echo.Schema, `"text"`) {
		t.Errorf("echo = %q, schema %s", echo.Description, echo.Schema)
	}
	ctx := context.Background()
	res, err := echo.Call(ctx, map[string]any{"text": "héllo\nworld"}, 5*time.Second)
	if err != nil || res.IsError || texts(res) != "héllo\nworld" {
		t.Errorf("echo = %+v, %v", res, err)
	}
	res, err = lookup(t, set, "local", mcptest.Add).Call(ctx, map[string]any{"a": 2, "b": 40}, 5*time.Second)
	if err != nil || texts(res) != "42" {
		t.Errorf("add = %+v, %v", res, err)
	}
	res, err = lookup(t, set, "local", mcptest.Env).Call(ctx, map[string]any{"name": "GREETING"}, 5*time.Second)
	wantDir, _ := filepath.EvalSymlinks(dir)
	if err != nil || !strings.Contains(texts(res), "GREETING=hello s3cr3t\n") || !strings.Contains(texts(res), "cwd="+wantDir) {
		t.Errorf("env = %+v, %v; want the variable expanded and cwd %s", res, err, wantDir)
	}
	if _, err := lookup(t, set, "local", mcptest.Stderr).Call(ctx, map[string]any{"text": "a warning"}, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	// What the server writes reaches dev through a pipe, in its own time;
	// once the server is stopped, all of it has come.
	if err := set.Close(); err != nil {
		t.Fatal(err)
	}
	if got := srv.Stderr(); !strings.Contains(got, "server starting on stdio\n") || !strings.Contains(got, "a warning\n") {
		t.Errorf("Stderr() = %q", got)
	}
	if got := mirror.String(); !strings.Contains(got, "[local] server starting on stdio\n") || !strings.Contains(got, "[local] a warning\n") {
		t.Errorf("verbose stderr = %q", got)
	}
}

func TestStderrIsKeptOutOfTheTerminal(t *testing.T) {
	t.Parallel()
	// Without Options.Stderr nothing is written anywhere: the process
	// has no other way to our terminal than the writer it is given.
	set := connect(t, Options{}, ServerConfig{Name: "quiet", Command: serverBinary(t), Args: []string{"noise"}})
	srv := set.Servers()[0]
	if !srv.Connected() {
		t.Fatal(srv.Err())
	}
	if srv.stderr.mirror != nil || !strings.Contains(srv.Stderr(), "server starting") {
		t.Errorf("stderr mirrored %v, kept %q", srv.stderr.mirror != nil, srv.Stderr())
	}
}

func TestHTTPServer(t *testing.T) {
	t.Parallel()
	hs := mcptest.NewHTTPServer("tok123")
	defer hs.Close()
	set := connect(t, Options{Getenv: func(k string) string { return map[string]string{"TOKEN": "tok123"}[k] }},
		ServerConfig{Name: "remote", URL: hs.URL, Headers: map[string]string{"Authorization": "Bearer ${TOKEN}"}},
		ServerConfig{Name: "nokey", URL: hs.URL},
	)
	nokey, remote := set.Servers()[0], set.Servers()[1]
	if want := hs.URL + " answered HTTP 401 Unauthorized (check the token in its headers)"; nokey.Connected() || nokey.Err().Error() != want {
		t.Errorf("without the header: connected %v, err %v", nokey.Connected(), nokey.Err())
	}
	if !remote.Connected() || remote.Transport != HTTP || remote.Target != hs.URL {
		t.Fatalf("remote = %v %q %q: %v", remote.Connected(), remote.Transport, remote.Target, remote.Err())
	}
	res, err := lookup(t, set, "remote", mcptest.Add).Call(context.Background(), map[string]any{"a": 1, "b": 2}, 5*time.Second)
	if err != nil || texts(res) != "3" {
		t.Errorf("add = %+v, %v", res, err)
	}
	res, err = lookup(t, set, "remote", mcptest.Fail).Call(context.Background(), nil, 5*time.Second)
	if err != nil || !res.IsError || texts(res) != "the widget is broken" {
		t.Errorf("fail = %+v, %v", res, err)
	}
	res, err = lookup(t, set, "remote", mcptest.Sleep).Call(context.Background(), nil, 100*time.Millisecond)
	var ce *CallError
	if !errors.As(err, &ce) || !errors.Is(err, context.DeadlineExceeded) || ce.Message != `remote.sleep: no answer from MCP server "remote" within 100 ms; the call was cancelled` {
		t.Errorf("sleep = %+v, %v", res, err)
	}
}

// TestStartFailures: each broken server is skipped with its reason, and
// the good one next to it works.
func TestStartFailures(t *testing.T) {
	t.Parallel()
	exe := serverBinary(t)
	missing := filepath.Join(t.TempDir(), "no-such-server")
	garbage := mcptest.NewGarbageServer()
	defer garbage.Close()
	// The timeout is what the hanging server costs the test; the others,
	// started alongside it, must connect well within it even on a busy
	// machine.
	set := connect(t, Options{ConnectTimeout: 3 * time.Second, Getenv: func(string) string { return "" }},
		ServerConfig{Name: "a-exits", Command: exe, Args: []string{"exit"}},
		ServerConfig{Name: "b-hangs", Command: exe, Args: []string{"hang"}},
		ServerConfig{Name: "c-missing", Command: missing},
		ServerConfig{Name: "d-garbage", URL: garbage.URL},
		ServerConfig{Name: "e-unset", Command: exe, Env: map[string]string{"TOKEN": "${GITHUB_TOKEN}"}},
		ServerConfig{Name: "f-good", Command: exe},
	)
	want := []string{
		`MCP server "a-exits" is skipped: it exited during start (exit status 1); its stderr ends with:` + "\nfatal: GITHUB_TOKEN is not set",
		`MCP server "b-hangs" is skipped: no answer within 3 s (the connect timeout)`,
		`MCP server "c-missing" is skipped: cannot start ` + missing + `: no such file or directory`,
		`MCP server "d-garbage" is skipped: ` + garbage.URL + ` answered with content type "text/html", which is not MCP (is the URL the server's MCP endpoint?)`,
		`MCP server "e-unset" is skipped: the environment variable GITHUB_TOKEN used in its env.TOKEN is not set`,
	}
	got := set.Warnings()
	if len(got) != len(want) {
		t.Fatalf("warnings = %q", got)
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("warning %d = %q\nwant prefix %q", i, got[i], want[i])
		}
	}
	for _, srv := range set.Servers()[:5] {
		if srv.Connected() || len(srv.Tools()) != 0 {
			t.Errorf("%s: connected %v with %d tools", srv.Name, srv.Connected(), len(srv.Tools()))
		}
	}
	if good := set.Servers()[5]; !good.Connected() || len(good.Tools()) == 0 {
		t.Errorf("the good server: %v, %d tools", good.Err(), len(good.Tools()))
	}
	t.Logf("warnings:\n%s", strings.Join(got, "\n"))
}

func TestCallFailures(t *testing.T) {
	t.Parallel()
	exe := serverBinary(t)
	tests := []struct {
		tool    string
		timeout time.Duration
		cause   error
		want    []string
	}{
		{mcptest.Wedge, 200 * time.Millisecond, context.DeadlineExceeded, []string{`s.wedge: no answer from MCP server "s" within 200 ms; the call was cancelled`}},
		{mcptest.Crash, 5 * time.Second, ErrServerGone, []string{`s.crash: MCP server "s" is no longer running (exit status 3); its tools are unavailable until dev restarts; its stderr ends with:`, "panic: out of widgets"}},
		{mcptest.Garbage, 5 * time.Second, ErrServerGone, []string{`s.garbage: `, `not JSON-RPC`}},
	}
	for _, tt := range tests {
		t.Run(tt.tool, func(t *testing.T) {
			t.Parallel()
			set := connect(t, Options{}, ServerConfig{Name: "s", Command: exe})
			res, err := lookup(t, set, "s", tt.tool).Call(context.Background(), nil, tt.timeout)
			var ce *CallError
			if !errors.As(err, &ce) || !errors.Is(err, tt.cause) {
				t.Fatalf("Call = %+v, %v; want a CallError caused by %v", res, err, tt.cause)
			}
			for _, w := range tt.want {
				if !strings.Contains(ce.Message, w) {
					t.Errorf("message %q lacks %q", ce.Message, w)
				}
			}
			if tt.cause == ErrServerGone {
				// Once gone, the server's other tools say so at once.
				_, err := lookup(t, set, "s", mcptest.Echo).Call(context.Background(), map[string]any{"text": "x"}, 5*time.Second)
				if !errors.Is(err, ErrServerGone) {
					t.Errorf("next call: %v, want ErrServerGone", err)
				}
			}
		})
	}
}

func TestInterruptedCall(t *testing.T) {
	t.Parallel()
	set := connect(t, Options{}, ServerConfig{Name: "s", Command: serverBinary(t)})
	ctx, cancel := context.WithCancel(context.Background())
	tool := lookup(t, set, "s", mcptest.Sleep)
	done := make(chan error, 1)
	go func() {
		_, err := tool.Call(ctx, nil, time.Hour)
		done <- err
	}()
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) || err.Error() != "s.sleep: the call was interrupted" {
		t.Errorf("Call = %v", err)
	}
	// The server is still there for the next call.
	res, err := lookup(t, set, "s", mcptest.Echo).Call(context.Background(), map[string]any{"text": "still here"}, 5*time.Second)
	if err != nil || texts(res) != "still here" {
		t.Errorf("echo after an interruption = %+v, %v", res, err)
	}
}

func TestContentKinds(t *testing.T) {
	t.Parallel()
	set := connect(t, Options{}, ServerConfig{Name: "s", Command: serverBinary(t)})
	res, err := lookup(t, set, "s", mcptest.Media).Call(context.Background(), nil, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	want := []Content{
		{Type: "text", Text: "here is a chart", Size: -1},
		{Type: "image", MIMEType: "image/png", Size: mcptest.ImageSize},
		{Type: "audio", MIMEType: "audio/wav", Size: 10},
		{Type: "resource_link", URI: "file:///data/report.csv", Name: "report", MIMEType: "text/csv", Size: 2048},
		{Type: "resource", URI: "file:///notes.txt", MIMEType: "text/plain", Text: "embedded note", Size: -1},
		{Type: "resource", URI: "file:///blob.bin", MIMEType: "application/octet-stream", Size: 300},
	}
	if len(res.Content) != len(want) {
		t.Fatalf("content = %+v", res.Content)
	}
	for i := range want {
		if res.Content[i] != want[i] {
			t.Errorf("content[%d] = %+v, want %+v", i, res.Content[i], want[i])
		}
	}
	res, err = lookup(t, set, "s", mcptest.Structured).Call(context.Background(), nil, 5*time.Second)
	if err != nil || len(res.Content) != 0 || res.Structured != `{"answer":42}` {
		t.Errorf("structured = %+v, %v", res, err)
	}
}

func TestValidate(t *testing.T) {
	t.Parallel()
	schema := `{"type":"object","properties":{
		"title":{"type":"string"},"n":{"type":"integer"},
		"labels":{"type":"array","items":{"type":"string"}},
		"o":{"type":"object","properties":{"x":{"type":"number"}},"required":["x"]},
		"maybe":{"type":["string","null"]}},
		"required":["title","n"],"additionalProperties":false}`
	tool := toolWithSchema(t, schema)
	tests := []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"title": "a", "n": 1.0}, ""},
		{map[string]any{}, `missing required fields "title", "n"`},
		{map[string]any{"title": "a"}, `missing required field "n"`},
		{map[string]any{"title": 1.0, "n": 1.0}, `field "title" must be a string, got integer 1`},
		{map[string]any{"title": "a", "n": 2.5}, `field "n" must be an integer, got number 2.5`},
		{map[string]any{"title": "a", "n": "2"}, `field "n" must be an integer, got string 2`},
		{map[string]any{"title": "a", "n": 1.0, "labels": []any{1.0}}, `field "labels[]" must be a string, got integer 1`},
		{map[string]any{"title": "a", "n": 1.0, "o": map[string]any{}}, `missing required field "x" in "o"`},
		{map[string]any{"title": "a", "n": 1.0, "o": map[string]any{"x": true}}, `field "o.x" must be a number, got boolean true`},
		{map[string]any{"title": "a", "n": 1.0, "maybe": 3.0}, `field "maybe" must be a string or a null, got integer 3`},
		{map[string]any{"title": "a", "n": 1.0, "zz": 1.0}, `unknown field "zz"; the fields are "labels", "maybe", "n", "o", "title"`},
	}
	for _, tt := range tests {
		err := tool.Validate(tt.args)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tt.want {
			t.Errorf("Validate(%v) = %q\nwant %q", tt.args, got, tt.want)
		}
	}
}

func TestValidateWithoutUsableSchema(t *testing.T) {
	t.Parallel()
	// A remote $ref cannot be resolved here: the server checks alone.
	tool := toolWithSchema(t, `{"type":"object","properties":{"a":{"$ref":"https://example.com/s.json"}}}`)
	if err := tool.Validate(map[string]any{"a": 1.0}); err != nil {
		t.Errorf("Validate = %v, want nil", err)
	}
}

func toolWithSchema(t *testing.T, schema string) *Tool {
	t.Helper()
	var s any
	if err := jsonUnmarshal(schema, &s); err != nil {
		t.Fatal(err)
	}
	return newTool(&Server{Name: "srv"}, sdkTool("t", s))
}

func TestCloseStopsWhatTheServerStarted(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	t.Parallel()
	set := Connect(context.Background(), []ServerConfig{{Name: "s", Command: serverBinary(t)}}, Options{grace: 200 * time.Millisecond})
	res, err := lookup(t, set, "s", mcptest.Spawn).Call(context.Background(), nil, 5*time.Second)
	if err != nil {
		set.Close()
		t.Fatal(err)
	}
	pid := texts(res)
	if err := set.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	// The child holds the server's stdout; it must be gone (or a zombie
	// waiting for its reaper) once Close returned.
	stat, err := os.ReadFile("/proc/" + pid + "/stat")
	if err == nil && !strings.Contains(string(stat), ") Z ") {
		t.Errorf("the server's child %s is still running: %s", pid, stat)
	}
	if err := set.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

func TestExpand(t *testing.T) {
	t.Parallel()
	env := map[string]string{"A": "1", "EMPTY": ""}
	tests := []struct{ in, want, err string }{
		{"plain", "plain", ""},
		{"${A}", "1", ""},
		{"x${A}y${A}z", "x1y1z", ""},
		{"${B:-dflt}", "dflt", ""},
		{"${EMPTY:-dflt}", "dflt", ""},
		{"$A and ${", "$A and ${", ""},
		{"${B}", "", "the environment variable B used in its args[0] is not set"},
	}
	for _, tt := range tests {
		x := expander{getenv: func(k string) string { return env[k] }}
		got := x.expand(tt.in, "args[0]")
		gotErr := ""
		if x.err != nil {
			gotErr = x.err.Error()
		}
		if got != tt.want || gotErr != tt.err {
			t.Errorf("expand(%q) = %q, %q; want %q, %q", tt.in, got, gotErr, tt.want, tt.err)
		}
	}
}

func TestStderrLog(t *testing.T) {
	t.Parallel()
	var mirror bytes.Buffer
	l := newStderrLog("srv", &mirror)
	l.Write([]byte("one\ntw"))
	l.Write([]byte("o\n\nthree"))
	if got := mirror.String(); got != "[srv] one\n[srv] two\n[srv] \n" {
		t.Errorf("mirror = %q", got)
	}
	if got := l.lastLines(2, 1000); got != "two\nthree" {
		t.Errorf("lastLines = %q", got)
	}
	big := strings.Repeat("x", 100) + "\n"
	for range 1000 {
		l.Write([]byte(big))
	}
	if n := len(l.String()); n != StderrKept {
		t.Errorf("kept %d bytes, want %d", n, StderrKept)
	}
}

func TestFirstSentence(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc string
		n    int
		want string
	}{
		{"Create an issue. Needs a token.", 80, "Create an issue."},
		{"Create an issue\nin a repository.", 80, "Create an issue"},
		{"Version 1.2 of the API! Other things.", 80, "Version 1.2 of the API!"},
		{"Is it there? Yes.", 80, "Is it there?"},
		{"No full stop", 80, "No full stop"},
		{"A rather long first sentence that goes on and on, well past the budget.", 30, "A rather long first sentence…"},
		{"A rather long first sentence that goes on and on, well past the budget.", 40, "A rather long first sentence that goes…"},
		{"Überlange Beschreibung ohne Ende in Sicht", 10, "Überlange…"},
		{"Supercalifragilisticexpialidociousandmoreandmoreandmore words", 30, "Supercalifragilisticexpialido…"},
		{"", 80, ""},
		{"anything", 1, ""},
	}
	for _, tt := range tests {
		if got := FirstSentence(tt.desc, tt.n); got != tt.want {
			t.Errorf("FirstSentence(%q, %d) = %q, want %q", tt.desc, tt.n, got, tt.want)
		}
	}
}

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// TestWriteReport pins what `dev mcp` shows (testdata/report.golden).
func TestWriteReport(t *testing.T) {
	t.Parallel()
	exe := serverBinary(t)
	hs := mcptest.NewHTTPServer("secret")
	defer hs.Close()
	set := connect(t, Options{},
		ServerConfig{Name: "local", Command: exe, Args: []string{"noise"}},
		ServerConfig{Name: "broken", Command: exe, Args: []string{"exit"}},
		ServerConfig{Name: "remote", URL: hs.URL, Headers: map[string]string{"Authorization": "Bearer secret"}},
		ServerConfig{Name: "off", Command: "old-server", Disabled: true},
	)
	var b strings.Builder
	if err := WriteReport(&b, set.Servers(), false); err != nil {
		t.Fatal(err)
	}
	got := strings.NewReplacer(exe, "SERVER", hs.URL, "URL").Replace(b.String())
	golden := filepath.Join("testdata", "report.golden")
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update)", err)
	}
	if got != string(want) {
		t.Errorf("report differs from %s:\n--- got\n%s\n--- want\n%s", golden, got, want)
	}
	if states := []string{set.Servers()[0].State(), set.Servers()[1].State(), set.Servers()[2].State(), set.Servers()[3].State()}; strings.Join(states, ",") != "failed,connected,disabled,connected" {
		t.Errorf("states = %v", states)
	}
	// Verbose adds the server's stderr (a failed server's is complete:
	// the process has exited).
	var verbose strings.Builder
	if err := WriteReport(&verbose, set.Servers()[:1], true); err != nil || !strings.HasSuffix(verbose.String(), "\n  stderr:\n    fatal: GITHUB_TOKEN is not set\n") {
		t.Errorf("verbose: %q, %v", verbose.String(), err)
	}
	var empty strings.Builder
	if err := WriteReport(&empty, nil, false); err != nil || empty.String() != "No MCP servers are configured (key \"mcpServers\" of config.json).\n" {
		t.Errorf("no servers: %q, %v", empty.String(), err)
	}
}

// recordingSandbox stands for the OS sandbox: it counts the processes it
// confines, or refuses them.
type recordingSandbox struct {
	mu      sync.Mutex
	wrapped []string
	refuse  error
}

func (s *recordingSandbox) Wrap(cmd *exec.Cmd) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.refuse != nil {
		return s.refuse
	}
	s.wrapped = append(s.wrapped, cmd.Path)
	return nil
}

// Stdio servers start through the sandbox when one is given; one it
// refuses does not start at all.
func TestStdioServersStartInTheSandbox(t *testing.T) {
	t.Parallel()
	exe := serverBinary(t)
	sb := &recordingSandbox{}
	set := connect(t, Options{Sandbox: sb}, ServerConfig{Name: "s", Command: exe})
	if !set.Servers()[0].Connected() || len(sb.wrapped) != 1 || sb.wrapped[0] != exe {
		t.Errorf("connected %v (%v), wrapped %q", set.Servers()[0].Connected(), set.Servers()[0].Err(), sb.wrapped)
	}
	refusing := &recordingSandbox{refuse: errors.New("cannot confine it")}
	set = connect(t, Options{Sandbox: refusing}, ServerConfig{Name: "s", Command: exe})
	if err := set.Servers()[0].Err(); err == nil || !strings.Contains(err.Error(), "cannot confine it") {
		t.Errorf("a server the sandbox refused: %v", err)
	}
}
