// Command dev is a terminal agent for development tasks. It drives any
// OpenAI-compatible chat server through a markdown protocol. This package
// is the command line: flags, the choice of renderers, the one path from
// signals to contexts, and the one mapping from errors to exit codes. The
// work happens in package app and below.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/urfave/cli/v2"

	"github.com/devagent/dev/app"
	"github.com/devagent/dev/config"
	"github.com/devagent/dev/event"
	"github.com/devagent/dev/loop"
	"github.com/devagent/dev/reaper"
	"github.com/devagent/dev/repl"
	"github.com/devagent/dev/sessions"
	"github.com/devagent/dev/ui"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "0.1.0-dev"

const exitCodesHelp = `EXIT CODES:
   0    done: DONE accepted (audit passed or skipped)
   1    server or runtime failure: unreachable, authentication, unknown model, API retries exhausted
   2    usage or configuration error: bad flag, invalid config, unknown session, nothing to resume, session in use
   3    audit failed maxAuditFailures times in a row
   4    maxLoops reached
   5    the model kept answering in an unparseable format, or kept repeating itself
   130  interrupted`

func main() {
	if code, ok := sandboxHelper(os.Args); ok {
		os.Exit(code)
	}
	stopProfiles := startProfiles(os.Getenv)
	intr := newInterrupts()
	signals := make(chan os.Signal, 2)
	signal.Notify(signals, os.Interrupt, syscall.SIGTERM)
	go intr.watch(signals)
	_ = reaper.AdoptOrphans() // Linux: what commands orphan stays dev's to stop
	streams := ui.System(os.Getenv)
	streams.Out = intr.watchOutput(streams.Out)

	// dev runs beside this goroutine so that a second Ctrl+C ends it at
	// once, whatever it is doing: every process it started is stopped
	// first, and session files are written atomically, so nothing is left
	// half done.
	finished := make(chan int, 1)
	go func() { finished <- run(os.Args, streams, os.Getenv, intr) }()
	var code int
	select {
	case code = <-finished:
	case <-intr.forced():
		intr.cleanUp()
		code = app.ExitInterrupted
	}
	stopProfiles()
	os.Exit(code)
}

// usageError is a mistake on the command line (exit 2).
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &usageError{fmt.Sprintf(format, args...)}
}

// exitError carries an exit code decided where the failure was understood,
// after the message was already shown.
type exitError struct{ code int }

func (e *exitError) Error() string { return fmt.Sprintf("exit %d", e.code) }

// run executes the command line and returns the process's exit code.
func run(args []string, streams *ui.Streams, env ui.Env, intr *interrupts) int {
	err := newCLI(&devCmd{streams: streams, env: env, intr: intr}).Run(flagsFirst(args))
	code := exitCode(err)
	if err != nil && code != app.ExitOK {
		var shown *exitError
		if !errors.As(err, &shown) {
			fmt.Fprintln(streams.Err, "dev: "+err.Error())
		}
	}
	return code
}

// exitCode maps every error of dev to its exit code, in one place.
func exitCode(err error) int {
	var (
		usage  *usageError
		cfgErr *config.Error
		exit   *exitError
	)
	switch {
	case err == nil:
		return app.ExitOK
	case errors.As(err, &exit):
		return exit.code
	case errors.As(err, &usage), errors.As(err, &cfgErr),
		errors.Is(err, sessions.ErrNotFound), errors.Is(err, sessions.ErrInUse),
		errors.Is(err, sessions.ErrNoSession), errors.Is(err, sessions.ErrBadID), errors.Is(err, sessions.ErrCorrupt),
		errors.Is(err, sessions.ErrAmbiguous), errors.Is(err, app.ErrOtherDirectory), errors.Is(err, app.ErrSandbox):
		return app.ExitUsage
	case errors.Is(err, context.Canceled):
		return app.ExitInterrupted
	default:
		return app.ExitFailure
	}
}

// devCmd holds what every command needs.
type devCmd struct {
	streams *ui.Streams
	env     ui.Env
	intr    *interrupts
}

func newCLI(d *devCmd) *cli.App {
	return &cli.App{
		Name:  "dev",
		Usage: "a terminal agent for development tasks, for any OpenAI-compatible server",
		UsageText: `dev                          interactive session in the current directory
dev -p "prompt"              automated run: no questions, exits when done
dev --resume [-p "…"]        continue the last session used in this directory
dev --session <id> [-p …]    continue (or create with that uuid) a specific session
dev sessions list            sessions, newest first
dev sessions show <id>       a session's transcript, as the terminal shows it
dev sessions serve [--port N]  browse the sessions in a web page on 127.0.0.1
dev config                   open config.json in $VISUAL / $EDITOR
dev config path              print the config file's path
dev profiles                 the model profiles of config.json, the active one marked
dev stats [--days N]         usage and format compliance per model
dev checkpoints              the checkpoints of the last session here (--session ID)
dev diff [FROM [TO]]         what it changed: checkpoint FROM to TO (default: first to now)
dev rewind N [--yes]         bring the directory and the session back to checkpoint N
dev mcp                      the configured MCP servers, their state and tools
dev config show              the effective settings and where each comes from
dev doctor [--json]          check the model server and say what to change

A session id may be shortened to a unique prefix of 6 characters or more.`,
		Description: "With -p, stdout carries only the final answer (or, with --json, one JSON\n" +
			"object per event and line); progress, warnings and errors go to stderr.\n\n" + exitCodesHelp,
		HideVersion:     true,
		HideHelpCommand: true,
		Writer:          d.streams.Out,
		ErrWriter:       d.streams.Err,
		Reader:          d.streams.In,
		ExitErrHandler:  func(*cli.Context, error) {}, // exit codes are decided by run
		OnUsageError: func(_ *cli.Context, err error, _ bool) error {
			return &usageError{err.Error()}
		},
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "prompt", Aliases: []string{"p"}, Usage: "run `PROMPT` unattended and exit when done"},
			&cli.BoolFlag{Name: "resume", Usage: "continue the last session used in this directory"},
			&cli.StringFlag{Name: "session", Usage: "continue the session `ID` (a unique prefix will do), or create it with that uuid"},
			&cli.StringFlag{Name: "model", Aliases: []string{"m"}, Usage: "use `MODEL` (overrides config and DEV_MODEL)"},
			&cli.StringFlag{Name: "profile", Usage: "use the model profile `NAME` of config.json (overrides DEV_PROFILE)"},
			&cli.StringFlag{Name: "approval", Usage: "what to ask before doing: `MODE` auto (nothing), edits (commands), ask (commands and file changes)"},
			&cli.StringFlag{Name: "sandbox", Usage: "`MODE` off, or workspace: commands may write only in the project, temp and caches (Linux Landlock)"},
			&cli.StringFlag{Name: "constrain", Usage: "`MODE` auto (llama.cpp and vLLM), on or off: have the server shape replies to dev's template with a grammar"},
			&cli.StringFlag{Name: "cwd", Aliases: []string{"C"}, Usage: "work in `DIR` instead of the current directory"},
			&cli.BoolFlag{Name: "verbose", Aliases: []string{"v"}, Usage: "show full tool outputs and reasoning"},
			&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "one line per tool"},
			&cli.BoolFlag{Name: "json", Usage: "print events as JSON lines on stdout"},
			&cli.BoolFlag{Name: "no-audit", Usage: "accept DONE without the audit (the audit setting: off)"},
			&cli.BoolFlag{Name: "version", Usage: "print the version"},
		},
		Action: d.root,
		Commands: append(d.checkpointCommands(), []*cli.Command{
			{
				Name:   "sessions",
				Usage:  "list, show and browse sessions",
				Action: unknownSubcommand("sessions", "list", "show", "serve"),
				Subcommands: []*cli.Command{
					{Name: "list", Usage: "sessions, newest first", Action: d.sessionsList,
						Flags: []cli.Flag{&cli.BoolFlag{Name: "json", Usage: "print JSON"}}},
					{Name: "show", Usage: "a session's transcript as the terminal shows it", ArgsUsage: "<id>", Action: d.sessionsShow,
						Flags: []cli.Flag{
							&cli.BoolFlag{Name: "raw", Usage: "print the stored messages"},
							&cli.BoolFlag{Name: "json", Usage: "print the raw session file"},
						}},
					d.sessionsServeCommand(),
				},
			},
			{
				Name:   "config",
				Usage:  "open config.json in $VISUAL / $EDITOR (created with defaults first)",
				Action: d.configEdit,
				Subcommands: []*cli.Command{
					{Name: "path", Usage: "print the config file's path", Action: d.configPath},
					{Name: "show", Usage: "the effective settings and where each comes from", Action: d.configShow,
						Flags: []cli.Flag{&cli.StringFlag{Name: "profile", Usage: "as with the profile `NAME` active"}}},
				},
			},
			d.doctorCommand(),
			{
				Name:   "mcp",
				Usage:  "the configured MCP servers, their state and their tools",
				Action: d.mcp,
				Flags:  []cli.Flag{&cli.BoolFlag{Name: "verbose", Aliases: []string{"v"}, Usage: "also each tool's description and each server's stderr"}},
			},
			{
				Name:   "stats",
				Usage:  "usage and format compliance per model: which model works best with dev here",
				Action: d.stats,
				Flags: []cli.Flag{
					&cli.IntFlag{Name: "days", Value: 30, Usage: "count the sessions of the last `N` days"},
					&cli.BoolFlag{Name: "json", Usage: "print JSON"},
				},
			},
			{
				Name:   "profiles",
				Usage:  "list the model profiles of config.json, the active one marked",
				Action: d.profiles,
				Flags:  []cli.Flag{&cli.StringFlag{Name: "profile", Usage: "mark `NAME` as active (as dev --profile would)"}},
			},
		}...),
	}
}

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
	flags := config.Flags{Profile: c.String("profile"), Model: c.String("model"), Approval: c.String("approval"), Sandbox: c.String("sandbox"),
		Constrain: c.String("constrain")}
	cfgDir, cfg, err := d.loadConfig(flags)
	if err != nil {
		return err
	}
	if c.Bool("no-audit") {
		cfg.Audit = config.AuditOff
	}
	cwd, err := workingDir(c.String("cwd"))
	if err != nil {
		return err
	}

	level := ui.Normal
	if c.Bool("quiet") {
		level = ui.Quiet
	} else if c.Bool("verbose") {
		level = ui.Verbose
	}
	term := ui.NewTerminal(d.streams, level)
	md := &ui.Markdown{Unicode: d.streams.Unicode}
	switch {
	case !automated:
		// The answer comes once, on stdout, rendered when that is a
		// terminal and as it is otherwise.
		term.Interactive()
		md.Color = d.streams.OutColor
		if !d.streams.OutTTY {
			md = nil
		}
		term.ShowAnswer(d.streams.Out, md)
	case !d.streams.OutTTY && d.streams.ErrTTY && !c.Bool("json"):
		// dev -p > file: stdout gets the raw answer, the terminal a
		// readable one.
		md.Color = d.streams.Color
		term.ShowAnswer(d.streams.Err, md)
	}
	var sink event.Sink = term
	if c.Bool("json") {
		sink = event.Multi{ui.NewJSON(d.streams.Out), sink}
	}
	opts := app.Options{
		Config: cfg, ConfigDir: cfgDir,
		Dir: cwd, DirGiven: c.IsSet("cwd"),
		Automated: automated, Resume: c.Bool("resume"), SessionID: c.String("session"), Prompt: prompt,
		NoAudit: c.Bool("no-audit"), Sink: sink, Version: version,
		Live: d.streams.ErrTTY,
		Reload: func(profile string) (config.Config, error) {
			f := flags
			f.Profile = profile
			cfg, _, err := config.Load(cfgDir, config.Env(d.env), f)
			return cfg, err
		},
	}
	if level == ui.Verbose {
		opts.MCPStderr = d.streams.Err
	}
	var conversation *repl.REPL
	if !automated {
		conversation = repl.New(repl.Options{Streams: d.streams, ConfigDir: cfgDir, Intr: d.intr, Screen: term, Env: d.env})
		opts.Ask = conversation.Ask
		d.intr.onForce(conversation.Restore)
	}
	a, err := app.Open(opts)
	if err != nil {
		return err
	}
	d.intr.onForce(a.Kill)
	defer a.Close()
	if !automated {
		return conversation.Run(a)
	}
	request, err := a.Request(prompt)
	if err != nil {
		return usagef("%v", err)
	}
	ctx, done := d.intr.Work(context.Background())
	res := a.Run(ctx, request)
	done()
	if res.Stop == loop.Done && !c.Bool("json") {
		fmt.Fprintln(d.streams.Out, strings.TrimSpace(res.Summary))
	}
	if res.Code != app.ExitOK {
		return &exitError{res.Code}
	}
	return nil
}

// loadConfig reads config.json (creating it with defaults when missing),
// the environment and the flags; its warnings go to stderr.
func (d *devCmd) loadConfig(flags config.Flags) (dir string, cfg config.Config, err error) {
	dir, err = config.Dir(config.Env(d.env))
	if err != nil {
		return "", cfg, fmt.Errorf("finding the config directory: %w", err)
	}
	cfg, warnings, err := config.Load(dir, config.Env(d.env), flags)
	if err != nil {
		return "", cfg, err
	}
	for _, w := range warnings {
		fmt.Fprintln(d.streams.Err, "dev: warning: "+w)
	}
	return dir, cfg, nil
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
