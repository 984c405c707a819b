package app

import (
	"fmt"
	"os"

	"github.com/devagent/dev/config"
	"github.com/devagent/dev/event"
	"github.com/devagent/dev/guard"
	"github.com/devagent/dev/redact"
	"github.com/devagent/dev/sandbox"
	"github.com/devagent/dev/tools"
)

// ErrSandbox wraps why the sandbox the settings ask for cannot be set up:
// dev never runs commands unsandboxed in its place (exit 2).
var ErrSandbox = sandbox.ErrUnavailable

// safety sets up what the settings ask of the safety layers that do not
// depend on the session: denied commands, writable roots, approvals,
// redaction.
func (a *App) safety() error {
	cfg := a.cfg
	deny, err := guard.NewDeny(cfg.DenyCommands, cfg.DenyBuiltinCommands)
	if err != nil {
		return &config.Error{Path: config.Path(a.opts.ConfigDir), Key: "denyCommands", Reason: err.Error()}
	}
	a.deny = deny
	home, _ := os.UserHomeDir()
	a.roots = cfg.WritableRootPaths(home)
	if a.approvals, err = newApprovals(cfg.Approval, cfg.AllowCommands); err != nil {
		return &config.Error{Path: config.Path(a.opts.ConfigDir), Key: "allowCommands", Reason: err.Error()}
	}
	if cfg.RedactSecrets {
		a.redactor = redact.New(os.Environ(), cfg.APIKey)
		a.mask = a.redactor.Redact
	}
	return nil
}

// maskChanges masks secrets in what a tool changed: a file may be named
// after a secret, and the names reach the terminal, --json and the
// session's events like the tool's output does.
func (a *App) maskChanges(changes []event.FileChange) []event.FileChange {
	if a.mask == nil {
		return changes
	}
	for i := range changes {
		changes[i].Path = a.mask(changes[i].Path)
		changes[i].Diff = a.mask(changes[i].Diff)
	}
	return changes
}

// confine makes the OS sandbox of the session worked in, when the
// settings ask for one: its commands may write only in the working
// directory, the temporary directory, the session's directory, the
// writable roots and the build caches.
func (a *App) confine() error {
	a.sandbox = nil
	if a.cfg.Sandbox != config.SandboxWorkspace {
		return nil
	}
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("%w: cannot find dev's own executable to confine commands with: %v", ErrSandbox, err)
	}
	home, _ := os.UserHomeDir()
	layout := sandbox.Layout{Dir: a.sess.WorkingDirectory, SessionDir: a.store.Dir(a.sess.ID), WritableRoots: a.roots, Home: home}
	sb, err := sandbox.New(self, layout.Dirs())
	if err != nil {
		return fmt.Errorf("sandbox: workspace: %w (set sandbox to off to run commands without it)", err)
	}
	a.sandbox = sb
	return nil
}

// sandboxOrNil is the sandbox as tools take it: a nil interface when off,
// never a typed nil.
func (a *App) sandboxOrNil() tools.Sandbox {
	if a.sandbox == nil {
		return nil
	}
	return a.sandbox
}
