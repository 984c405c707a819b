// Package acp is dev inside an editor: the Agent Client Protocol (JSON-RPC
// over stdin and stdout, SPEC §20) through github.com/coder/acp-go-sdk.
// The editor opens sessions in a directory, sends prompts and cancels them;
// each session is a run of package app, opened as dev and dev -p open one,
// and each prompt a request run to its end. What the run emits is rendered
// as the protocol's session updates (see view), and approvals are asked
// through session/request_permission. Nothing but protocol messages is
// written to the output; logs go to the error stream.
package acp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/devagent/dev/app"
	"github.com/devagent/dev/event"
	"github.com/devagent/dev/sessions"
)

// App is what a session needs of the application layer (an *app.App).
type App interface {
	// Request turns what the user typed into the request to work on (a
	// slash command defined by a file becomes its text).
	Request(typed string) (string, error)
	Run(ctx context.Context, request string) app.Result
	Session() *sessions.Session
	// Approval is the approval mode in force; SetApproval switches it for
	// the next requests.
	Approval() string
	SetApproval(mode string) error
	// Close stops what the app started and releases the session.
	Close()
}

// OpenOptions say which run to open.
type OpenOptions struct {
	// Dir is the absolute working directory the editor gave.
	Dir string
	// SessionID names a stored session to resume (session/load): it is an
	// error when there is none. "" opens a new session.
	SessionID string
	// Sink receives the run's events; Approve asks the user about what
	// needs approval.
	Sink    event.Sink
	Approve func(ctx context.Context, q app.Approval) (app.Answer, error)
}

// Options are what Serve needs.
type Options struct {
	In  io.Reader // the editor's requests
	Out io.Writer // protocol messages, nothing else
	Err io.Writer // logs
	// Version is dev's, told to the editor.
	Version string
	// Open opens the run of a session with the settings dev acp was
	// started with (the config, the profile, the flags).
	Open func(o OpenOptions) (App, error)
	// Modes are the approval modes, offered as the session's modes.
	Modes []string
}

// Serve speaks the protocol on o.In and o.Out until the editor closes its
// end (nil) or ctx ends (its error): either way every prompt running is
// interrupted, its session saved, and every session closed, which stops
// every process its commands started.
func Serve(ctx context.Context, o Options) error {
	s := &server{opts: o, ctx: ctx, sessions: map[string]*session{}}
	// The library starts reading the editor's requests, and handling them
	// on goroutines of its own, before NewAgentSideConnection returns; it
	// reads its logger without a lock. Nothing is read until the
	// connection is set up, so no handler sees it half made.
	ready := make(chan struct{})
	s.conn = sdk.NewAgentSideConnection(s, o.Out, gated{o.In, ready})
	// The library's own diagnostics are logs: on the error stream, and
	// only when something went wrong (it says "connection closed" at info).
	s.conn.SetLogger(slog.New(slog.NewTextHandler(o.Err, &slog.HandlerOptions{Level: slog.LevelWarn})))
	close(ready)
	var err error
	select {
	case <-s.conn.Done():
	case <-ctx.Done():
		err = ctx.Err()
	}
	s.shutdown()
	return err
}

// gated reads r once open is closed.
type gated struct {
	r    io.Reader
	open <-chan struct{}
}

func (g gated) Read(p []byte) (int, error) {
	<-g.open
	return g.r.Read(p)
}

// server is the agent side of one connection.
type server struct {
	opts Options
	conn *sdk.AgentSideConnection
	ctx  context.Context // Serve's: its end interrupts every prompt

	mu       sync.Mutex
	sessions map[string]*session
	closed   bool
	// work counts the requests being handled that use sessions: shutdown
	// waits for them before it closes the sessions.
	work sync.WaitGroup
}

// session is an editor's session: a run of app and how it is shown.
type session struct {
	app  App
	view *view
	turn sync.Mutex // one prompt at a time

	mu   sync.Mutex
	mode string // the approval mode the editor chose while a prompt ran, for the next
}

var (
	_ sdk.Agent       = (*server)(nil)
	_ sdk.AgentLoader = (*server)(nil)
)

// begin registers a request that uses sessions; false once the server is
// shutting down.
func (s *server) begin() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.work.Add(1)
	return true
}

// shutdown interrupts the prompts running (the connection's end cancels
// their contexts, and so does Serve's), waits for them to save their
// sessions, then closes every session.
func (s *server) shutdown() {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	s.work.Wait()
	s.mu.Lock()
	defer s.mu.Unlock()
	for id, sess := range s.sessions {
		sess.app.Close()
		delete(s.sessions, id)
	}
}

// errClosing answers a request that comes while dev is ending.
var errClosing = errors.New("dev is shutting down")

// Initialize implements sdk.Agent: dev's name and version, and what it
// takes: sessions loaded back, prompts of text and of resources (files
// embedded or linked).
func (s *server) Initialize(_ context.Context, _ sdk.InitializeRequest) (sdk.InitializeResponse, error) {
	return sdk.InitializeResponse{
		ProtocolVersion: sdk.ProtocolVersionNumber,
		AgentCapabilities: sdk.AgentCapabilities{
			LoadSession:        true,
			PromptCapabilities: sdk.PromptCapabilities{EmbeddedContext: true},
		},
		AgentInfo:   &sdk.Implementation{Name: "dev", Title: sdk.Ptr("dev"), Version: s.opts.Version},
		AuthMethods: []sdk.AuthMethod{},
	}, nil
}

// Authenticate implements sdk.Agent: dev offers no authentication method
// (the model server's key is in its config).
func (s *server) Authenticate(context.Context, sdk.AuthenticateRequest) (sdk.AuthenticateResponse, error) {
	return sdk.AuthenticateResponse{}, nil
}

// NewSession implements sdk.Agent: a new dev session in the directory,
// with the settings a run there would use. Its id is the session's, which
// dev --session (or dev --resume there) continues in the terminal.
func (s *server) NewSession(_ context.Context, p sdk.NewSessionRequest) (sdk.NewSessionResponse, error) {
	sess, err := s.open(p.Cwd, "")
	if err != nil {
		return sdk.NewSessionResponse{}, err
	}
	return sdk.NewSessionResponse{SessionId: sdk.SessionId(sess.app.Session().ID), Modes: s.modes(sess.app.Approval())}, nil
}

// LoadSession implements sdk.AgentLoader: a stored session resumed (one
// the terminal or an editor worked in), its conversation replayed as
// updates before the answer.
func (s *server) LoadSession(_ context.Context, p sdk.LoadSessionRequest) (sdk.LoadSessionResponse, error) {
	if string(p.SessionId) == "" {
		return sdk.LoadSessionResponse{}, invalidParams("sessionId is empty")
	}
	if _, ok := s.lookup(p.SessionId); ok {
		return sdk.LoadSessionResponse{}, invalidParams("session %s is open already", p.SessionId)
	}
	sess, err := s.open(p.Cwd, string(p.SessionId))
	if err != nil {
		return sdk.LoadSessionResponse{}, err
	}
	sess.view.replay(sess.app.Session())
	return sdk.LoadSessionResponse{Modes: s.modes(sess.app.Approval())}, nil
}

// open opens a run in dir: a new session, or the stored one id names.
func (s *server) open(dir, id string) (*session, error) {
	if !filepath.IsAbs(dir) {
		return nil, invalidParams("cwd must be an absolute path, not %q", dir)
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return nil, invalidParams("cwd %s is not a directory", dir)
	}
	if !s.begin() {
		return nil, errClosing
	}
	defer s.work.Done()
	v := newView(s.conn, s.opts.Err)
	a, err := s.opts.Open(OpenOptions{Dir: filepath.Clean(dir), SessionID: id, Sink: v, Approve: v.approve})
	if err != nil {
		return nil, failure(err.Error())
	}
	v.attach(a.Session())
	sess := &session{app: a, view: v}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sessions[a.Session().ID] = sess
	return sess, nil
}

func (s *server) lookup(id sdk.SessionId) (*session, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sess, ok := s.sessions[string(id)]
	return sess, ok
}

// Prompt implements sdk.Agent: one request run to its end. The stop
// reason says how it ended: end_turn after DONE, cancelled, max_turn_requests
// at maxLoops, refusal when the model kept failing the format (or kept
// repeating itself); a failure of the server or the machine is an error
// whose message says what to do.
func (s *server) Prompt(ctx context.Context, p sdk.PromptRequest) (sdk.PromptResponse, error) {
	sess, ok := s.lookup(p.SessionId)
	if !ok {
		return sdk.PromptResponse{}, invalidParams("no session %s: open it with session/new or session/load", p.SessionId)
	}
	typed, err := requestText(sess.app.Session().WorkingDirectory, p.Prompt)
	if err != nil {
		return sdk.PromptResponse{}, invalidParams("%v", err)
	}
	if !s.begin() {
		return sdk.PromptResponse{}, errClosing
	}
	defer s.work.Done()
	// A new prompt cancels the one before it (the library cancels its
	// context): it waits here until that one has saved its session.
	sess.turn.Lock()
	defer sess.turn.Unlock()
	if ctx.Err() != nil {
		return sdk.PromptResponse{StopReason: sdk.StopReasonCancelled}, nil
	}
	if err := sess.switchMode(); err != nil {
		return sdk.PromptResponse{}, failure(err.Error())
	}
	request, err := sess.app.Request(typed)
	if err != nil {
		return sdk.PromptResponse{}, invalidParams("%v", err)
	}
	// session/cancel and the connection's end cancel ctx; Serve's end
	// (a signal) cancels it too.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := context.AfterFunc(s.ctx, cancel)
	defer stop()
	sess.view.begin()
	res := sess.app.Run(ctx, request)
	return sess.view.end(res)
}

// The session's modes are the approval modes (SPEC §13, §17): auto,
// edits, ask and plan, as /approval and Shift+Tab switch them at the
// terminal.
var modeDescriptions = map[string]string{
	"auto":  "dev works without asking",
	"edits": "file changes are made; commands are asked about",
	"ask":   "every file change and every command is asked about",
	"plan":  "dev only reads, and answers with a plan; nothing changes",
}

// modes are the session's modes, current the one in force.
func (s *server) modes(current string) *sdk.SessionModeState {
	state := &sdk.SessionModeState{CurrentModeId: sdk.SessionModeId(current), AvailableModes: []sdk.SessionMode{}}
	for _, m := range s.opts.Modes {
		mode := sdk.SessionMode{Id: sdk.SessionModeId(m), Name: m}
		if d, ok := modeDescriptions[m]; ok {
			mode.Description = sdk.Ptr(d)
		}
		state.AvailableModes = append(state.AvailableModes, mode)
	}
	return state
}

// SetSessionMode implements sdk.Agent: the approval mode for the next
// requests. A prompt running keeps the mode it started with (its questions
// are asked by it); the mode chosen meanwhile applies from the next one.
func (s *server) SetSessionMode(_ context.Context, p sdk.SetSessionModeRequest) (sdk.SetSessionModeResponse, error) {
	sess, ok := s.lookup(p.SessionId)
	if !ok {
		return sdk.SetSessionModeResponse{}, invalidParams("no session %s", p.SessionId)
	}
	mode := string(p.ModeId)
	if !slices.Contains(s.opts.Modes, mode) {
		return sdk.SetSessionModeResponse{}, invalidParams("no mode %q: the modes are %s", mode, strings.Join(s.opts.Modes, ", "))
	}
	sess.mu.Lock()
	sess.mode = mode
	sess.mu.Unlock()
	if sess.turn.TryLock() { // no prompt runs: now
		defer sess.turn.Unlock()
		if err := sess.switchMode(); err != nil {
			return sdk.SetSessionModeResponse{}, failure(err.Error())
		}
	}
	return sdk.SetSessionModeResponse{}, nil
}

// switchMode applies the mode the editor chose last, if any; the caller
// holds the turn.
func (sess *session) switchMode() error {
	sess.mu.Lock()
	mode := sess.mode
	sess.mode = ""
	sess.mu.Unlock()
	if mode == "" || mode == sess.app.Approval() {
		return nil
	}
	return sess.app.SetApproval(mode)
}

// Cancel implements sdk.Agent: session/cancel is Ctrl+C. The library has
// cancelled the prompt's context already: the command running is stopped
// with its whole process group, the session saved, and the prompt answers
// cancelled.
func (s *server) Cancel(context.Context, sdk.CancelNotification) error { return nil }

// The methods dev does not offer (it does not advertise them).

// CloseSession implements sdk.Agent.
func (s *server) CloseSession(context.Context, sdk.CloseSessionRequest) (sdk.CloseSessionResponse, error) {
	return sdk.CloseSessionResponse{}, sdk.NewMethodNotFound(sdk.AgentMethodSessionClose)
}

// ListSessions implements sdk.Agent.
func (s *server) ListSessions(context.Context, sdk.ListSessionsRequest) (sdk.ListSessionsResponse, error) {
	return sdk.ListSessionsResponse{}, sdk.NewMethodNotFound(sdk.AgentMethodSessionList)
}

// ResumeSession implements sdk.Agent.
func (s *server) ResumeSession(context.Context, sdk.ResumeSessionRequest) (sdk.ResumeSessionResponse, error) {
	return sdk.ResumeSessionResponse{}, sdk.NewMethodNotFound(sdk.AgentMethodSessionResume)
}

// SetSessionConfigOption implements sdk.Agent.
func (s *server) SetSessionConfigOption(context.Context, sdk.SetSessionConfigOptionRequest) (sdk.SetSessionConfigOptionResponse, error) {
	return sdk.SetSessionConfigOptionResponse{}, sdk.NewMethodNotFound(sdk.AgentMethodSessionSetConfigOption)
}

// failure is an error the editor shows as it is: its message says what
// went wrong and what to do (the library would bury it in data).
func failure(msg string) *sdk.RequestError {
	return &sdk.RequestError{Code: -32603, Message: msg}
}

// invalidParams is a request the editor got wrong, said in words.
func invalidParams(format string, args ...any) *sdk.RequestError {
	return &sdk.RequestError{Code: -32602, Message: fmt.Sprintf(format, args...)}
}
