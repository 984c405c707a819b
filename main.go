// Command dev is a terminal agent for development tasks. It drives any
// OpenAI-compatible chat server through a markdown protocol. This package
// only wires the process: the sandbox helper first, profiles, signals to
// package interrupt, the streams; then it runs the command tree of package
// commands and maps the error it returns to an exit code, in one switch.
// os.Exit is called only in main.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/devagent/dev/app"
	"github.com/devagent/dev/bgproc"
	"github.com/devagent/dev/commands"
	"github.com/devagent/dev/config"
	"github.com/devagent/dev/interrupt"
	"github.com/devagent/dev/reaper"
	"github.com/devagent/dev/sessions"
	"github.com/devagent/dev/ui"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "0.1.0-dev"

func main() {
	if code, ok := sandboxHelper(os.Args); ok {
		os.Exit(code)
	}
	stopProfiles := startProfiles(os.Getenv)
	intr := interrupt.New()
	signals := make(chan os.Signal, 2)
	signal.Notify(signals, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	go intr.Watch(signals)
	_ = reaper.AdoptOrphans() // Linux: what commands orphan stays dev's to stop
	streams := ui.System(os.Getenv)
	streams.Out = intr.WatchOutput(streams.Out)

	// dev runs beside this goroutine so that a second Ctrl+C ends it at
	// once, whatever it is doing: every process it started is stopped
	// first, and session files are written atomically, so nothing is left
	// half done.
	finished := make(chan int, 1)
	go func() { finished <- run(os.Args, streams, os.Getenv, intr) }()
	var code int
	select {
	case code = <-finished:
	case <-intr.Forced():
		intr.CleanUp()
		code = exitCode(context.Canceled)
	}
	// Last, what commands orphaned to dev and that nothing else found.
	reaper.StopOrphans(bgproc.DefaultGrace)
	stopProfiles()
	os.Exit(code)
}

// run executes the command line and returns the process's exit code. An
// error is said once, on stderr, unless the command already showed it.
func run(args []string, streams *ui.Streams, env ui.Env, intr commands.Interrupts) int {
	err := commands.Run(args, commands.Options{Streams: streams, Env: env, Intr: intr, Version: version})
	code := exitCode(err)
	var (
		exit  *commands.ExitError
		shown *commands.ShownError
	)
	if code != app.ExitOK && !errors.As(err, &exit) && !errors.As(err, &shown) {
		fmt.Fprintln(streams.Err, "dev: "+err.Error())
	}
	return code
}

// exitCode maps every error of dev to its exit code (SPEC §6), in one
// place. A run's own code comes from app, which decided it from how the
// run ended; the rest is decided here by the kind of error.
func exitCode(err error) int {
	var (
		usage  *commands.UsageError
		cfgErr *config.Error
		exit   *commands.ExitError
	)
	switch {
	case err == nil:
		return app.ExitOK
	case errors.As(err, &exit):
		return exit.Code
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
