package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/devagent/dev/llm/llmtest"
)

// editor is dev acp driven as an editor drives it: over its stdin and
// stdout, with the protocol library's client side. It records the session
// updates dev sends, answers permission requests with the option it is
// told to choose, and keeps every JSON-RPC line both ways.
type editor struct {
	t    *testing.T
	cmd  *exec.Cmd
	conn *sdk.ClientSideConnection
	done chan struct{} // closed when dev has exited
	code int
	in   io.WriteCloser // dev's stdin

	stderr syncBuffer
	wire   wireLog

	mu          sync.Mutex
	updates     []sdk.SessionNotification
	permissions []sdk.RequestPermissionRequest
	choose      sdk.PermissionOptionKind // the kind of option permission requests get
}

// startEditor starts dev acp with args in w's project directory and
// initializes the connection.
func (w *world) startEditor(args ...string) *editor {
	w.t.Helper()
	t := w.t.(*testing.T)
	e := &editor{t: t, done: make(chan struct{}), choose: sdk.PermissionOptionKindAllowOnce}
	cmd, _, _ := w.command(context.Background(), append([]string{"acp"}, args...)...)
	cmd.Stdout, cmd.Stderr = nil, &e.stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	e.in, e.cmd = in, cmd
	e.conn = sdk.NewClientSideConnection(e, e.wire.tee("→", in), e.wire.reader("←", out))
	go func() {
		err := cmd.Wait()
		var exit interface{ ExitCode() int }
		if errors.As(err, &exit) {
			e.code = exit.ExitCode()
		}
		close(e.done)
	}()
	t.Cleanup(func() {
		in.Close()
		select {
		case <-e.done:
		case <-time.After(30 * time.Second):
			cmd.Process.Kill()
			<-e.done
			t.Errorf("dev acp did not end when its stdin closed; stderr:\n%s", e.stderr.String())
		}
		if t.Failed() {
			t.Logf("the exchange:\n%s\nstderr:\n%s", e.wire.String(), e.stderr.String())
		}
	})
	resp, err := e.conn.Initialize(e.ctx(), sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber})
	if err != nil {
		t.Fatalf("initialize: %v", err)
	}
	if resp.ProtocolVersion != sdk.ProtocolVersionNumber || !resp.AgentCapabilities.LoadSession ||
		!resp.AgentCapabilities.PromptCapabilities.EmbeddedContext || resp.AgentInfo == nil || resp.AgentInfo.Name != "dev" || resp.AgentInfo.Version == "" {
		t.Fatalf("initialize answered %+v", resp)
	}
	return e
}

// ctx bounds one call to dev.
func (e *editor) ctx() context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	e.t.Cleanup(cancel)
	return ctx
}

// newSession opens a session in dir.
func (e *editor) newSession(dir string) sdk.SessionId {
	e.t.Helper()
	resp, err := e.conn.NewSession(e.ctx(), sdk.NewSessionRequest{Cwd: dir, McpServers: []sdk.McpServer{}})
	if err != nil {
		e.t.Fatalf("session/new: %v", err)
	}
	return resp.SessionId
}

// prompt sends text as the prompt of session id and waits for its answer.
func (e *editor) prompt(id sdk.SessionId, text string) (sdk.PromptResponse, error) {
	return e.conn.Prompt(e.ctx(), sdk.PromptRequest{SessionId: id, Prompt: []sdk.ContentBlock{sdk.TextBlock(text)}})
}

// SessionUpdate implements sdk.Client.
func (e *editor) SessionUpdate(_ context.Context, n sdk.SessionNotification) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.updates = append(e.updates, n)
	return nil
}

// RequestPermission implements sdk.Client: the option of the kind chosen.
func (e *editor) RequestPermission(_ context.Context, p sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.permissions = append(e.permissions, p)
	for _, o := range p.Options {
		if o.Kind == e.choose {
			return sdk.RequestPermissionResponse{Outcome: sdk.NewRequestPermissionOutcomeSelected(o.OptionId)}, nil
		}
	}
	return sdk.RequestPermissionResponse{Outcome: sdk.NewRequestPermissionOutcomeCancelled()}, nil
}

var errNotOffered = errors.New("this editor offers no files or terminals")

func (e *editor) ReadTextFile(context.Context, sdk.ReadTextFileRequest) (sdk.ReadTextFileResponse, error) {
	return sdk.ReadTextFileResponse{}, errNotOffered
}
func (e *editor) WriteTextFile(context.Context, sdk.WriteTextFileRequest) (sdk.WriteTextFileResponse, error) {
	return sdk.WriteTextFileResponse{}, errNotOffered
}
func (e *editor) CreateTerminal(context.Context, sdk.CreateTerminalRequest) (sdk.CreateTerminalResponse, error) {
	return sdk.CreateTerminalResponse{}, errNotOffered
}
func (e *editor) KillTerminal(context.Context, sdk.KillTerminalRequest) (sdk.KillTerminalResponse, error) {
	return sdk.KillTerminalResponse{}, errNotOffered
}
func (e *editor) TerminalOutput(context.Context, sdk.TerminalOutputRequest) (sdk.TerminalOutputResponse, error) {
	return sdk.TerminalOutputResponse{}, errNotOffered
}
func (e *editor) ReleaseTerminal(context.Context, sdk.ReleaseTerminalRequest) (sdk.ReleaseTerminalResponse, error) {
	return sdk.ReleaseTerminalResponse{}, errNotOffered
}
func (e *editor) WaitForTerminalExit(context.Context, sdk.WaitForTerminalExitRequest) (sdk.WaitForTerminalExitResponse, error) {
	return sdk.WaitForTerminalExitResponse{}, errNotOffered
}

// received are the updates of session id so far.
func (e *editor) received(id sdk.SessionId) []sdk.SessionUpdate {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []sdk.SessionUpdate
	for _, n := range e.updates {
		if n.SessionId == id {
			out = append(out, n.Update)
		}
	}
	return out
}

// close closes dev's stdin, as an editor closing the pipe, and waits for
// dev to end; it returns dev's exit code.
func (e *editor) close() int {
	e.t.Helper()
	e.in.Close()
	return e.wait()
}

// wait waits for dev to end and returns its exit code.
func (e *editor) wait() int {
	e.t.Helper()
	select {
	case <-e.done:
	case <-time.After(30 * time.Second):
		e.t.Fatalf("dev acp did not end when its stdin closed; stderr:\n%s", e.stderr.String())
	}
	return e.code
}

// The updates of one kind.
func toolCalls(us []sdk.SessionUpdate) []*sdk.SessionUpdateToolCall {
	var out []*sdk.SessionUpdateToolCall
	for _, u := range us {
		if u.ToolCall != nil {
			out = append(out, u.ToolCall)
		}
	}
	return out
}

func toolUpdates(us []sdk.SessionUpdate, id sdk.ToolCallId) []*sdk.SessionToolCallUpdate {
	var out []*sdk.SessionToolCallUpdate
	for _, u := range us {
		if u.ToolCallUpdate != nil && u.ToolCallUpdate.ToolCallId == id {
			out = append(out, u.ToolCallUpdate)
		}
	}
	return out
}

// texts joins the text of the chunks of one kind: "message", "thought" or
// "user".
func texts(us []sdk.SessionUpdate, kind string) string {
	var b strings.Builder
	for _, u := range us {
		var c *sdk.ContentBlock
		switch {
		case kind == "message" && u.AgentMessageChunk != nil:
			c = &u.AgentMessageChunk.Content
		case kind == "thought" && u.AgentThoughtChunk != nil:
			c = &u.AgentThoughtChunk.Content
		case kind == "user" && u.UserMessageChunk != nil:
			c = &u.UserMessageChunk.Content
		}
		if c != nil && c.Text != nil {
			b.WriteString(c.Text.Text)
		}
	}
	return b.String()
}

// wireLog keeps the JSON-RPC lines of a connection, both ways, in order.
type wireLog struct {
	mu    sync.Mutex
	lines []string
}

func (l *wireLog) add(dir string, line []byte) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, dir+" "+strings.TrimRight(string(line), "\n"))
}

func (l *wireLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n")
}

// received are the lines dev wrote.
func (l *wireLog) fromDev() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, s := range l.lines {
		if line, ok := strings.CutPrefix(s, "← "); ok {
			out = append(out, line)
		}
	}
	return out
}

// tee records what is written to w, a line per write (the library writes
// one message per write).
func (l *wireLog) tee(dir string, w io.Writer) io.Writer {
	return writerFunc(func(p []byte) (int, error) {
		l.add(dir, p)
		return w.Write(p)
	})
}

// reader records the lines read from r.
func (l *wireLog) reader(dir string, r io.Reader) io.Reader {
	pr, pw := io.Pipe()
	go func() {
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			l.add(dir, sc.Bytes())
			if _, err := pw.Write(append(sc.Bytes(), '\n')); err != nil {
				return
			}
		}
		pw.CloseWithError(sc.Err())
	}()
	return pr
}

type writerFunc func(p []byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// checkOnlyProtocol fails unless every line dev wrote on stdout is a
// JSON-RPC 2.0 message.
func (e *editor) checkOnlyProtocol() {
	e.t.Helper()
	lines := e.wire.fromDev()
	if len(lines) == 0 {
		e.t.Fatal("dev wrote nothing on stdout")
	}
	for _, l := range lines {
		var m struct {
			JSONRPC string `json:"jsonrpc"`
		}
		if err := json.Unmarshal([]byte(l), &m); err != nil || m.JSONRPC != "2.0" {
			e.t.Errorf("stdout carries a line that is not a protocol message: %q", l)
		}
	}
}

// saveExchange writes the exchange to $DEV_ACP_EXCHANGE when set, one
// JSON-RPC message a line in the order they went (a request with a method
// is the editor's, a result or session/update dev's): the recording of one
// edit, for the documentation.
func (e *editor) saveExchange() {
	path := os.Getenv("DEV_ACP_EXCHANGE")
	if path == "" {
		return
	}
	var b strings.Builder
	for _, l := range strings.Split(e.wire.String(), "\n") {
		_, msg, _ := strings.Cut(l, " ")
		b.WriteString(msg + "\n")
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		e.t.Error(err)
	}
}

func TestACPEdit(t *testing.T) {
	w := newWorld(t, map[string]any{"audit": "off"})
	w.write("greet.txt", "hello\nworld\n")
	w.srv.Script(
		llmtest.Response{Content: "# Agent Response\n\n## Thoughts\nThe greeting should say hi.\n\n## Task List\n[~] change the greeting\n\n" +
			"## Tool Choice\nFIND_AND_REPLACE_IN_FILE\n\n## Tool Input\ngreet.txt\n```find\nhello\n```\n```replace\nhi\n```\n"},
		reply("Changed.", "DONE", "greet.txt now says hi."),
	)
	e := w.startEditor()
	id := e.newSession(w.dir)
	resp, err := e.prompt(id, "say hi in greet.txt")
	if err != nil {
		t.Fatalf("session/prompt: %v", err)
	}
	if resp.StopReason != sdk.StopReasonEndTurn {
		t.Errorf("stop reason %q, want end_turn", resp.StopReason)
	}
	if got := w.read("greet.txt"); got != "hi\nworld\n" {
		t.Errorf("greet.txt = %q", got)
	}
	us := e.received(id)
	if th := texts(us, "thought"); !strings.Contains(th, "The greeting should say hi.") {
		t.Errorf("thoughts %q", th)
	}
	var plan *sdk.SessionUpdatePlan
	for _, u := range us {
		if u.Plan != nil {
			plan = u.Plan
		}
	}
	if plan == nil || len(plan.Entries) != 1 || plan.Entries[0].Content != "change the greeting" || plan.Entries[0].Status != sdk.PlanEntryStatusInProgress {
		t.Errorf("plan %+v", plan)
	}
	calls := toolCalls(us)
	if len(calls) != 1 {
		t.Fatalf("tool calls %+v, want the edit only (DONE is the answer)", calls)
	}
	c := calls[0]
	path := filepath.Join(w.dir, "greet.txt")
	if c.Kind != sdk.ToolKindEdit || len(c.Locations) != 1 || c.Locations[0].Path != path || !strings.Contains(c.Title, "greet.txt") {
		t.Errorf("tool call %+v", c)
	}
	ups := toolUpdates(us, c.ToolCallId)
	if len(ups) == 0 {
		t.Fatal("no tool_call_update for the edit")
	}
	last := ups[len(ups)-1]
	if last.Status == nil || *last.Status != sdk.ToolCallStatusCompleted {
		t.Errorf("the edit's status: %+v", last.Status)
	}
	var diff *sdk.ToolCallContentDiff
	for _, content := range last.Content {
		if content.Diff != nil {
			diff = content.Diff
		}
	}
	if diff == nil || diff.Path != path || diff.OldText == nil || *diff.OldText != "hello\nworld\n" || diff.NewText != "hi\nworld\n" {
		t.Errorf("the edit's diff content: %+v", diff)
	}
	if msg := texts(us, "message"); msg != "greet.txt now says hi." {
		t.Errorf("agent message %q, want the DONE summary", msg)
	}
	// The editor's session is dev's: stored under its id, done.
	s := w.onlySession()
	if s.ID != string(id) || s.Status != "complete" || s.WorkingDirectory != w.dir {
		t.Errorf("session %s: %s in %s", s.ID, s.Status, s.WorkingDirectory)
	}
	e.checkOnlyProtocol()
	if code := e.close(); code != 0 {
		t.Errorf("exit code %d after the editor closed the pipe", code)
	}
	e.saveExchange()
}

func TestACPApprovalRejectedInTheEditor(t *testing.T) {
	w := newWorld(t, map[string]any{"audit": "off", "approval": "ask"})
	w.srv.Script(
		reply("Write the notes.", "WRITE_FILE", "notes.txt\n```\nsecret plan\n```"),
		done("The user did not want notes.txt; nothing written."),
	)
	e := w.startEditor()
	e.choose = sdk.PermissionOptionKindRejectOnce
	id := e.newSession(w.dir)
	resp, err := e.prompt(id, "write notes.txt")
	if err != nil || resp.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("session/prompt: %+v, %v", resp, err)
	}
	if _, err := os.Stat(filepath.Join(w.dir, "notes.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("notes.txt was written although the editor rejected it: %v", err)
	}
	e.mu.Lock()
	perms := e.permissions
	e.mu.Unlock()
	if len(perms) != 1 {
		t.Fatalf("permission requests %+v, want one", perms)
	}
	p := perms[0]
	kinds := map[sdk.PermissionOptionKind]bool{}
	for _, o := range p.Options {
		kinds[o.Kind] = true
	}
	if !kinds[sdk.PermissionOptionKindAllowOnce] || !kinds[sdk.PermissionOptionKindAllowAlways] || !kinds[sdk.PermissionOptionKindRejectOnce] || len(p.Options) != 3 {
		t.Errorf("options %+v: want allow once, allow always and reject", p.Options)
	}
	calls := toolCalls(e.received(id))
	if len(calls) != 1 || p.ToolCall.ToolCallId != calls[0].ToolCallId || p.SessionId != id {
		t.Errorf("the permission asks about %q, the tool calls are %+v", p.ToolCall.ToolCallId, calls)
	}
	var diff *sdk.ToolCallContentDiff
	for _, c := range p.ToolCall.Content {
		if c.Diff != nil {
			diff = c.Diff
		}
	}
	if diff == nil || diff.Path != filepath.Join(w.dir, "notes.txt") || diff.OldText != nil || diff.NewText != "secret plan\n" {
		t.Errorf("the question's diff: %+v", diff)
	}
	ups := toolUpdates(e.received(id), calls[0].ToolCallId)
	if len(ups) == 0 || ups[len(ups)-1].Status == nil || *ups[len(ups)-1].Status != sdk.ToolCallStatusFailed {
		t.Errorf("the rejected write's updates: %+v", ups)
	}
	reqs := w.srv.Requests()
	if len(reqs) != 2 || !strings.Contains(lastUser(reqs[1]), "did not allow") {
		t.Errorf("the model was not told of the refusal: %q", lastUser(reqs[len(reqs)-1]))
	}
}

func TestACPServerDown(t *testing.T) {
	w := newWorld(t, map[string]any{"apiUrl": "http://127.0.0.1:1/v1"})
	e := w.startEditor()
	id := e.newSession(w.dir)
	start := time.Now()
	_, err := e.prompt(id, "anything")
	var re *sdk.RequestError
	if !errors.As(err, &re) || !strings.Contains(re.Message, "cannot reach the model server at http://127.0.0.1:1/v1") {
		t.Fatalf("session/prompt answered %v: want an error that says the server cannot be reached", err)
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("the error took %s", d)
	}
	// The session stays usable: the editor may fix the server and prompt again.
	if s := w.onlySession(); s.ID != string(id) || s.Status != "failed" {
		t.Errorf("session %s: %s", s.ID, s.Status)
	}
	e.checkOnlyProtocol()
}

func TestACPSameRequestsAsPrint(t *testing.T) {
	w := newWorld(t, map[string]any{"audit": "off"})
	w.write("a.txt", "alpha\n")
	script := []llmtest.Response{reply("Read it.", "READ_FILE", "a.txt"), done("a.txt says alpha.")}
	w.srv.Script(script...)
	w.run("-p", "what does a.txt say?").expect(t, 0)
	printed := w.srv.Requests()
	w.srv.Script(script...)
	e := w.startEditor()
	id := e.newSession(w.dir)
	if resp, err := e.prompt(id, "what does a.txt say?"); err != nil || resp.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("session/prompt: %+v, %v", resp, err)
	}
	all := w.srv.Requests()
	edited := all[len(printed):]
	if len(printed) != 2 || len(edited) != 2 {
		t.Fatalf("%d requests under -p, %d through ACP; want 2 each", len(printed), len(edited))
	}
	for i := range printed {
		a, _ := json.Marshal(printed[i].Raw)
		b, _ := json.Marshal(edited[i].Raw)
		if string(a) != string(b) {
			t.Errorf("request %d differs:\n-p:  %s\nACP: %s", i+1, a, b)
		}
	}
}

func TestACPLoadSession(t *testing.T) {
	w := newWorld(t, map[string]any{"audit": "off"})
	w.write("a.txt", "alpha\n")
	// Started in the terminal…
	w.srv.Script(reply("Read it.", "READ_FILE", "a.txt"), done("a.txt says alpha."))
	w.run("-p", "what does a.txt say?").expect(t, 0)
	id := sdk.SessionId(w.onlySession().ID)

	// …loaded in the editor: the conversation is replayed before the answer.
	e := w.startEditor()
	if _, err := e.conn.LoadSession(e.ctx(), sdk.LoadSessionRequest{SessionId: id, Cwd: w.dir, McpServers: []sdk.McpServer{}}); err != nil {
		t.Fatalf("session/load: %v", err)
	}
	us := e.received(id)
	if got := texts(us, "user"); got != "what does a.txt say?" {
		t.Errorf("the request replayed: %q", got)
	}
	if got := texts(us, "thought"); got != "Read it.All done." {
		t.Errorf("the thoughts replayed: %q", got)
	}
	if got := texts(us, "message"); got != "a.txt says alpha." {
		t.Errorf("the answer replayed: %q", got)
	}
	calls := toolCalls(us)
	if len(calls) != 1 || calls[0].Kind != sdk.ToolKindRead || len(calls[0].Locations) != 1 || calls[0].Locations[0].Path != filepath.Join(w.dir, "a.txt") {
		t.Fatalf("the tool calls replayed: %+v", calls)
	}
	ups := toolUpdates(us, calls[0].ToolCallId)
	if len(ups) != 1 || *ups[0].Status != sdk.ToolCallStatusCompleted || len(ups[0].Content) != 1 || !strings.Contains(ups[0].Content[0].Content.Content.Text.Text, "alpha") {
		t.Errorf("the read's result replayed: %+v", ups)
	}

	// The conversation goes on in the editor, with what came before.
	w.srv.Script(done("Still alpha."))
	if resp, err := e.prompt(id, "and now?"); err != nil || resp.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("session/prompt: %+v, %v", resp, err)
	}
	reqs := w.srv.Requests()
	if last := allContent(reqs[len(reqs)-1]); !strings.Contains(last, "what does a.txt say?") || !strings.Contains(last, "and now?") {
		t.Errorf("the editor's request did not go on from the terminal's:\n%s", last)
	}
	// While the editor holds it, the terminal cannot open it…
	w.run("--resume", "-p", "me too").expect(t, 2)
	if code := e.close(); code != 0 {
		t.Errorf("exit code %d", code)
	}
	// …and back in the terminal once the editor let it go.
	w.srv.Script(done("Alpha, as before."))
	w.run("--resume", "-p", "once more").expect(t, 0)
	reqs = w.srv.Requests()
	if last := allContent(reqs[len(reqs)-1]); !strings.Contains(last, "and now?") || !strings.Contains(last, "once more") {
		t.Errorf("the terminal did not go on from the editor's request:\n%s", last)
	}
	if s := w.onlySession(); string(id) != s.ID || s.Status != "complete" {
		t.Errorf("session %s: %s", s.ID, s.Status)
	}
}

func TestACPLoadUnknownSession(t *testing.T) {
	w := newWorld(t, nil)
	e := w.startEditor()
	_, err := e.conn.LoadSession(e.ctx(), sdk.LoadSessionRequest{SessionId: "0b7c5a4e-0000-4000-8000-000000000000", Cwd: w.dir, McpServers: []sdk.McpServer{}})
	var re *sdk.RequestError
	if !errors.As(err, &re) || !strings.Contains(re.Message, "0b7c5a4e-0000-4000-8000-000000000000") {
		t.Fatalf("session/load of no session: %v", err)
	}
	if n := len(w.sessions()); n != 0 {
		t.Errorf("%d sessions stored: loading one that does not exist created it", n)
	}
}

func TestACPModes(t *testing.T) {
	w := newWorld(t, map[string]any{"audit": "off", "approval": "edits"})
	w.srv.Script(reply("Write it.", "WRITE_FILE", "plan.txt\n```\nx\n```"), done("The plan: write plan.txt."))
	e := w.startEditor()
	resp, err := e.conn.NewSession(e.ctx(), sdk.NewSessionRequest{Cwd: w.dir, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, m := range resp.Modes.AvailableModes {
		ids = append(ids, string(m.Id))
	}
	if resp.Modes.CurrentModeId != "edits" || strings.Join(ids, ",") != "auto,edits,ask,plan" {
		t.Fatalf("modes %+v: want the approval modes, edits in force", resp.Modes)
	}
	if _, err := e.conn.SetSessionMode(e.ctx(), sdk.SetSessionModeRequest{SessionId: resp.SessionId, ModeId: "plan"}); err != nil {
		t.Fatal(err)
	}
	if r, err := e.prompt(resp.SessionId, "plan it"); err != nil || r.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("session/prompt: %+v, %v", r, err)
	}
	if _, err := os.Stat(filepath.Join(w.dir, "plan.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("plan mode wrote plan.txt: %v", err)
	}
	reqs := w.srv.Requests()
	if !strings.Contains(lastUser(reqs[len(reqs)-1]), "plan mode") {
		t.Errorf("the model was not told of plan mode: %q", lastUser(reqs[len(reqs)-1]))
	}
}
