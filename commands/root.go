package commands

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/devagent/dev/app"
	"github.com/devagent/dev/config"
	"github.com/devagent/dev/event"
	"github.com/devagent/dev/loop"
	"github.com/devagent/dev/repl"
	"github.com/devagent/dev/sessions"
	"github.com/devagent/dev/ui"
)

// exitCodesHelp is dev --help's list of exit codes: one line each, which
// the help's writer fits to the terminal.
const exitCodesHelp = `EXIT CODES:
   0    done: DONE accepted (audit passed or skipped)
   1    server or runtime failure: unreachable, authentication, unknown model, API retries exhausted
   2    usage or configuration error: bad flag, invalid config, unknown session, nothing to resume, session in use
   3    audit failed maxAuditFailures times in a row
   4    maxLoops reached
   5    replies kept failing to parse, or the model kept repeating itself
   130  interrupted`

// newCLI is the command tree: dev itself and its subcommands. help
// receives the help texts, fitted to the terminal.
func newCLI(d *devCmd, help io.Writer) *cli.App {
	a := &cli.App{
		Name:  "dev",
		Usage: "a terminal agent for development work, with any OpenAI-compatible server",
		UsageText: `dev                          interactive session in the current directory
dev -p "prompt"              automated run: no questions, exits when done
dev --resume [-p "…"]        continue the last session of this directory
dev --resume --pick          choose the session to continue from a list
dev --session <id> [-p …]    continue a session, or start one with that uuid
dev sessions list            sessions, newest first
dev sessions show <id>       a session's transcript as the terminal shows it
dev sessions serve [--port N]  the sessions in a web page on 127.0.0.1
dev config                   open config.json in $VISUAL / $EDITOR
dev config path              print the config file's path
dev profiles                 the model profiles, the active one marked
dev stats [--days N]         usage and format compliance per model
dev checkpoints              the checkpoints of the last session here
dev diff [FROM [TO]]         what changed from checkpoint FROM to TO (now)
dev rewind N [--yes]         bring files and session back to checkpoint N
dev mcp                      the MCP servers, their state and their tools
dev config show              the settings in force and where each comes from
dev doctor [--json]          check the model server and say what to change
dev bench [--model M]...     which model works: tasks run on your server
dev acp                      the Agent Client Protocol on stdio, for editors

A session id may be shortened to a unique prefix of 6 characters or more.`,
		Description: "With -p, stdout carries only the final answer (or, with --json, one JSON " +
			"object per event and line); progress, warnings and errors go to stderr.\n\n" + exitCodesHelp,
		HideVersion:     true,
		HideHelpCommand: true,
		Writer:          help,
		ErrWriter:       d.streams.Err,
		Reader:          d.streams.In,
		ExitErrHandler:  func(*cli.Context, error) {}, // main decides exit codes
		Flags:           rootFlags(),
		Action:          d.root,
		Commands: append(d.checkpointCommands(),
			d.sessionsCommand(),
			d.configCommand(),
			d.doctorCommand(),
			d.mcpCommand(),
			d.statsCommand(),
			d.profilesCommand(),
			d.benchCommand(),
			d.acpCommand(),
		),
	}
	a.OnUsageError = func(_ *cli.Context, err error, _ bool) error {
		return &UsageError{flagMistake("dev", &cli.Command{Flags: a.Flags}, err)}
	}
	hideSwitchDefaults(a.Flags)
	for _, c := range a.Commands {
		flagErrors("dev "+c.Name, c)
	}
	return a
}

// rootFlags are the flags of dev itself: a run or a conversation.
func rootFlags() []cli.Flag {
	return append([]cli.Flag{
		&cli.StringFlag{Name: "prompt", Aliases: []string{"p"}, Usage: "run `PROMPT` unattended and exit when done"},
		&cli.BoolFlag{Name: "resume", Usage: "continue the last session used in this directory"},
		&cli.StringFlag{Name: "session", Usage: "continue the session `ID` (a unique prefix will do), or create it with that uuid"},
		&cli.BoolFlag{Name: "pick", Usage: "with --resume: choose the session to continue from a numbered list of this directory's"},
	}, append(runFlags(), []cli.Flag{
		&cli.StringFlag{Name: "cwd", Aliases: []string{"C"}, Usage: "work in `DIR` instead of the current directory"},
		&cli.BoolFlag{Name: "verbose", Aliases: []string{"v"}, Usage: "show each step in boxes: whole tool inputs and outputs, reasoning, audit details"},
		&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "show only status lines and the answer"},
		&cli.BoolFlag{Name: "json", Usage: "print events as JSON lines on stdout"},
		&cli.BoolFlag{Name: "version", Usage: "print the version"},
	}...)...)
}

// runFlags are the settings of a run that dev itself and dev acp take
// (an editor's sessions run as dev's do).
func runFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "model", Aliases: []string{"m"}, Usage: "use `MODEL` (overrides config and DEV_MODEL)"},
		&cli.StringFlag{Name: "profile", Usage: "use the model profile `NAME` of config.json (overrides DEV_PROFILE)"},
		&cli.StringFlag{Name: "approval", Usage: "what to ask first: `MODE` auto (nothing), edits (commands), ask (commands and file changes), or plan (only read, and answer with a plan)"},
		&cli.StringFlag{Name: "sandbox", Usage: "`MODE` off, or workspace: commands may write only in the project, temp and caches (Linux Landlock)"},
		&cli.StringFlag{Name: "constrain", Usage: "`MODE` auto (each server dev recognises, in its form), on, json (the JSON form) or off: have the server shape replies to dev's template"},
		&cli.BoolFlag{Name: "no-audit", Usage: "accept DONE without the audit (audit: off)"},
	}
}

// root is dev itself: with -p an automated run that ends when done,
// otherwise a conversation; the renderers are chosen here from the flags
// and the streams.
func (d *devCmd) root(c *cli.Context) error {
	if c.Bool("version") {
		fmt.Fprintln(d.streams.Out, "dev "+d.version)
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
	if err := d.pickUsage(c, automated); err != nil {
		return err
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
	cwd, err := d.workingDir(c.String("cwd"))
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
		NoAudit: c.Bool("no-audit"), Sink: sink, Version: d.version,
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
		d.intr.OnForce(conversation.Restore)
	}
	if c.Bool("pick") {
		id, err := d.pick(conversation, cfgDir, cwd)
		if err != nil {
			return err
		}
		opts.Resume, opts.SessionID = false, id
	}
	a, err := app.Open(opts)
	if err != nil {
		return err
	}
	d.intr.OnForce(a.Kill)
	defer a.Close()
	if !automated {
		if err := conversation.Run(a); err != nil {
			return err
		}
		if d.intr.Ending() { // SIGTERM, SIGHUP or a closed stdout ended the conversation
			return &ShownError{context.Canceled}
		}
		return nil
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
		return &ExitError{res.Code}
	}
	return nil
}

// pickUsage says why --pick cannot be used as given: it picks the session
// --resume continues, by a number the user types at a terminal.
func (d *devCmd) pickUsage(c *cli.Context, automated bool) error {
	switch {
	case !c.Bool("pick"):
		return nil
	case !c.Bool("resume"):
		return usagef("--pick picks the session --resume continues: dev --resume --pick")
	case automated:
		return usagef("--pick asks which session to continue, and -p asks nothing: with -p, --resume continues the last session of this directory and --session ID another")
	case !d.streams.InTTY:
		return usagef("--pick asks which session to continue, and there is no terminal to answer on: --resume continues the last session of this directory, --session ID another")
	}
	return nil
}

// pick lists the sessions of dir, numbered, and returns the id of the one
// the user picks. Nothing picked is a usage error (exit 2) and Ctrl+C an
// interruption (exit 130), both already said.
func (d *devCmd) pick(conversation *repl.REPL, configDir, dir string) (string, error) {
	list, err := app.DirSessions(d.openStore(configDir), dir)
	if err != nil {
		return "", err
	}
	if len(list) == 0 {
		return "", fmt.Errorf("nothing to resume in %s: %w", dir, sessions.ErrNoSession)
	}
	id, err := conversation.PickSession(list)
	switch {
	case err != nil:
		return "", &ShownError{err}
	case id == "":
		return "", &ShownError{usagef("nothing resumed")}
	}
	return id, nil
}
