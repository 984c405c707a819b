// Package commands is dev's command layer: the command tree (urfave/cli),
// and each subcommand's flags, arguments and body, one file per area
// (root: a run or a conversation; sessions; config; checkpoints; doctor;
// mcp; stats; profiles). The commands turn flags into plain values for
// app and below, and write through one ui.Streams. They return errors of
// the kinds package main maps to exit codes; they never exit.
package commands

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/devagent/dev/config"
	"github.com/devagent/dev/sessions"
	"github.com/devagent/dev/ui"
)

// Interrupts is the process's path from signals to contexts (an
// *interrupt.Handler).
type Interrupts interface {
	// Work returns a context the next Ctrl+C cancels, and done, to call
	// when the work is over.
	Work(parent context.Context) (context.Context, func())
	// Ending reports that dev was asked to end (SIGTERM, SIGHUP, a closed
	// stdout).
	Ending() bool
	// OnForce registers what to stop before a forced exit.
	OnForce(f func())
}

// Options are what every command needs.
type Options struct {
	Streams *ui.Streams
	Env     ui.Env
	Intr    Interrupts
	Version string // dev --version, and the client's version for MCP servers
	// Getwd is the directory dev was started in; nil is os.Getwd.
	Getwd func() (string, error)
}

// Run executes the command line args (args[0] is the program name).
func Run(args []string, o Options) error {
	if o.Getwd == nil {
		o.Getwd = os.Getwd
	}
	d := &devCmd{streams: o.Streams, env: o.Env, intr: o.Intr, version: o.Version, getwd: o.Getwd}
	help := ui.NewWrapWriter(o.Streams.Out, helpWidth(o.Streams))
	defer help.Flush()
	return newCLI(d, help).Run(flagsFirst(args))
}

// helpWidth is the width help texts fit on stdout: the terminal's less its
// last column, or $COLUMNS's; a common terminal's when stdout is no
// terminal (help is read by people, also through a pager).
func helpWidth(s *ui.Streams) int {
	if s.OutWidth > 0 {
		return s.OutWidth - 1
	}
	return 79
}

// devCmd holds what every command needs.
type devCmd struct {
	streams *ui.Streams
	env     ui.Env
	intr    Interrupts
	version string
	getwd   func() (string, error)
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

// sessionStore opens the sessions without loading config.json: listing and
// reading sessions must work even while the config file is broken.
func (d *devCmd) sessionStore() (*sessions.Store, error) {
	dir, err := config.Dir(config.Env(d.env))
	if err != nil {
		return nil, err
	}
	return d.openStore(dir), nil
}

// openStore opens the sessions of a config directory; what the store
// repairs by itself (a corrupt directory map) is said on stderr.
func (d *devCmd) openStore(configDir string) *sessions.Store {
	store := sessions.Open(configDir, time.Now)
	store.OnWarning(func(w string) { fmt.Fprintln(d.streams.Err, "dev: warning: "+w) })
	return store
}

// workingDir is the directory to work in: --cwd's (flag) when given, else
// the one dev was started in.
func (d *devCmd) workingDir(flag string) (string, error) {
	dir := flag
	if dir == "" {
		var err error
		if dir, err = d.getwd(); err != nil {
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
