package commands

import (
	"context"
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/devagent/dev/app"
	"github.com/devagent/dev/config"
	"github.com/devagent/dev/event"
	"github.com/devagent/dev/loop"
	"github.com/devagent/dev/repl"
	"github.com/devagent/dev/ui"
)

const exitCodesHelp = `EXIT CODES:
   0    done: DONE accepted (audit passed or skipped)
   1    server or runtime failure: unreachable, authentication, unknown
        model, API retries exhausted
   2    usage or configuration error: bad flag, invalid config, unknown
        session, nothing to resume, session in use
   3    audit failed maxAuditFailures times in a row
   4    maxLoops reached
   5    replies kept failing to parse, or the model kept repeating itself
   130  interrupted`

// newCLI is the command tree: dev itself and its subcommands.
func newCLI(d *devCmd) *cli.App {
	a := &cli.App{
		Name:  "dev",
		Usage: "a terminal agent for development work, for any OpenAI-compatible server",
		UsageText: `dev                          interactive session in the current directory
dev -p "prompt"              automated run: no questions, exits when done
dev --resume [-p "…"]        continue the last session used in this directory
dev --session <id> [-p …]    continue a session, or start one with that uuid
dev sessions list            sessions, newest first
dev sessions show <id>       a session's transcript, as the terminal shows it
dev sessions serve [--port N]  browse the sessions in a web page on 127.0.0.1
dev config                   open config.json in $VISUAL / $EDITOR
dev config path              print the config file's path
dev profiles                 the model profiles, the active one marked
dev stats [--days N]         usage and format compliance per model
dev checkpoints              the checkpoints of the last session here
dev diff [FROM [TO]]         changes from checkpoint FROM (first) to TO (now)
dev rewind N [--yes]         bring files and session back to checkpoint N
dev mcp                      the MCP servers, their state and their tools
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
	return []cli.Flag{
		&cli.StringFlag{Name: "prompt", Aliases: []string{"p"}, Usage: "run `PROMPT` unattended and exit when done"},
		&cli.BoolFlag{Name: "resume", Usage: "continue the last session used in this directory"},
		&cli.StringFlag{Name: "session", Usage: "continue the session `ID` (a unique prefix will\n\tdo), or create it with that uuid"},
		&cli.StringFlag{Name: "model", Aliases: []string{"m"}, Usage: "use `MODEL` (overrides config and DEV_MODEL)"},
		&cli.StringFlag{Name: "profile", Usage: "use the model profile `NAME` of config.json\n\t(overrides DEV_PROFILE)"},
		&cli.StringFlag{Name: "approval", Usage: "what to ask first: `MODE` auto (nothing), edits\n\t(commands) or ask (commands and file changes)"},
		&cli.StringFlag{Name: "sandbox", Usage: "`MODE` off, or workspace: commands may write only\n\tin the project, temp and caches (Linux Landlock)"},
		&cli.StringFlag{Name: "constrain", Usage: "`MODE` auto (each server dev recognises, in its\n\tform), on, json (the JSON form) or off: have the\n\tserver shape replies to dev's template"},
		&cli.StringFlag{Name: "cwd", Aliases: []string{"C"}, Usage: "work in `DIR` instead of the current directory"},
		&cli.BoolFlag{Name: "verbose", Aliases: []string{"v"}, Usage: "show each step in boxes: whole tool inputs and\n\toutputs, reasoning, audit details"},
		&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "show only status lines and the answer"},
		&cli.BoolFlag{Name: "json", Usage: "print events as JSON lines on stdout"},
		&cli.BoolFlag{Name: "no-audit", Usage: "accept DONE without the audit (audit: off)"},
		&cli.BoolFlag{Name: "version", Usage: "print the version"},
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
