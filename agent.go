package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/devagent/dev/audit"
	"github.com/devagent/dev/bgproc"
	"github.com/devagent/dev/compress"
	"github.com/devagent/dev/config"
	"github.com/devagent/dev/llm"
	"github.com/devagent/dev/loop"
	"github.com/devagent/dev/parser"
	"github.com/devagent/dev/prompts"
	"github.com/devagent/dev/reaper"
	"github.com/devagent/dev/sessions"
	"github.com/devagent/dev/tools"
	"github.com/devagent/dev/ui"
)

// Size of the directory overview in the system prompt.
const (
	overviewDepth   = 2
	overviewEntries = 60
)

// devCmd holds what every command needs.
type devCmd struct {
	streams    *ui.Streams
	env        ui.Env
	interrupts <-chan os.Signal
}

// setup is a loaded configuration and session store.
type setup struct {
	dir   string // config directory
	cfg   config.Config
	store *sessions.Store
}

func (d *devCmd) load() (*setup, error) {
	dir, err := config.Dir(config.Env(d.env))
	if err != nil {
		return nil, fmt.Errorf("finding the config directory: %w", err)
	}
	cfg, warnings, err := config.Load(dir, config.Env(d.env))
	if err != nil {
		return nil, err
	}
	for _, w := range warnings {
		fmt.Fprintln(d.streams.Err, "dev: warning: "+w)
	}
	return &setup{dir: dir, cfg: cfg, store: sessions.NewStore(filepath.Join(dir, "sessions"), time.Now)}, nil
}

// root runs the agent: automated with -p, interactive otherwise.
func (d *devCmd) root(c *cli.Context) error {
	if c.Bool("version") {
		fmt.Fprintln(d.streams.Out, "dev "+version)
		return nil
	}
	if c.NArg() > 0 {
		return usagef("unexpected argument %q: give the task with -p \"…\", or run dev without arguments for a conversation", c.Args().First())
	}
	if c.Bool("resume") && c.IsSet("session") {
		return usagef("--resume and --session cannot be used together")
	}
	if c.Bool("quiet") && c.Bool("verbose") {
		return usagef("--quiet and --verbose cannot be used together")
	}
	prompt := c.String("prompt")
	automated := c.IsSet("prompt")
	if automated && strings.TrimSpace(prompt) == "" {
		return usagef("-p needs a prompt")
	}
	if !automated && c.Bool("json") {
		return usagef("--json needs -p: it describes an automated run")
	}

	s, err := d.load()
	if err != nil {
		return err
	}
	if m := c.String("model"); m != "" {
		s.cfg.Model = m
	}
	// The server is asked for its context window now, and the answer is
	// awaited before the first request (discoverContextWindow): the probes'
	// round trips overlap opening the session and building the system prompt.
	client := newClient(s.cfg)
	discovery := discover(client, s.cfg.Model)
	// Also with retention 0 (keep sessions): Prune clears what dead runs left.
	if _, err := s.store.Prune(time.Duration(s.cfg.SessionRetentionDays) * 24 * time.Hour); err != nil {
		fmt.Fprintln(d.streams.Err, "dev: warning: removing old sessions: "+err.Error())
	}
	cwd, err := workingDir(c.String("cwd"))
	if err != nil {
		return err
	}
	sess, resumed, err := d.openSession(s, c, cwd, prompt)
	if err != nil {
		return err
	}
	release, err := s.store.Lock(sess.ID)
	if err != nil {
		return fmt.Errorf("session %s: %w", sess.ID, err)
	}
	if err := s.store.Remember(sess.WorkingDirectory, sess.ID); err != nil {
		fmt.Fprintln(d.streams.Err, "dev: warning: recording the session for --resume: "+err.Error())
	}

	level := ui.Normal
	if c.Bool("quiet") {
		level = ui.Quiet
	} else if c.Bool("verbose") {
		level = ui.Verbose
	}
	var sink loop.Sink = ui.NewTerminal(d.streams, level)
	if c.Bool("json") {
		sink = ui.Multi{ui.NewJSON(d.streams.Out), sink}
	}
	a := &agent{devCmd: d, setup: s, sess: sess, sink: sink, automated: automated, noAudit: c.Bool("no-audit"), json: c.Bool("json"), releaseLock: release,
		client: client, discovery: discovery}
	defer func() { a.releaseLock() }()
	// With the session's lock held, a record of process groups left in its
	// directory is a dead run's: stop what is still running of it.
	groups, left, err := reaper.Open(s.store.Dir(sess.ID), bgproc.DefaultGrace)
	if err != nil {
		fmt.Fprintln(d.streams.Err, "dev: warning: stopping what an earlier run left: "+err.Error())
	}
	if left > 0 {
		fmt.Fprintf(d.streams.Err, "dev: stopped %d process groups or processes an earlier run of this session left running\n", left)
	}
	a.bg = newBackground(sink, d.streams.Err, groups)
	defer a.bg.stop()
	a.loop = a.newLoop()
	sink.Emit(sessionStarted(sess, resumed))
	a.discoverContextWindow()
	if automated {
		return a.runAutomated(prompt)
	}
	return a.interactive()
}

// sessionStarted describes the session opened; a resumed one with its last
// exchange and task list.
func sessionStarted(sess *sessions.Session, resumed bool) loop.SessionStarted {
	e := loop.SessionStarted{ID: sess.ID, Resumed: resumed, Model: sess.Model, Dir: sess.WorkingDirectory}
	if !resumed {
		return e
	}
	e.LastRequest, e.LastAnswer = lastExchange(sess.History)
	for _, t := range sess.TaskList {
		e.Tasks = append(e.Tasks, parser.Task{Status: parser.Status(t.Status), Text: t.Text})
	}
	return e
}

// lastExchange is the last request of a history and what came of it: the
// DONE summary, or else the model's last thoughts.
func lastExchange(history []llm.Message) (request, answer string) {
	for i := len(history) - 1; i >= 0; i-- {
		m := history[i]
		if m.Role == llm.RoleAssistant && answer == "" {
			if r, err := parser.Parse(m.Content, tools.Worker().Names()); err == nil {
				answer = r.Thoughts
				if last := r.Tools[len(r.Tools)-1]; last.Name == tools.Done {
					answer = last.Input
				}
			}
		}
		if m.Role == llm.RoleUser && strings.HasPrefix(m.Content, "<user_request>") {
			request = strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(m.Content, "<user_request>"), "</user_request>"))
			return request, answer
		}
	}
	return "", answer
}

func workingDir(flag string) (string, error) {
	dir := flag
	if dir == "" {
		var err error
		if dir, err = os.Getwd(); err != nil {
			return "", fmt.Errorf("reading the current directory: %w", err)
		}
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("--cwd %s: %w", dir, err)
	}
	if st, err := os.Stat(abs); err != nil || !st.IsDir() {
		return "", usagef("--cwd %s: not a directory", dir)
	}
	return abs, nil
}

// openSession finds the session to work in: the directory's last one with
// --resume, the given one with --session (created when it does not exist),
// or a new one.
func (d *devCmd) openSession(s *setup, c *cli.Context, cwd, prompt string) (sess *sessions.Session, resumed bool, err error) {
	id := c.String("session")
	if c.Bool("resume") {
		id, err = s.store.Last(cwd)
		if errors.Is(err, sessions.ErrNoSession) {
			return nil, false, fmt.Errorf("nothing to resume in %s: %w", cwd, err)
		}
		if err != nil {
			return nil, false, err
		}
	}
	if id != "" {
		sess, err = s.store.Load(id)
		switch {
		case err == nil:
			if c.IsSet("cwd") || sess.WorkingDirectory == "" {
				sess.WorkingDirectory = cwd
			}
			sess.Model = s.cfg.Model
			return sess, true, nil
		case errors.Is(err, sessions.ErrNotFound) && c.IsSet("session"):
			// --session names a new session: automation tools pick the id.
		default:
			return nil, false, err
		}
	}
	sess, err = s.store.New(id, cwd, prompt, s.cfg.Model)
	return sess, false, err
}

// agent is one process's work in one session.
type agent struct {
	*devCmd
	*setup
	sess        *sessions.Session
	releaseLock func() // of sess
	sink        loop.Sink
	automated   bool
	noAudit     bool // DONE is accepted without an audit
	json        bool // events go to stdout as JSON lines
	loop        *loop.Loop
	client      *llm.Client
	input       lineReader     // the user's input, created on first use
	turns       turnInterrupts // the interactive turn running, if any
	bg          *background    // processes that outlive their command

	// discovery delivers, once, what the server said of its window.
	discovery <-chan llm.ServerInfo
}

func (a *agent) newLoop() *loop.Loop {
	cfg := a.cfg
	registry := tools.Worker()
	env := &tools.Env{
		Dir:            a.sess.WorkingDirectory,
		Interactive:    !a.automated,
		CommandTimeout: time.Duration(cfg.CommandTimeout) * time.Second,
		OutputDir:      a.store.Dir(a.sess.ID),
		Ask:            a.ask,
	}
	if a.bg != nil {
		env.Background = a.bg.Manager
		env.Groups = a.bg.groups
	}
	retries := cfg.MaxRetries
	if a.automated {
		retries = cfg.MaxRetriesAutomated
	}
	model := &llm.Retrier{Streamer: a.client, Max: retries, OnRetry: func(r llm.Retry) {
		a.sink.Emit(loop.Retrying{Message: r.Err.Error(), Attempt: r.Attempt, Max: r.Max, Wait: r.Wait})
	}}
	l := &loop.Loop{
		Model: model,
		Tools: registry,
		Env:   env,
		Store: a.store,
		Sink:  a.sink,
		Compactor: &compress.Summarizer{
			Model:       model, // transient failures are retried like the worker's
			ModelName:   compressModel(cfg),
			Temperature: cfg.Temperature,
			MaxTokens:   cfg.MaxTokens,
		},
		Config: loop.Config{
			Model:             cfg.Model,
			Temperature:       cfg.Temperature,
			MaxTokens:         cfg.MaxTokens,
			SystemPrompt:      a.systemPrompt(registry),
			MaxLoops:          cfg.MaxLoops,
			MaxRetries:        retries,
			MaxAuditFailures:  cfg.MaxAuditFailures,
			ContextWindow:     cfg.MaxContextTokens,
			CompressThreshold: cfg.CompressThreshold,
		},
	}
	if !a.noAudit {
		auditModel := cfg.AuditModel
		if auditModel == "" {
			auditModel = cfg.Model
		}
		l.Auditor = &audit.Auditor{
			Model:       model,
			ModelName:   auditModel,
			Temperature: cfg.Temperature,
			MaxTokens:   cfg.MaxTokens,
			// The auditor's commands run where the worker's do, but never
			// ask and never go to the background.
			Env:        &tools.Env{Dir: env.Dir, CommandTimeout: env.CommandTimeout, OutputDir: env.OutputDir, Groups: env.Groups},
			Commands:   cfg.AuditCommands,
			MaxRetries: retries,
		}
	}
	return l
}

func compressModel(cfg config.Config) string {
	if cfg.CompressModel != "" {
		return cfg.CompressModel
	}
	return cfg.Model
}

func newClient(cfg config.Config) *llm.Client {
	return llm.New(llm.Config{
		BaseURL:     cfg.APIURL,
		APIKey:      cfg.APIKey,
		IdleTimeout: time.Duration(cfg.RequestTimeout) * time.Second,
	})
}

// discover asks the server, once and briefly (llm.DiscoverTimeout), how
// large a context it gives the model, without waiting for the answer.
func discover(client *llm.Client, model string) <-chan llm.ServerInfo {
	answer := make(chan llm.ServerInfo, 1)
	go func() { answer <- client.Discover(context.Background(), model) }()
	return answer
}

// discoverContextWindow works with the smaller of the window the server
// gives the model and maxContextTokens. A server that does not say changes
// nothing.
func (a *agent) discoverContextWindow() {
	info := <-a.discovery
	window := a.cfg.MaxContextTokens
	if info.Window > 0 && info.Window < window {
		window = info.Window
	}
	a.loop.ContextWindow = window
	a.sink.Emit(loop.ContextWindow{Window: window, Configured: a.cfg.MaxContextTokens,
		Server: string(info.Kind), ServerWindow: info.Window, Source: info.Source})
}

func (a *agent) systemPrompt(registry *tools.Registry) string {
	dir := a.sess.WorkingDirectory
	var docs []prompts.Tool
	for _, doc := range registry.Docs() {
		if a.automated && doc.Name == tools.AskUser {
			continue // not offered: nobody can answer
		}
		docs = append(docs, prompts.Tool{Name: doc.Name, Description: doc.Description, Example: doc.Example})
	}
	return prompts.System{
		Dir:          dir,
		Interactive:  !a.automated,
		Tools:        docs,
		Project:      prompts.DiscoverProject(dir, tools.Tree(dir, overviewDepth, overviewEntries)),
		Instructions: prompts.Instructions(a.dir, dir),
	}.Render()
}

// runAutomated works on prompt until the run ends; stdout gets the summary.
func (a *agent) runAutomated(prompt string) error {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stopWatch := a.watchInterrupts(cancel)
	outcome := a.loop.Run(ctx, a.sess, prompt)
	stopWatch()
	a.bg.stop() // before the result, which is the last event
	code := a.report(outcome)
	if outcome.Stop == loop.Done && !a.json {
		fmt.Fprintln(a.streams.Out, strings.TrimSpace(outcome.Summary))
	}
	if code != exitOK {
		return &exitError{code}
	}
	return nil
}

// watchInterrupts cancels the run on the first Ctrl+C; a second one exits at
// once (sessions are written atomically, so nothing is left corrupt).
func (a *agent) watchInterrupts(cancel context.CancelFunc) (stop func()) {
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		count := 0
		for {
			select {
			case <-done:
				return
			case <-a.interrupts:
				count++
				if count > 1 {
					a.bg.stop()
					os.Exit(exitInterrupted)
				}
				cancel()
			}
		}
	}()
	return func() {
		close(done)
		<-finished
	}
}

// report emits the outcome's failure (with what to do about it) and the
// final result event, and returns the exit code.
func (a *agent) report(o loop.Outcome) int {
	code := outcomeCode(o)
	if msg := a.explain(o); msg != "" {
		a.sink.Emit(loop.Failure{Message: msg})
	}
	a.sink.Emit(loop.Finished{
		Status:       string(a.sess.Status),
		ExitCode:     code,
		Summary:      strings.TrimSpace(o.Summary),
		SessionID:    a.sess.ID,
		Loops:        o.Loops,
		Tokens:       a.sess.TotalTokens,
		FormatErrors: o.FormatErrors,
		Audits:       o.Audits,
	})
	return code
}

// explain phrases why a run failed and how to fix it.
func (a *agent) explain(o loop.Outcome) string {
	cfgPath := config.Path(a.dir)
	switch o.Stop {
	case loop.MaxLoops:
		return fmt.Sprintf("stopped after %d steps without DONE (maxLoops in %s)", o.Loops, cfgPath)
	case loop.FormatFailed:
		if errors.Is(o.Err, audit.ErrFormat) {
			return "the auditor kept answering in a format dev cannot parse; set auditModel in " + cfgPath + " to a stronger model, or use --no-audit"
		}
		return fmt.Sprintf("the model kept answering in a format dev cannot parse (%d format errors); try a stronger model or a lower temperature", o.FormatErrors)
	case loop.AuditFailed:
		return fmt.Sprintf("the audit failed %d times in a row (maxAuditFailures in %s); the last feedback is in the session: dev sessions show %s",
			o.Audits, cfgPath, a.sess.ID)
	case loop.Looping:
		return "the model kept repeating the same step; stopped"
	case loop.Failed:
		return explainError(o.Err, a.cfg, cfgPath)
	}
	return ""
}

func explainError(err error, cfg config.Config, cfgPath string) string {
	var apiErr *llm.Error
	if !errors.As(err, &apiErr) {
		return err.Error()
	}
	prefix := ""
	if errors.Is(err, llm.ErrRetriesExhausted) {
		prefix = "gave up after repeated failures: "
	}
	switch apiErr.Kind {
	case llm.KindUnreachable:
		return fmt.Sprintf("%scannot reach the model server at %s (%s). Start the server, or set apiUrl in %s or DEV_API_URL.",
			prefix, cfg.APIURL, apiErr.Message, cfgPath)
	case llm.KindAuth:
		return fmt.Sprintf("the server at %s refused the request (HTTP %d: %s). Set apiKey in %s or DEV_API_KEY.",
			cfg.APIURL, apiErr.Status, apiErr.Message, cfgPath)
	case llm.KindModelNotFound:
		offer := "the server did not list its models"
		if len(apiErr.Models) > 0 {
			offer = "it offers: " + strings.Join(apiErr.Models, ", ")
		}
		if errors.Is(err, loop.ErrCompression) && cfg.CompressModel != "" {
			return fmt.Sprintf("the server at %s has no model %q to compress the conversation with; %s. Set compressModel in %s (empty uses model).",
				cfg.APIURL, cfg.CompressModel, offer, cfgPath)
		}
		return fmt.Sprintf("the server at %s has no model %q; %s. Set model in %s, DEV_MODEL or --model.",
			cfg.APIURL, cfg.Model, offer, cfgPath)
	case llm.KindOverflow:
		return explainOverflow(apiErr, cfg, cfgPath)
	}
	return prefix + err.Error()
}

// explainOverflow says what to configure when the conversation does not fit
// the server's context even compressed, or when maxTokens is the cause.
func explainOverflow(e *llm.Error, cfg config.Config, cfgPath string) string {
	if e.MaxTokensCause {
		return fmt.Sprintf("the server's context window (%d tokens) cannot hold the prompt (%d tokens) plus maxTokens; compressing would not help. Lower or remove maxTokens in %s.",
			e.ContextLimit, e.PromptTokens, cfgPath)
	}
	facts := e.Message
	if e.PromptTokens > 0 && e.ContextLimit > 0 {
		facts = fmt.Sprintf("%d tokens for a window of %d", e.PromptTokens, e.ContextLimit)
	}
	return fmt.Sprintf("the conversation does not fit the server's context window even compressed to a summary (%s). "+
		"Give the server a larger context (llama.cpp: -c; Ollama: OLLAMA_CONTEXT_LENGTH or num_ctx; vLLM: --max-model-len; LM Studio: the model's context length), "+
		"then set maxContextTokens in %s to match it.", facts, cfgPath)
}
