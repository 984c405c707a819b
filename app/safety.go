package app

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/devagent/dev/bgproc"
	"github.com/devagent/dev/config"
	"github.com/devagent/dev/event"
	"github.com/devagent/dev/guard"
	"github.com/devagent/dev/mcp"
	"github.com/devagent/dev/redact"
	"github.com/devagent/dev/sandbox"
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

// ask is tools.Env.Ask: ASK_USER's question put to the user, masked as
// all the model's text dev shows (SPEC §13); nil when nobody can answer.
func (a *App) ask() func(ctx context.Context, question string) (string, error) {
	if a.opts.Ask == nil {
		return nil
	}
	return func(ctx context.Context, question string) (string, error) {
		return a.opts.Ask(ctx, a.redactor.Redact(question))
	}
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
		changes[i].Old, changes[i].New = a.mask(changes[i].Old), a.mask(changes[i].New)
	}
	return changes
}

// confine makes the OS sandbox of the session worked in, when the
// settings ask for one: its commands may write only in the working
// directory, the temporary directory, the session's output directory, the
// writable roots and the build caches, never in a directory on PATH or in
// dev's configuration (the sessions, their checkpoints). What the sandbox
// cannot do here is said once per run.
func (a *App) confine() error {
	a.sandbox = nil
	if a.cfg.Sandbox != config.SandboxWorkspace {
		return nil
	}
	// Created now so that the sandbox's grant finds it (it skips what
	// does not exist).
	if err := os.MkdirAll(a.outputDir(), 0o755); err != nil {
		return fmt.Errorf("%w: cannot create the session's output directory: %v", ErrSandbox, err)
	}
	sb, err := newSandbox(a.cfg, a.opts.ConfigDir, a.sess.WorkingDirectory, a.outputDir())
	if err != nil {
		return err
	}
	if !a.sandboxWarned {
		a.sandboxWarned = true
		for _, w := range sb.Warnings() {
			a.warn(w)
		}
	}
	a.sandbox = sb
	return nil
}

// outputDir is where the session's commands' saved output goes: the only
// part of the session's directory that sandboxed commands may write.
func (a *App) outputDir() string { return filepath.Join(a.store.Dir(a.sess.ID), "output") }

// newSandbox is the OS sandbox of the settings for commands working in
// dir; sessionOutput is the session's output directory ("" outside a
// session: the MCP servers, which outlive /new).
func newSandbox(cfg config.Config, configDir, dir, sessionOutput string) (*sandbox.Sandbox, error) {
	home, _ := os.UserHomeDir()
	layout := sandbox.Layout{Dir: dir, SessionOutput: sessionOutput, WritableRoots: cfg.WritableRootPaths(home), Home: home,
		ConfigDir: configDir, PathList: os.Getenv("PATH")}
	net := sandbox.Network{All: cfg.SandboxNetwork.All}
	for _, p := range cfg.SandboxNetwork.Ports {
		net.Ports = append(net.Ports, uint16(p)) // 1 to 65535: config checked
	}
	sb, err := sandbox.New(layout, net)
	if err != nil {
		return nil, fmt.Errorf("sandbox: workspace: %w (set sandbox to off to run commands without it)", err)
	}
	return sb, nil
}

// MCPSandbox is the OS sandbox MCP stdio servers start in, working in
// dir: nil when the settings ask for none. It fails (ErrSandbox) where the
// OS cannot enforce it: no server then starts unconfined.
func MCPSandbox(cfg config.Config, configDir, dir string) (mcp.Sandbox, error) {
	if cfg.Sandbox != config.SandboxWorkspace {
		return nil, nil
	}
	sb, err := newSandbox(cfg, configDir, dir, "")
	if err != nil {
		return nil, err
	}
	return sb, nil
}

// sandboxOrNil is the sandbox as tools take it: a nil interface when off,
// never a typed nil.
func (a *App) sandboxOrNil() bgproc.Sandbox {
	if a.sandbox == nil {
		return nil
	}
	return a.sandbox
}
