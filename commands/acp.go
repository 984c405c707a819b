package commands

import (
	"context"

	"github.com/urfave/cli/v2"

	"github.com/devagent/dev/acp"
	"github.com/devagent/dev/app"
	"github.com/devagent/dev/config"
)

// acpCommand is dev acp: the Agent Client Protocol on stdio, for editors
// (SPEC §20).
func (d *devCmd) acpCommand() *cli.Command {
	return &cli.Command{
		Name:  "acp",
		Usage: "the Agent Client Protocol on stdio, for editors (Zed, Neovim, …)",
		Description: "An editor starts dev acp and drives it: each session it opens is a dev\n" +
			"session in its directory, with the settings a run there would use; edits\n" +
			"show as diffs, approvals are asked in the editor. See docs/editors.md.",
		Flags:  runFlags(),
		Action: d.acp,
	}
}

// acp serves the protocol until the editor closes the pipe (exit 0) or a
// signal ends dev (130). The config is read once; when it is broken, every
// session the editor opens fails with what is wrong, where the editor shows
// it, instead of a server that exits before it could say so.
func (d *devCmd) acp(c *cli.Context) error {
	if err := noArgs(c, "dev acp", ""); err != nil {
		return err
	}
	flags := config.Flags{Profile: c.String("profile"), Model: c.String("model"), Approval: c.String("approval"),
		Sandbox: c.String("sandbox"), Constrain: c.String("constrain")}
	cfgDir, cfg, cfgErr := d.loadConfig(flags)
	if c.Bool("no-audit") {
		cfg.Audit = config.AuditOff
	}
	open := func(o acp.OpenOptions) (acp.App, error) {
		if cfgErr != nil {
			return nil, cfgErr
		}
		if o.SessionID != "" { // session/load: a stored session, never a new one of that id
			store := d.openStore(cfgDir)
			id, err := store.Resolve(o.SessionID)
			if err != nil {
				return nil, err
			}
			if _, err := store.Load(id); err != nil {
				return nil, err
			}
			o.SessionID = id
		}
		a, err := app.Open(app.Options{
			Config: cfg, ConfigDir: cfgDir,
			Dir: o.Dir, DirGiven: true, SessionID: o.SessionID,
			NoAudit: c.Bool("no-audit"), Sink: o.Sink, Approve: o.Approve, Version: d.version,
			Live: true, // the editor shows a command's output as it comes
		})
		if err != nil {
			return nil, err
		}
		d.intr.OnForce(a.Kill)
		return a, nil
	}
	ctx, done := d.intr.Work(context.Background())
	defer done()
	err := acp.Serve(ctx, acp.Options{In: d.streams.In, Out: d.streams.Out, Err: d.streams.Err, Version: d.version, Open: open,
		Modes: config.ApprovalModes})
	if err != nil {
		return &ShownError{context.Canceled}
	}
	return nil
}
