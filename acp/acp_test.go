package acp

import (
	"context"
	"encoding/base64"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/devagent/dev/app"
	"github.com/devagent/dev/event"
	"github.com/devagent/dev/loop"
	"github.com/devagent/dev/sessions"
	"github.com/devagent/dev/tools"
)

// fakeApp is a run whose requests end as run says, emitting what it
// emits.
type fakeApp struct {
	sess     *sessions.Session
	sink     event.Sink
	run      func(ctx context.Context, sink event.Sink, request string) app.Result
	requests []string
	closed   bool
	mu       sync.Mutex // guards mode
	mode     string
}

func (f *fakeApp) Request(typed string) (string, error) { return typed, nil }
func (f *fakeApp) Session() *sessions.Session           { return f.sess }
func (f *fakeApp) Close()                               { f.closed = true }
func (f *fakeApp) Approval() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.mode
}
func (f *fakeApp) SetApproval(mode string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.mode = mode
	return nil
}
func (f *fakeApp) Run(ctx context.Context, request string) app.Result {
	f.requests = append(f.requests, request)
	return f.run(ctx, f.sink, request)
}

// client is the editor's side: it records the updates.
type client struct {
	mu      sync.Mutex
	updates []sdk.SessionUpdate
}

func (c *client) SessionUpdate(_ context.Context, n sdk.SessionNotification) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.updates = append(c.updates, n.Update)
	return nil
}
func (c *client) RequestPermission(context.Context, sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
	return sdk.RequestPermissionResponse{Outcome: sdk.NewRequestPermissionOutcomeCancelled()}, nil
}
func (c *client) ReadTextFile(context.Context, sdk.ReadTextFileRequest) (sdk.ReadTextFileResponse, error) {
	return sdk.ReadTextFileResponse{}, errors.New("no")
}
func (c *client) WriteTextFile(context.Context, sdk.WriteTextFileRequest) (sdk.WriteTextFileResponse, error) {
	return sdk.WriteTextFileResponse{}, errors.New("no")
}
func (c *client) CreateTerminal(context.Context, sdk.CreateTerminalRequest) (sdk.CreateTerminalResponse, error) {
	return sdk.CreateTerminalResponse{}, errors.New("no")
}
func (c *client) KillTerminal(context.Context, sdk.KillTerminalRequest) (sdk.KillTerminalResponse, error) {
	return sdk.KillTerminalResponse{}, errors.New("no")
}
func (c *client) TerminalOutput(context.Context, sdk.TerminalOutputRequest) (sdk.TerminalOutputResponse, error) {
	return sdk.TerminalOutputResponse{}, errors.New("no")
}
func (c *client) ReleaseTerminal(context.Context, sdk.ReleaseTerminalRequest) (sdk.ReleaseTerminalResponse, error) {
	return sdk.ReleaseTerminalResponse{}, errors.New("no")
}
func (c *client) WaitForTerminalExit(context.Context, sdk.WaitForTerminalExitRequest) (sdk.WaitForTerminalExitResponse, error) {
	return sdk.WaitForTerminalExitResponse{}, errors.New("no")
}

// serve runs Serve in process with apps made by open, and returns the
// editor's connection and updates; the server ends with the test.
func serve(t *testing.T, open func(o OpenOptions) (App, error)) (*sdk.ClientSideConnection, *client) {
	t.Helper()
	toDev, fromEditor := io.Pipe()
	toEditor, fromDev := io.Pipe()
	ended := make(chan error, 1)
	go func() {
		ended <- Serve(context.Background(), Options{In: toDev, Out: fromDev, Err: io.Discard, Version: "1.2.3", Open: open,
			Modes: []string{"auto", "edits", "ask", "plan"}})
	}()
	c := &client{}
	conn := sdk.NewClientSideConnection(c, fromEditor, toEditor)
	t.Cleanup(func() {
		fromEditor.Close()
		select {
		case err := <-ended:
			if err != nil {
				t.Errorf("Serve: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Error("Serve did not end when its input closed")
		}
	})
	if _, err := conn.Initialize(context.Background(), sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber}); err != nil {
		t.Fatal(err)
	}
	return conn, c
}

// oneApp opens f for every session.
func oneApp(f *fakeApp) func(o OpenOptions) (App, error) {
	return func(o OpenOptions) (App, error) {
		f.sink = o.Sink
		f.sess.WorkingDirectory = o.Dir
		return f, nil
	}
}

func TestStopReasons(t *testing.T) {
	cases := []struct {
		stop    loop.Stop
		reason  sdk.StopReason
		message string // the agent's message, or the error's
	}{
		{loop.Done, sdk.StopReasonEndTurn, "the summary"},
		{loop.Interrupted, sdk.StopReasonCancelled, ""},
		{loop.MaxLoops, sdk.StopReasonMaxTurnRequests, "the failure"},
		{loop.FormatFailed, sdk.StopReasonRefusal, "the failure"},
		{loop.Looping, sdk.StopReasonRefusal, "the failure"},
		{loop.AuditFailed, sdk.StopReasonEndTurn, "the failure"},
		{loop.Failed, "", "the failure"},
	}
	for _, c := range cases {
		f := &fakeApp{sess: &sessions.Session{ID: "s1"}, run: func(_ context.Context, sink event.Sink, _ string) app.Result {
			if c.stop != loop.Done && c.stop != loop.Interrupted {
				sink.Emit(event.Failure{Message: "the failure"})
			}
			return app.Result{Outcome: loop.Outcome{Stop: c.stop, Summary: "the summary"}}
		}}
		conn, ed := serve(t, oneApp(f))
		s, err := conn.NewSession(context.Background(), sdk.NewSessionRequest{Cwd: t.TempDir(), McpServers: []sdk.McpServer{}})
		if err != nil || s.SessionId != "s1" {
			t.Fatalf("session/new: %+v %v", s, err)
		}
		resp, err := conn.Prompt(context.Background(), sdk.PromptRequest{SessionId: "s1", Prompt: []sdk.ContentBlock{sdk.TextBlock("go")}})
		var said string
		ed.mu.Lock()
		for _, u := range ed.updates {
			if u.AgentMessageChunk != nil {
				said += u.AgentMessageChunk.Content.Text.Text
			}
		}
		ed.mu.Unlock()
		if c.reason == "" {
			var re *sdk.RequestError
			if !errors.As(err, &re) || re.Message != c.message {
				t.Errorf("%v: want the error %q, got %v", c.stop, c.message, err)
			}
			continue
		}
		if err != nil || resp.StopReason != c.reason || said != c.message {
			t.Errorf("%v: %q, said %q, %v; want %q, said %q", c.stop, resp.StopReason, said, err, c.reason, c.message)
		}
	}
}

func TestRequestsTheEditorGetsWrong(t *testing.T) {
	f := &fakeApp{sess: &sessions.Session{ID: "s1"}, run: func(context.Context, event.Sink, string) app.Result {
		return app.Result{}
	}}
	conn, _ := serve(t, oneApp(f))
	var re *sdk.RequestError
	if _, err := conn.NewSession(context.Background(), sdk.NewSessionRequest{Cwd: "rel/dir", McpServers: []sdk.McpServer{}}); !errors.As(err, &re) || !strings.Contains(re.Message, "absolute") {
		t.Errorf("a relative cwd: %v", err)
	}
	if _, err := conn.NewSession(context.Background(), sdk.NewSessionRequest{Cwd: filepath.Join(t.TempDir(), "gone"), McpServers: []sdk.McpServer{}}); !errors.As(err, &re) || !strings.Contains(re.Message, "not a directory") {
		t.Errorf("a cwd that does not exist: %v", err)
	}
	if _, err := conn.Prompt(context.Background(), sdk.PromptRequest{SessionId: "nope", Prompt: []sdk.ContentBlock{sdk.TextBlock("go")}}); !errors.As(err, &re) || !strings.Contains(re.Message, "no session nope") {
		t.Errorf("an unknown session: %v", err)
	}
	if _, err := conn.NewSession(context.Background(), sdk.NewSessionRequest{Cwd: t.TempDir(), McpServers: []sdk.McpServer{}}); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Prompt(context.Background(), sdk.PromptRequest{SessionId: "s1", Prompt: []sdk.ContentBlock{sdk.ImageBlock("aGk=", "image/png")}}); !errors.As(err, &re) || !strings.Contains(re.Message, "image") {
		t.Errorf("an image: %v", err)
	}
	if len(f.requests) != 0 {
		t.Errorf("requests ran: %q", f.requests)
	}
}

func TestOpenFailureIsShown(t *testing.T) {
	conn, _ := serve(t, func(OpenOptions) (App, error) {
		return nil, errors.New(`config.json: line 3: "model" must be a string`)
	})
	_, err := conn.NewSession(context.Background(), sdk.NewSessionRequest{Cwd: t.TempDir(), McpServers: []sdk.McpServer{}})
	var re *sdk.RequestError
	if !errors.As(err, &re) || re.Message != `config.json: line 3: "model" must be a string` {
		t.Errorf("session/new answered %v: want the error as it is", err)
	}
}

func TestRequestText(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.go"), []byte("package a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	uri := func(rel string) string { return "file://" + filepath.ToSlash(filepath.Join(dir, rel)) }
	got, err := requestText(dir, []sdk.ContentBlock{
		sdk.TextBlock("fix "),
		sdk.ResourceLinkBlock("a.go", uri("a.go")),
		sdk.TextBlock(" and look at "),
		sdk.ResourceLinkBlock("issue", "https://example.com/1"),
		sdk.ResourceBlock(sdk.EmbeddedResourceResource{TextResourceContents: &sdk.TextResourceContents{Uri: uri("b.go") + "#L2:3", Text: "unsaved\n"}}),
		sdk.ResourceBlock(sdk.EmbeddedResourceResource{BlobResourceContents: &sdk.BlobResourceContents{Uri: uri("logo.png"), Blob: base64.StdEncoding.EncodeToString([]byte("PNG\x00"))}}),
	})
	if err != nil {
		t.Fatal(err)
	}
	want := "fix  and look at [issue](https://example.com/1)\n\n" +
		"<file path=\"a.go\">\npackage a\n</file>\n\n" +
		"<file path=\"b.go#L2:3\">\nunsaved\n</file>\n\n" +
		"<file path=\"logo.png\">\n(a binary file of 4 bytes: not attached)\n</file>"
	if got != want {
		t.Errorf("request:\n%s\nwant:\n%s", got, want)
	}
	if _, err := requestText(dir, []sdk.ContentBlock{sdk.ResourceLinkBlock("gone", uri("gone.go"))}); err == nil || !strings.Contains(err.Error(), "gone.go") {
		t.Errorf("a link to a missing file: %v", err)
	}
	if _, err := requestText(dir, []sdk.ContentBlock{sdk.TextBlock("  ")}); err == nil {
		t.Error("an empty prompt was taken")
	}
}

func TestKindOf(t *testing.T) {
	want := map[string]sdk.ToolKind{
		tools.ReadFile: sdk.ToolKindRead, tools.WriteFile: sdk.ToolKindEdit, tools.FindAndReplace: sdk.ToolKindEdit,
		tools.ListDirectory: sdk.ToolKindSearch, tools.Command: sdk.ToolKindExecute, "RUN_TESTS": sdk.ToolKindExecute,
		"github.create_issue": sdk.ToolKindFetch, tools.ReadBackground: sdk.ToolKindOther, tools.UpdateTaskList: sdk.ToolKindOther,
	}
	for tool, kind := range want {
		if got := kindOf(tool); got != kind {
			t.Errorf("kindOf(%s) = %s, want %s", tool, got, kind)
		}
	}
}

func TestTitleAndFence(t *testing.T) {
	if got := title(tools.ReadFile, "\n\"a.go\" 1-20\n"); got != `READ_FILE "a.go" 1-20` {
		t.Errorf("title %q", got)
	}
	if got := title(tools.WriteFile, "`b.go`\n```\nx\n```"); got != "WRITE_FILE b.go" {
		t.Errorf("title %q", got)
	}
	if got := title(tools.Command, "```bash\ngo test ./...\n```"); got != "COMMAND go test ./..." {
		t.Errorf("title %q", got)
	}
	if got := title(tools.ListBackground, ""); got != tools.ListBackground {
		t.Errorf("title %q", got)
	}
	if got := fenced("a\n````\nb\n"); got != "`````\na\n````\nb\n`````" {
		t.Errorf("fenced %q", got)
	}
}

func TestModes(t *testing.T) {
	started, release := make(chan struct{}), make(chan struct{})
	var (
		mu    sync.Mutex
		modes []string // the mode each request ran in
	)
	f := &fakeApp{sess: &sessions.Session{ID: "s1"}, mode: "edits"}
	f.run = func(_ context.Context, _ event.Sink, request string) app.Result {
		mu.Lock()
		modes = append(modes, f.Approval())
		mu.Unlock()
		if request == "wait" {
			close(started)
			<-release
		}
		return app.Result{Outcome: loop.Outcome{Stop: loop.Done}}
	}
	conn, _ := serve(t, oneApp(f))
	s, err := conn.NewSession(context.Background(), sdk.NewSessionRequest{Cwd: t.TempDir(), McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	if s.Modes == nil || s.Modes.CurrentModeId != "edits" || len(s.Modes.AvailableModes) != 4 || s.Modes.AvailableModes[3].Id != "plan" ||
		s.Modes.AvailableModes[3].Description == nil {
		t.Fatalf("modes %+v", s.Modes)
	}
	if _, err := conn.SetSessionMode(context.Background(), sdk.SetSessionModeRequest{SessionId: "s1", ModeId: "plan"}); err != nil || f.Approval() != "plan" {
		t.Fatalf("set plan: %v, mode %q", err, f.Approval())
	}
	var re *sdk.RequestError
	if _, err := conn.SetSessionMode(context.Background(), sdk.SetSessionModeRequest{SessionId: "s1", ModeId: "yolo"}); !errors.As(err, &re) || !strings.Contains(re.Message, "auto, edits, ask, plan") {
		t.Errorf("an unknown mode: %v", err)
	}
	// A mode chosen while a prompt runs applies from the next prompt.
	done := make(chan error, 1)
	go func() {
		_, err := conn.Prompt(context.Background(), sdk.PromptRequest{SessionId: "s1", Prompt: []sdk.ContentBlock{sdk.TextBlock("wait")}})
		done <- err
	}()
	<-started
	if _, err := conn.SetSessionMode(context.Background(), sdk.SetSessionModeRequest{SessionId: "s1", ModeId: "auto"}); err != nil {
		t.Fatal(err)
	}
	if f.Approval() != "plan" {
		t.Errorf("the mode changed under the running prompt: %q", f.Approval())
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Prompt(context.Background(), sdk.PromptRequest{SessionId: "s1", Prompt: []sdk.ContentBlock{sdk.TextBlock("next")}}); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if strings.Join(modes, ",") != "plan,auto" {
		t.Errorf("the requests ran in %v, want plan then auto", modes)
	}
}
