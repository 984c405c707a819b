// Package app is dev's application layer. Open turns plain values (the
// effective settings, a working directory, which session) into a run: the
// model client, old sessions pruned, the session opened, locked and
// remembered for --resume, the server asked for its context window, and the
// loop, the auditor and the compressor wired from one environment. Run works
// on one request; NewSession moves to a fresh session; Close ends what the
// app started. The app emits events and never prints; main chooses the
// renderers and maps errors to exit codes.
package app

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"time"

	"github.com/devagent/dev/audit"
	"github.com/devagent/dev/bgproc"
	"github.com/devagent/dev/capture"
	"github.com/devagent/dev/compress"
	"github.com/devagent/dev/config"
	"github.com/devagent/dev/event"
	"github.com/devagent/dev/guard"
	"github.com/devagent/dev/llm"
	"github.com/devagent/dev/loop"
	"github.com/devagent/dev/mcp"
	"github.com/devagent/dev/prompts"
	"github.com/devagent/dev/reaper"
	"github.com/devagent/dev/redact"
	"github.com/devagent/dev/sandbox"
	"github.com/devagent/dev/sessions"
	"github.com/devagent/dev/shape"
	"github.com/devagent/dev/shell"
	"github.com/devagent/dev/step"
	"github.com/devagent/dev/textfmt"
	"github.com/devagent/dev/tools"
	"github.com/devagent/dev/transcript"
)

// Size of the directory overview in the system prompt.
const (
	overviewDepth   = 2
	overviewEntries = 60
)

// Options are the plain values a run is opened from.
type Options struct {
	// Config holds the effective settings: the file, the environment and
	// the command line's flags already applied.
	Config config.Config
	// ConfigDir is the configuration directory: sessions, instructions.
	ConfigDir string
	// SessionsDir, when set, keeps the sessions there (in its sessions/)
	// instead of in ConfigDir: dev bench stores its runs' sessions with its
	// report, apart from the user's, --resume and dev stats.
	SessionsDir string
	// NoPrune leaves the sessions directory as it is at start: dev bench's
	// is new and its own, and many runs open at once in it, where each
	// one's sweep for what dead runs left would take the lock files the
	// others are creating (they wait a moment for them, not for hundreds).
	NoPrune bool
	// Dir is the absolute working directory. A resumed session keeps its
	// own unless DirGiven.
	Dir      string
	DirGiven bool
	// Automated: a -p run, where nobody answers questions.
	Automated bool
	// Resume opens the last session of Dir; SessionID opens that session,
	// or creates it with that id.
	Resume    bool
	SessionID string
	// Prompt is the request of a -p run: a new session's original prompt.
	Prompt string
	// NoAudit accepts DONE without an audit (--no-audit), whatever
	// Config.Audit says.
	NoAudit bool
	// Sink receives every event of the run.
	Sink event.Sink
	// Ask puts ASK_USER's question to the user (interactive mode). Without
	// it nobody answers the model's questions: ASK_USER is not offered, as
	// under -p.
	Ask func(ctx context.Context, question string) (string, error)
	// Approve, when set, asks the user about an action that needs approval
	// (SPEC §13) in place of Ask, with the action itself: for a client
	// that shows it (an editor). Approvals are asked when either is set,
	// except under -p.
	Approve func(ctx context.Context, q Approval) (Answer, error)
	// Live: a renderer shows work as it happens (stderr is a terminal), so
	// commands' output is passed on as it comes (event.CommandOutput).
	Live bool
	// Now is the clock; nil is time.Now.
	Now func() time.Time
	// MCPStderr, when set, receives what MCP servers print on stderr
	// (--verbose); it is kept for errors either way.
	MCPStderr io.Writer
	// Version is dev's, told to MCP servers.
	Version string
	// Reload reads the settings again with another profile (/profile);
	// nil: profiles cannot be switched.
	Reload func(profile string) (config.Config, error)
}

// App is one dev process's work in one session at a time.
type App struct {
	opts Options
	sink event.Sink // opts.Sink
	runClock
	cfg    config.Config
	store  *sessions.Store
	client *llm.Client
	window *step.Window
	bg     *bgproc.Manager

	// The safety layers of SPEC §13, from the settings.
	deny      *guard.Deny
	roots     []string            // writableRoots, absolute
	approvals guard.Approvals     // what must be asked; "always" answers
	mask      func(string) string // secret redaction; nil when off
	redactor  *redact.Redactor    // the same, for streams (saved output); nil when off
	sandbox   *sandbox.Sandbox    // nil when off; made per session
	// sandboxWarned: what the sandbox cannot do here was said.
	sandboxWarned bool

	mcp     *mcp.Set // the MCP servers, connected at start
	mcpOnce sync.Once
	tools   *tools.Registry // the worker's tools, MCP's and custom ones included

	// timeline is the checkpoints of the session worked in; nil when off.
	// checkpointsOff: they failed once this process, and stay off.
	timeline       *Timeline
	checkpointsOff bool

	// sess is the session worked in, loop works in it; both change with
	// NewSession, on the caller's goroutine only.
	sess *sessions.Session
	loop *loop.Loop
	// auditor checks the worker's DONEs (nil: audit off); applyMode
	// leaves it out in plan mode. initRun: /init's request runs.
	auditor *audit.Auditor
	initRun bool
	// held are the sessions this process opened, each locked and with the
	// record of the process groups its commands started, until Close:
	// after /new, the background processes started in an earlier session
	// still run, and no other dev may resume it and stop them.
	held []heldSession

	stopBackground func() // once

	models []string // the server's, when it listed them at start

	// known is what the run knows of the server (discovery's finding
	// first) and the model, which decides how the replies are shaped
	// (SPEC §18); the worker and the auditor share it and teach it.
	known *shape.Known
}

// Open opens the session to work in and wires the run. Its errors are the
// user's to fix (sessions.ErrNoSession, ErrInUse, ErrNotFound, ErrBadID)
// or the machine's. It emits the session and, once the server has said
// what it knows, the context window.
func Open(o Options) (*App, error) {
	if o.Sink == nil {
		o.Sink = event.Discard{}
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.NoAudit {
		o.Config.Audit = config.AuditOff
	}
	a := &App{opts: o, cfg: o.Config, store: sessions.Open(cmp.Or(o.SessionsDir, o.ConfigDir), o.Now), sink: o.Sink}
	a.store.OnWarning(a.warn)
	a.client = a.newClient()
	// The server is asked for its context window now, and the answer
	// awaited once the session is open: the probes' round trips overlap
	// opening the session and building the system prompt.
	discovery := make(chan llm.ServerInfo, 1)
	go func() { discovery <- a.client.Discover(context.Background(), a.cfg.Model) }()
	// In interactive mode the server is checked at the same time, so that
	// a server that is down or lacks the model is said before the first
	// prompt, not after the first request.
	var check chan serverCheck
	if !o.Automated {
		check = make(chan serverCheck, 1)
		go func() { check <- a.checkServer(context.Background()) }()
	}

	// MCP servers start inside the sandbox the settings ask for; where
	// the OS cannot enforce it, nothing starts.
	mcpSandbox, err := MCPSandbox(a.cfg, o.ConfigDir, o.Dir)
	if err != nil {
		return nil, err
	}
	servers := make(chan *mcp.Set, 1)
	go func() { servers <- a.connectMCP(mcpSandbox) }()
	opened := false
	defer func() {
		if !opened { // the servers are the app's to close: there is no app
			if set := <-servers; set != nil {
				_ = set.Close()
			}
		}
	}()

	// Also with retention 0 (keep sessions): Prune clears what dead runs
	// left (lock and temporary files).
	if !o.NoPrune {
		if _, err := a.store.Prune(time.Duration(a.cfg.SessionRetentionDays) * 24 * time.Hour); err != nil {
			a.warn("removing old sessions: " + err.Error())
		}
	}
	if err := a.safety(); err != nil {
		return nil, err
	}
	sess, resumed, err := a.openSession()
	if err != nil {
		if check != nil {
			<-check
		}
		return nil, err
	}
	if err := a.adopt(sess); err != nil {
		return nil, err
	}
	if err := a.confine(); err != nil {
		a.releaseAll()
		return nil, err
	}
	a.openTimeline()
	a.bg = bgproc.New(bgproc.Options{
		OnStart: func(i bgproc.Info) {
			a.sink.Emit(event.BackgroundStarted{ID: i.ID, Command: a.redactor.Redact(i.Command), PID: i.PID})
		},
		OnExit: func(i bgproc.Info) {
			a.sink.Emit(event.BackgroundExited{ID: i.ID, Command: a.redactor.Redact(i.Command), Status: i.Status.String(), ExitCode: i.ExitCode, Runtime: i.Runtime})
		},
	})
	a.stopBackground = sync.OnceFunc(a.shutdownBackground)
	a.window = step.NewWindow(a.cfg.MaxContextTokens)
	a.mcp, opened = <-servers, true
	if a.tools, err = a.registry(); err != nil {
		a.Close()
		return nil, err
	}
	// The server's kind decides how replies are shaped, before the loop is
	// wired.
	info := <-discovery
	a.known = &shape.Known{Server: info}
	a.wire()
	a.sink.Emit(sessionStarted(sess, resumed, a.Approval()))
	a.learnWindow(info)
	if check != nil {
		a.reportServer(<-check, info)
	}
	return a, nil
}

// newClient is the model client of the settings.
func (a *App) newClient() *llm.Client {
	return llm.New(llm.Config{
		BaseURL:     a.cfg.APIURL,
		APIKey:      a.cfg.APIKey,
		IdleTimeout: time.Duration(a.cfg.RequestTimeout) * time.Second,
	})
}

// openSession finds the session to work in: the directory's last one with
// Resume, the given one with SessionID (created when it does not exist),
// or a new one.
func (a *App) openSession() (sess *sessions.Session, resumed bool, err error) {
	id := a.opts.SessionID
	if id != "" {
		// A unique prefix names a stored session; a whole id may name a
		// new one.
		if id, err = a.store.Resolve(id); err != nil {
			return nil, false, err
		}
	}
	if a.opts.Resume {
		id, err = a.store.Last(a.opts.Dir)
		if errors.Is(err, sessions.ErrNoSession) {
			return nil, false, fmt.Errorf("nothing to resume in %s: %w", a.opts.Dir, err)
		}
		if err != nil {
			return nil, false, err
		}
	}
	if id != "" {
		sess, err = a.store.Load(id)
		switch {
		case err == nil:
			if a.opts.DirGiven || sess.WorkingDirectory == "" {
				sess.WorkingDirectory = a.opts.Dir
			}
			sess.Model, sess.Profile = a.cfg.Model, a.cfg.Profile
			return sess, true, nil
		case errors.Is(err, sessions.ErrNotFound) && a.opts.SessionID != "":
			// --session names a new session: automation tools pick the id.
		default:
			return nil, false, err
		}
	}
	sess, err = a.store.New(id, a.opts.Dir, a.opts.Prompt, a.cfg.Model)
	if err == nil {
		sess.Profile = a.cfg.Profile
	}
	return sess, false, err
}

// heldSession is a session this process opened.
type heldSession struct {
	id      string
	release func()         // its lock
	groups  *reaper.Reaper // the process groups its commands started
}

// adopt makes sess the session worked in: locked against other dev
// processes, with what a dead run of it left running stopped, and
// remembered as its directory's last session.
func (a *App) adopt(sess *sessions.Session) error {
	for i, h := range a.held {
		if h.id == sess.ID { // opened earlier by this process (/resume after /new)
			a.held = append(append(a.held[:i:i], a.held[i+1:]...), h) // the one worked in comes last
			a.sess = sess
			return a.remember(sess)
		}
	}
	release, err := a.store.Lock(sess.ID)
	if err != nil {
		return fmt.Errorf("session %s: %w", sess.ID, err)
	}
	// With the lock held, a record of process groups in the session's
	// directory is a dead run's: stop what is still running of it.
	groups, left, err := reaper.Open(a.store.Dir(sess.ID), bgproc.DefaultGrace)
	if err != nil {
		a.warn("stopping what an earlier run of this session left: " + err.Error())
	}
	if left > 0 {
		a.sink.Emit(event.Notice{Message: fmt.Sprintf("stopped %d process groups or processes an earlier run of this session left running", left)})
	}
	a.sess = sess
	a.held = append(a.held, heldSession{id: sess.ID, release: release, groups: groups})
	return a.remember(sess)
}

// remember records sess as its directory's last session, for --resume.
func (a *App) remember(sess *sessions.Session) error {
	if err := a.store.Remember(sess.WorkingDirectory, sess.ID); err != nil {
		a.warn("recording the session for --resume: " + err.Error())
	}
	return nil
}

// groups records the process groups of the session worked in.
func (a *App) groups() *reaper.Reaper { return a.held[len(a.held)-1].groups }

// wire builds the loop, the auditor and the compressor for the session
// worked in, from one environment: every part that runs commands or keeps
// their output uses the session's directory.
func (a *App) wire() {
	cfg := a.cfg
	retries := cfg.MaxRetries
	if a.opts.Automated {
		retries = cfg.MaxRetriesAutomated
	}
	model := &llm.Retrier{Streamer: a.client, Max: retries, OnRetry: func(r llm.Retry) {
		a.sink.Emit(event.Retrying{Message: r.Err.Error(), Attempt: r.Attempt, Max: r.Max, Wait: r.Wait})
	}}
	env := &tools.Env{
		Dir:            a.sess.WorkingDirectory,
		Interactive:    a.answers(),
		CommandTimeout: time.Duration(cfg.CommandTimeout) * time.Second,
		OutputDir:      a.outputDir(),
		Spills:         capture.NewSpills(a.redactor),
		Ask:            a.ask(),
		Background:     a.bg,
		Deny:           a.deny,
		WritableRoots:  a.roots,
		Sandbox:        a.sandboxOrNil(),
		Approve:        a.approveAndProtect,
		Groups:         a.groups(),
		Live:           a.liveOutput(event.Worker),
	}
	// One set of request parameters: the auditor and the summariser
	// differ from the worker only in their model; the worker's and the
	// auditor's requests add the shape of their replies (shape.Plan).
	worker := requestParams(cfg)
	auditing, summarising := worker, worker
	auditing.Model = orModel(cfg.AuditModel, cfg.Model)
	summarising.Model = orModel(cfg.CompressModel, cfg.Model)
	// One room for every conversation of the run: the window, the
	// summariser, the threshold.
	room := step.Room{
		Window:    a.window,
		Compactor: &compress.Summarizer{Model: model, Params: summarising}, // transient failures are retried like the worker's
		Threshold: cfg.CompressThreshold,
	}
	registry := a.tools
	a.loop = &loop.Loop{
		Model:       model,
		Tools:       registry,
		Env:         env,
		Store:       a.store,
		Sink:        a.sink,
		Room:        room,
		Secrets:     a.redactor,
		Checkpoints: runCheckpoints{a},
		Config: loop.Config{
			Params:           worker,
			Constrain:        shape.Constrain(cfg.Constrain),
			Offered:          tools.Shaped(a.offered(registry)),
			Known:            a.known,
			SystemPrompt:     a.systemPrompt(registry),
			MaxLoops:         cfg.MaxLoops,
			MaxRetries:       retries,
			MaxAuditFailures: cfg.MaxAuditFailures,
			AuditOnlyChanges: cfg.Audit == config.AuditChanges,
			Now:              a.opts.Now,
		},
	}
	a.auditor = nil
	if cfg.Audit != config.AuditOff {
		a.auditor = &audit.Auditor{
			Model:  model,
			Params: auditing,
			// The auditor's commands run where the worker's do, but never
			// ask and never go to the background.
			Env: &tools.Env{Dir: env.Dir, CommandTimeout: env.CommandTimeout, OutputDir: env.OutputDir, Spills: env.Spills,
				Deny: env.Deny, Sandbox: env.Sandbox, Groups: env.Groups, Live: a.liveOutput(event.Auditor),
				Approve: a.protectOnly},
			Secrets:    a.redactor,
			Commands:   cfg.AuditCommands,
			MaxRetries: retries,
			Sink:       a.sink,
			Room:       room,
			Constrain:  shape.Constrain(cfg.Constrain),
			Known:      a.known,
		}
	}
	a.applyMode()
}

// requestParams are the request parameters of a run's model requests,
// from the settings: the worker's, without the grammar.
func requestParams(cfg config.Config) llm.Params {
	return llm.Params{Model: cfg.Model, Temperature: cfg.Temperature, MaxTokens: cfg.MaxTokens,
		Thinking: thinkingOf(cfg.Thinking), Extra: cfg.ExtraBody}
}

// answers reports whether someone answers the model's questions
// (ASK_USER): in a conversation at the terminal, not under -p, nor where
// the client has no way to ask one (an editor).
func (a *App) answers() bool { return !a.opts.Automated && a.opts.Ask != nil }

// offered are the worker's tools the model is offered in this mode:
// ASK_USER only when someone can answer.
func (a *App) offered(registry *tools.Registry) []tools.Doc {
	var docs []tools.Doc
	for _, doc := range registry.Docs() {
		if !a.answers() && doc.Name == tools.AskUser {
			continue // not offered: nobody can answer
		}
		docs = append(docs, doc)
	}
	return docs
}

// thinkingOf is config's thinking level as llm asks for it.
func thinkingOf(level string) llm.Thinking {
	if level == config.ThinkingAuto {
		return llm.ThinkingAuto
	}
	return llm.Thinking(level)
}

func orModel(specific, model string) string {
	if specific != "" {
		return specific
	}
	return model
}

// systemPrompt is the worker's: the protocol and its tools for this mode,
// the project, and the instruction files.
func (a *App) systemPrompt(registry *tools.Registry) string {
	dir := a.sess.WorkingDirectory
	var docs []prompts.Tool
	for _, doc := range a.offered(registry) {
		docs = append(docs, prompts.Tool{Name: doc.Name, Description: doc.Description, Example: doc.Example, Brief: doc.Brief})
	}
	return prompts.System{
		Dir:          dir,
		Interactive:  a.answers(),
		Tools:        docs,
		Project:      prompts.DiscoverProject(dir, tools.Tree(dir, overviewDepth, overviewEntries)),
		Instructions: prompts.Instructions(a.opts.ConfigDir, dir),
	}.Render()
}

// learnWindow works with the smaller of the window the server gives the
// model and maxContextTokens. A server that does not say changes nothing.
func (a *App) learnWindow(info llm.ServerInfo) {
	a.window.Lower(info.Window)
	a.sink.Emit(event.ContextWindow{Window: a.window.Size(), Configured: a.cfg.MaxContextTokens,
		Server: string(info.Kind), ServerWindow: info.Window, Source: info.Source,
		Shape:          string(shape.Form(shape.Constrain(a.cfg.Constrain), shape.Known{Server: info})),
		ShapeAfterMiss: string(shape.Form(shape.Constrain(a.cfg.Constrain), shape.Known{Server: info, Missed: true}))})
}

// sessionStarted describes the session opened, worked on in approval
// mode; a resumed one with its last exchange, how and when it ended and
// its task list.
func sessionStarted(sess *sessions.Session, resumed bool, approval string) event.SessionStarted {
	e := event.SessionStarted{ID: sess.ID, Resumed: resumed, Model: sess.Model, Dir: sess.WorkingDirectory, Approval: approval}
	if !resumed {
		return e
	}
	ex := lastExchange(sess.History)
	e.LastRequest, e.LastAnswer, e.LastAsked = ex.typed, ex.answer, ex.asked
	e.Recent = slices.Clone(ex.recent)
	e.LastUsed = sess.UpdatedAt
	e.LastStatus = string(sess.Status)
	e.LastReason = sess.StatusReason
	e.Tasks = sess.TaskList
	return e
}

// exchange is the last request of a history and what came of it.
type exchange struct {
	request string
	// typed is the request as the user typed it, each file its @ mentions
	// attached on a line of its own ("attached PATH (N lines)"), as the
	// terminal showed it then.
	typed string
	// answer is the DONE summary that ended the request, or (asked) the
	// question of an ASK_USER the model's last step asked; never its
	// thoughts.
	answer string
	asked  bool
	recent []llm.Message // the history from the request on
}

// lastExchange reads the last request of a history and what came of it.
// A history compressed since its last request starts with the summary,
// which names the request.
func lastExchange(msgs []llm.Message) exchange {
	turn, ok := transcript.Last(msgs)
	if !ok {
		return exchange{}
	}
	ex := exchange{request: turn.Request, typed: turn.Request, recent: msgs[turn.From:]}
	if turn.Kind == transcript.TurnRequest {
		ex.typed = turn.Text
	}
	for _, f := range turn.Attachments {
		what := textfmt.Plural(f.Lines, "line")
		if f.Binary {
			what = "binary: named, not attached"
		}
		ex.typed += fmt.Sprintf("\nattached %s (%s)", f.Path, what)
	}
	ex.answer, ex.asked = turn.Answer()
	return ex
}

// ResumeCommand is the command that resumes the session worked in:
// dev --resume when it is its directory's last session, else dev
// --session with a short prefix of its id (and -C when dev was started
// for another directory). It is "" for a session never saved: there is
// nothing to resume.
func (a *App) ResumeCommand() string {
	if _, err := a.store.Load(a.sess.ID); err != nil {
		return ""
	}
	cmd := "dev --resume"
	if last, err := a.store.Last(a.sess.WorkingDirectory); err != nil || last != a.sess.ID {
		cmd = "dev --session " + a.shortID()
	}
	if a.opts.DirGiven {
		cmd += " -C " + shell.Quote(a.sess.WorkingDirectory)
	}
	return cmd
}

// shortID is the shortest prefix of the session's id, of 8 characters or
// more, that names it alone.
func (a *App) shortID() string {
	id := a.sess.ID
	for n := 8; n < len(id); n++ {
		if got, err := a.store.Resolve(id[:n]); err == nil && got == id {
			return id[:n]
		}
	}
	return id
}

// Session is the session worked in. The caller reads it between runs.
func (a *App) Session() *sessions.Session { return a.sess }

// Store is the sessions directory.
func (a *App) Store() *sessions.Store { return a.store }

// NewSession moves to a fresh session in the same directory: locked,
// remembered for --resume, and with every part of the run (the worker's
// tools, the auditor's) keeping its files in the new session's directory.
func (a *App) NewSession() error {
	sess, err := a.store.New("", a.sess.WorkingDirectory, "", a.cfg.Model)
	if err != nil {
		return err
	}
	sess.Profile = a.cfg.Profile
	return a.switchTo(sess, false)
}

// switchTo makes sess the session worked in (/new, /resume): locked, with
// its sandbox and checkpoints, and every part of the run wired to it.
func (a *App) switchTo(sess *sessions.Session, resumed bool) error {
	if err := a.adopt(sess); err != nil {
		return err
	}
	if err := a.confine(); err != nil {
		return err
	}
	a.openTimeline()
	a.wire()
	a.sink.Emit(sessionStarted(sess, resumed, a.Approval()))
	return nil
}

// Close stops every background process the app started and releases the
// session's lock. It is called once, when dev ends.
func (a *App) Close() {
	a.stopBackground()
	a.closeMCP()
	a.closeTimeline()
	a.releaseAll()
}

// releaseAll releases the locks of the sessions this process opened.
func (a *App) releaseAll() {
	for _, h := range a.held {
		h.release()
	}
	a.held = nil
}

// Kill stops every process the app started, at once, from any goroutine:
// for a dev that must exit now (a second Ctrl+C). The operating system
// releases the lock when the process exits.
func (a *App) Kill() {
	a.stopBackground()
	a.closeMCP()
}

// closeMCP stops the MCP servers, once.
func (a *App) closeMCP() {
	a.mcpOnce.Do(func() {
		if a.mcp != nil {
			_ = a.mcp.Close()
		}
	})
}

// shutdownBackground stops the background processes still running and says
// which, as processes stopped by dev's exit; then every process group any
// command of the sessions left behind (cmd &, nohup cmd &), and what was
// orphaned to dev.
func (a *App) shutdownBackground() {
	if a.bg != nil {
		for _, i := range a.bg.Shutdown() {
			command := textfmt.Summary(a.redactor.Redact(i.Command), 200)
			a.sink.Emit(event.BackgroundExited{ID: i.ID, Command: command, Status: event.StoppedOnExit, ExitCode: i.ExitCode, Runtime: i.Runtime})
		}
	}
	for _, h := range a.held {
		h.groups.StopAll(bgproc.DefaultGrace)
	}
}

func (a *App) warn(msg string) { a.sink.Emit(event.Warning{Message: msg}) }

// liveOutput passes what a foreground command prints to the renderers, as
// it prints it: of each piece read, its last liveOutputTail bytes, which
// hold the last lines the terminal shows, so that a command printing a
// gigabyte is not copied again for the screen.
func (a *App) liveOutput(agent event.Agent) func([]byte) {
	if !a.opts.Live {
		return nil // nobody watches: no copies for the screen
	}
	return func(p []byte) {
		if len(p) > liveOutputTail {
			p = p[len(p)-liveOutputTail:]
		}
		a.sink.Emit(event.CommandOutput{Agent: agent, Output: string(p)})
	}
}

// liveOutputTail bounds each piece of live command output.
const liveOutputTail = 4 << 10
