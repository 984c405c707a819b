package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/devagent/dev/procgroup"
	"github.com/devagent/dev/shell"
)

// Server is one configured MCP server and what became of it.
type Server struct {
	Name      string
	Transport string // Stdio or HTTP
	// Target is what is started or reached: the command line, or the URL.
	// Headers and the environment are left out: they often hold tokens.
	Target string

	cfg    ServerConfig
	stderr *stderrLog // stdio only

	// Set by start, read only afterwards.
	err            error
	info           string // the server's name and version, as it gave them
	tools          []*Tool
	skipped        []string // warnings about tools left out
	session        *sdk.ClientSession
	proc           *procgroup.Group // stdio
	http           *http.Transport  // Streamable HTTP: its connections are closed with the server
	answers        *answerCheck     // Streamable HTTP: what was wrong with its last answer
	grace          time.Duration
	connectTimeout time.Duration

	closeOnce sync.Once
	closeErr  error
}

func newServer(cfg ServerConfig, mirror io.Writer) *Server {
	s := &Server{Name: cfg.Name, cfg: cfg}
	if cfg.URL != "" {
		s.Transport, s.Target = HTTP, cfg.URL
	} else {
		s.Transport, s.Target = Stdio, commandLine(cfg.Command, cfg.Args)
		s.stderr = newStderrLog(cfg.Name, mirror)
	}
	return s
}

// Err is why the server could not start, nil when it is connected or
// disabled.
func (s *Server) Err() error { return s.err }

// States of a server, as State reports them.
const (
	Connected = "connected"
	Failed    = "failed"
	Disabled  = "disabled"
)

// State is Connected, Failed or Disabled.
func (s *Server) State() string {
	switch {
	case s.cfg.Disabled:
		return Disabled
	case s.Connected():
		return Connected
	}
	return Failed
}

// Connected reports whether the server started and listed its tools.
func (s *Server) Connected() bool { return s.err == nil && s.session != nil }

// Info is the name and version the server gave for itself ("" when it did
// not connect).
func (s *Server) Info() string { return s.info }

// Tools lists the server's tools, in the order it gave them.
func (s *Server) Tools() []*Tool { return s.tools }

// Stderr is the end of what a stdio server wrote on its stderr (at most
// StderrKept bytes); "" for HTTP servers.
func (s *Server) Stderr() string {
	if s.stderr == nil {
		return ""
	}
	return s.stderr.String()
}

// start connects and lists the tools within ctx's deadline; on failure it
// leaves nothing running and records why.
func (s *Server) start(ctx context.Context, opts Options) {
	s.grace, s.connectTimeout = opts.grace, opts.ConnectTimeout
	transport, err := s.transport(opts)
	if err != nil {
		s.err = err
		return
	}
	client := sdk.NewClient(&sdk.Implementation{Name: opts.ClientName, Version: opts.ClientVersion}, nil)
	session, err := client.Connect(ctx, transport, nil)
	if err != nil {
		s.fail(ctx, err)
		return
	}
	s.session = session
	if res := session.InitializeResult(); res != nil && res.ServerInfo != nil {
		s.info = strings.TrimSpace(res.ServerInfo.Name + " " + res.ServerInfo.Version)
	}
	seen := map[string]bool{}
	for t, err := range session.Tools(ctx, nil) {
		if err != nil {
			s.fail(ctx, fmt.Errorf("listing its tools: %w", err))
			return
		}
		switch {
		case !validToolName.MatchString(t.Name):
			s.skipped = append(s.skipped, fmt.Sprintf("MCP tool %q of server %q is left out: a tool name has 1 to 128 letters, digits, '_', '-' or '.'", t.Name, s.Name))
		case seen[t.Name]:
			s.skipped = append(s.skipped, fmt.Sprintf("MCP server %q lists the tool %q twice; the first one is used", s.Name, t.Name))
		default:
			seen[t.Name] = true
			s.tools = append(s.tools, newTool(s, t))
		}
	}
}

// validToolName is the MCP specification's tool name (2025-11-25): it is
// also what keeps SERVER.TOOL one word under `## Tool Choice`.
var validToolName = regexp.MustCompile(`^[A-Za-z0-9_.\-]{1,128}$`)

// transport expands the configuration's variables and prepares the
// connection: for stdio, the process is started here.
func (s *Server) transport(opts Options) (sdk.Transport, error) {
	x := expander{getenv: opts.Getenv}
	if s.Transport == HTTP {
		url := x.expand(s.cfg.URL, "url")
		headers := map[string]string{}
		for k, v := range s.cfg.Headers {
			headers[k] = x.expand(v, "headers."+k)
		}
		if x.err != nil {
			return nil, x.err
		}
		s.http, s.answers = newHTTPTransport(), &answerCheck{}
		return &sdk.StreamableClientTransport{
			Endpoint:   url,
			HTTPClient: &http.Client{Transport: &headerTransport{headers: headers, base: s.http, last: s.answers}},
			// dev asks and the server answers; a standing stream for
			// server-initiated messages would only be one more thing
			// to keep alive and to close.
			DisableStandaloneSSE: true,
			// A call is bounded by commandTimeout; do not spend it
			// reconnecting to a server that went away.
			MaxRetries: -1,
		}, nil
	}
	command := x.expand(s.cfg.Command, "command")
	args := make([]string, len(s.cfg.Args))
	for i, a := range s.cfg.Args {
		args[i] = x.expand(a, fmt.Sprintf("args[%d]", i))
	}
	var env []string
	for k, v := range s.cfg.Env {
		env = append(env, k+"="+x.expand(v, "env."+k))
	}
	if x.err != nil {
		return nil, x.err
	}
	p, t, err := startProcess(command, args, env, opts.Dir, opts.Sandbox, s.stderr)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err // exec repeats the path
		}
		return nil, fmt.Errorf("cannot start %s: %w", commandLine(command, args), err)
	}
	s.proc = p
	return t, nil
}

// fail records why the start failed, after stopping what was started, so
// that the reason can include how the process ended and what it said.
func (s *Server) fail(ctx context.Context, err error) {
	timedOut := errors.Is(ctx.Err(), context.DeadlineExceeded)
	// A process that ends by itself ends within the grace; it is asked to
	// only after that.
	exited := !timedOut && s.proc != nil && s.proc.Wait(s.grace)
	_ = s.close()
	switch {
	case timedOut:
		s.err = fmt.Errorf("no answer within %s (the connect timeout)%s", seconds(s.connectTimeout), s.stderrNote())
	case exited && (s.proc.ExitCode() != 0 || errors.Is(err, io.EOF) || errors.Is(err, sdk.ErrConnectionClosed)):
		s.err = fmt.Errorf("it exited during start (%s)%s", s.proc.State(), s.stderrNote())
	case s.answers != nil && s.answers.get() != nil:
		s.err = fmt.Errorf("%s %w", s.Target, s.answers.get())
	default:
		s.err = fmt.Errorf("%s%s", describe(err), s.stderrNote())
	}
	s.session = nil
	s.tools = nil
}

// callError explains a failed call; timeout is the call's limit.
func (s *Server) callError(ctx context.Context, tool string, timeout time.Duration, err error) error {
	name := s.Name + "." + tool
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return &CallError{Err: context.DeadlineExceeded,
			Message: fmt.Sprintf("%s: no answer from MCP server %q within %s; the call was cancelled", name, s.Name, seconds(timeout))}
	case errors.Is(ctx.Err(), context.Canceled):
		return &CallError{Err: context.Canceled, Message: fmt.Sprintf("%s: the call was interrupted", name)}
	}
	var wire *jsonrpc.Error
	if errors.As(err, &wire) {
		return &CallError{Err: err, Message: fmt.Sprintf("%s: MCP server %q refused the call: %s", name, s.Name, wire.Message)}
	}
	var syn *json.SyntaxError
	if errors.As(err, &syn) {
		// The SDK stops reading at the first message it cannot decode:
		// the connection is of no more use.
		return &CallError{Err: errors.Join(ErrServerGone, err),
			Message: fmt.Sprintf("%s: MCP server %q sent something that is not JSON-RPC (%s); its tools are unavailable until dev restarts%s", name, s.Name, syn.Error(), s.stderrNote())}
	}
	if s.proc != nil && s.proc.Wait(s.grace) {
		return &CallError{Err: ErrServerGone,
			Message: fmt.Sprintf("%s: MCP server %q is no longer running (%s); its tools are unavailable until dev restarts%s", name, s.Name, s.proc.State(), s.stderrNote())}
	}
	if errors.Is(err, sdk.ErrConnectionClosed) {
		return &CallError{Err: ErrServerGone,
			Message: fmt.Sprintf("%s: the connection to MCP server %q is closed (%s); its tools are unavailable until dev restarts%s", name, s.Name, describe(err), s.stderrNote())}
	}
	return &CallError{Err: err, Message: fmt.Sprintf("%s: the call to MCP server %q failed: %s%s", name, s.Name, describe(err), s.stderrNote())}
}

// ErrServerGone is the cause of a CallError when the server has exited or
// its connection is closed.
var ErrServerGone = errors.New("MCP server gone")

// CallError is a call that got no result: Message is written for the model;
// Err is the cause (context.DeadlineExceeded, context.Canceled,
// ErrServerGone, or what the SDK said).
type CallError struct {
	Message string
	Err     error
}

func (e *CallError) Error() string { return e.Message }
func (e *CallError) Unwrap() error { return e.Err }

// stderrNote quotes the end of the server's stderr, for an error message.
func (s *Server) stderrNote() string {
	if s.stderr == nil {
		return ""
	}
	last := s.stderr.lastLines(stderrQuotedLines, stderrQuotedBytes)
	if last == "" {
		return ""
	}
	return "; its stderr ends with:\n" + last
}

const (
	stderrQuotedLines = 5
	stderrQuotedBytes = 1000
)

// describe shortens the SDK's errors to what a user can act on.
func describe(err error) string {
	var wire *jsonrpc.Error
	if errors.As(err, &wire) {
		return wire.Message
	}
	var syn *json.SyntaxError
	if errors.As(err, &syn) {
		return "it sent something that is not JSON-RPC (" + syn.Error() + ")"
	}
	return sdkSteps.ReplaceAllString(err.Error(), "")
}

// sdkSteps are the steps the SDK's errors list before the cause, which say
// nothing to a user: `connection closed: calling "initialize": client is
// closing: sending "server/discover": unsupported content type "text/html"`.
var sdkSteps = regexp.MustCompile(`(connection closed|client is closing|(calling|sending) "[^"]+"): `)

// close ends the session and stops the process; it waits for both.
func (s *Server) close() error {
	s.closeOnce.Do(func() {
		var errs []error
		if s.session != nil {
			// The error of closing a session whose server already
			// went away says nothing new.
			_ = s.session.Close()
		}
		if s.proc != nil {
			errs = append(errs, stopProcess(s.proc, s.grace))
		}
		if s.http != nil {
			s.http.CloseIdleConnections()
		}
		s.closeErr = errors.Join(errs...)
	})
	return s.closeErr
}

// commandLine writes a command and its arguments as a shell would show
// them, for people.
func commandLine(command string, args []string) string {
	parts := []string{shell.Quote(command)}
	for _, a := range args {
		parts = append(parts, shell.Quote(a))
	}
	return strings.Join(parts, " ")
}

// seconds writes a duration as whole seconds, or milliseconds below one.
func seconds(d time.Duration) string {
	if d < time.Second {
		return fmt.Sprintf("%d ms", d.Milliseconds())
	}
	return fmt.Sprintf("%d s", int(d.Round(time.Second).Seconds()))
}
