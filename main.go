// Command dev is a terminal agent for development tasks. It drives any
// OpenAI-compatible chat server through a markdown protocol. This file wires
// the command line; the work happens in the packages.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/urfave/cli/v2"

	"github.com/devagent/dev/config"
	"github.com/devagent/dev/loop"
	"github.com/devagent/dev/reaper"
	"github.com/devagent/dev/sessions"
	"github.com/devagent/dev/ui"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "0.1.0-dev"

// Exit codes (SPEC §6).
const (
	exitOK          = 0
	exitFailure     = 1
	exitUsage       = 2
	exitAudit       = 3
	exitMaxLoops    = 4
	exitFormat      = 5
	exitInterrupted = 130
)

const exitCodesHelp = `EXIT CODES:
   0    done: DONE accepted (audit passed or skipped)
   1    server or runtime failure: unreachable, authentication, unknown model, API retries exhausted
   2    usage or configuration error: bad flag, invalid config, unknown session, nothing to resume, session in use
   3    audit failed maxAuditFailures times in a row
   4    maxLoops reached
   5    the model kept answering in an unparseable format, or kept repeating itself
   130  interrupted`

func main() {
	signals := make(chan os.Signal, 2)
	signal.Notify(signals, os.Interrupt, syscall.SIGTERM)
	// A write to a closed stdout or stderr then fails (EPIPE) instead of
	// killing dev, which ends as on SIGTERM, stopping what it started.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	_ = reaper.AdoptOrphans() // Linux: what commands orphan stays dev's to stop
	streams := ui.System(os.Getenv)
	streams.OnClosed(func() {
		select {
		case signals <- syscall.SIGPIPE:
		default:
		}
	})
	stopProfiles := startProfiles(os.Getenv)
	code := run(os.Args, streams, os.Getenv, signals)
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
// interrupts delivers Ctrl+C and SIGTERM.
func run(args []string, streams *ui.Streams, env ui.Env, interrupts <-chan os.Signal) int {
	app := newApp(streams, env, interrupts)
	err := app.Run(args)
	code := exitCode(err)
	if err != nil && code != exitOK {
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
		return exitOK
	case errors.As(err, &exit):
		return exit.code
	case errors.As(err, &usage), errors.As(err, &cfgErr),
		errors.Is(err, sessions.ErrNotFound), errors.Is(err, sessions.ErrInUse),
		errors.Is(err, sessions.ErrNoSession), errors.Is(err, sessions.ErrBadID), errors.Is(err, sessions.ErrCorrupt):
		return exitUsage
	case errors.Is(err, context.Canceled):
		return exitInterrupted
	default:
		return exitFailure
	}
}

// outcomeCode maps how a run ended to the exit code of SPEC §6.
func outcomeCode(o loop.Outcome) int {
	switch o.Stop {
	case loop.Done:
		return exitOK
	case loop.MaxLoops:
		return exitMaxLoops
	case loop.FormatFailed, loop.Looping:
		return exitFormat
	case loop.Interrupted:
		return exitInterrupted
	case loop.AuditFailed:
		return exitAudit
	default:
		return exitFailure
	}
}

func newApp(streams *ui.Streams, env ui.Env, interrupts <-chan os.Signal) *cli.App {
	d := &devCmd{streams: streams, env: env, interrupts: interrupts}
	return &cli.App{
		Name:  "dev",
		Usage: "a terminal agent for development tasks, for any OpenAI-compatible server",
		UsageText: `dev                          interactive session in the current directory
dev -p "prompt"              automated run: no questions, exits when done
dev --resume [-p "…"]        continue the last session used in this directory
dev --session <uuid> [-p …]  continue (or create with that id) a specific session
dev sessions list            sessions, newest first
dev sessions show <uuid>     a readable transcript of a session
dev config                   open config.json in $VISUAL / $EDITOR
dev config path              print the config file's path
dev doctor [--json]          check the model server and say what to change`,
		Description: "With -p, stdout carries only the final answer (or, with --json, one JSON\n" +
			"object per event and line); progress, warnings and errors go to stderr.\n\n" + exitCodesHelp,
		HideVersion:     true,
		HideHelpCommand: true,
		Writer:          streams.Out,
		ErrWriter:       streams.Err,
		Reader:          streams.In,
		ExitErrHandler:  func(*cli.Context, error) {}, // exit codes are decided by run
		OnUsageError: func(_ *cli.Context, err error, _ bool) error {
			return &usageError{err.Error()}
		},
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "prompt", Aliases: []string{"p"}, Usage: "run `PROMPT` unattended and exit when done"},
			&cli.BoolFlag{Name: "resume", Usage: "continue the last session used in this directory"},
			&cli.StringFlag{Name: "session", Usage: "continue (or create with this id) the session `UUID`"},
			&cli.StringFlag{Name: "model", Aliases: []string{"m"}, Usage: "use `MODEL` (overrides config and DEV_MODEL)"},
			&cli.StringFlag{Name: "cwd", Aliases: []string{"C"}, Usage: "work in `DIR` instead of the current directory"},
			&cli.BoolFlag{Name: "verbose", Aliases: []string{"v"}, Usage: "show full tool outputs and reasoning"},
			&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "one line per tool"},
			&cli.BoolFlag{Name: "json", Usage: "print events as JSON lines on stdout"},
			&cli.BoolFlag{Name: "no-audit", Usage: "accept DONE without the audit"},
			&cli.BoolFlag{Name: "version", Usage: "print the version"},
		},
		Action: d.root,
		Commands: []*cli.Command{
			{
				Name:  "sessions",
				Usage: "list and show sessions",
				Subcommands: []*cli.Command{
					{Name: "list", Usage: "sessions, newest first", Action: d.sessionsList,
						Flags: []cli.Flag{&cli.BoolFlag{Name: "json", Usage: "print JSON"}}},
					{Name: "show", Usage: "a readable transcript of session `UUID`", ArgsUsage: "<uuid>", Action: d.sessionsShow,
						Flags: []cli.Flag{&cli.BoolFlag{Name: "json", Usage: "print the raw session file"}}},
				},
			},
			{
				Name:   "config",
				Usage:  "open config.json in $VISUAL / $EDITOR (created with defaults first)",
				Action: d.configEdit,
				Subcommands: []*cli.Command{
					{Name: "path", Usage: "print the config file's path", Action: d.configPath},
				},
			},
			d.doctorCommand(),
		},
	}
}
