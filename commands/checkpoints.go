package commands

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/devagent/dev/app"
	"github.com/devagent/dev/checkpoints"
	"github.com/devagent/dev/config"
	"github.com/devagent/dev/ui"
)

// checkpointCommands are dev checkpoints, dev diff and dev rewind (SPEC
// §12): they act on the --session given, or the last session of the
// current directory.
func (d *devCmd) checkpointCommands() []*cli.Command {
	session := &cli.StringFlag{Name: "session", Usage: "the session `ID` (default: the last one of this directory)"}
	return []*cli.Command{
		{Name: "checkpoints", Usage: "a session's checkpoints: number, time, cause, files changed",
			Flags: []cli.Flag{session}, Action: d.checkpointsList},
		{Name: "diff", Usage: "what a session changed, from checkpoint FROM to TO",
			Description: "FROM defaults to the session's first checkpoint; TO, to the directory now.",
			ArgsUsage:   "[FROM [TO]]", Flags: []cli.Flag{session}, Action: d.checkpointsDiff},
		{Name: "rewind", Usage: "bring the directory and the session back to checkpoint N",
			ArgsUsage: "N", Action: d.checkpointsRewind, Flags: []cli.Flag{session,
				&cli.BoolFlag{Name: "files-only", Usage: "restore the files only; keep the session's history"},
				&cli.BoolFlag{Name: "yes", Aliases: []string{"y"}, Usage: "do not ask for confirmation"}}},
	}
}

// timeline opens the checkpoints of the session the command names.
func (d *devCmd) timeline(c *cli.Context, lock bool) (*app.Timeline, func(), error) {
	dir, err := config.Dir(config.Env(d.env))
	if err != nil {
		return nil, nil, err
	}
	cfg, _, _, err := config.Read(dir, config.Env(d.env), config.Flags{})
	if err != nil {
		return nil, nil, err
	}
	store := d.openStore(dir)
	id := c.String("session")
	if id != "" {
		if id, err = store.Resolve(id); err != nil {
			return nil, nil, err
		}
	} else {
		cwd, err := d.workingDir("")
		if err != nil {
			return nil, nil, err
		}
		if id, err = store.Last(cwd); err != nil {
			return nil, nil, fmt.Errorf("no session to act on in %s (give --session): %w", cwd, err)
		}
	}
	sess, err := store.Load(id)
	if err != nil {
		return nil, nil, err
	}
	if len(sess.Checkpoints) == 0 {
		return nil, nil, usagef("session %s has no checkpoints (checkpoints are taken from its first request on, unless checkpoints is false)", sess.ID)
	}
	return app.OpenTimeline(cfg, dir, sess, lock)
}

func (d *devCmd) checkpointsList(c *cli.Context) error {
	if err := noArgs(c, "dev checkpoints", "give the session with --session"); err != nil {
		return err
	}
	t, release, err := d.timeline(c, false)
	if err != nil {
		return err
	}
	defer release()
	list, err := t.List(context.Background())
	if err != nil {
		return err
	}
	return ui.Checkpoints(d.streams.Out, list, d.streams.OutFit())
}

func (d *devCmd) checkpointsDiff(c *cli.Context) error {
	if c.NArg() > 2 {
		return usagef("usage: dev diff [FROM [TO]] (checkpoint numbers; dev checkpoints lists them)")
	}
	var ends [2]*int
	for i := range c.NArg() {
		n, err := app.ParseNumber(c.Args().Get(i))
		if err != nil {
			return usagef("%v", err)
		}
		ends[i] = &n
	}
	t, release, err := d.timeline(c, false)
	if err != nil {
		return err
	}
	defer release()
	diffs, err := t.Diff(context.Background(), ends[0], ends[1])
	if errors.Is(err, checkpoints.ErrNoCheckpoint) {
		return usagef("%v", err)
	}
	if err != nil {
		return err
	}
	if len(diffs) == 0 {
		fmt.Fprintln(d.streams.Err, "no changes")
		return nil
	}
	return ui.Diffs(d.streams.Out, diffs, ui.DiffStyle{Color: d.streams.OutColor, Terminal: d.streams.OutTTY})
}

func (d *devCmd) checkpointsRewind(c *cli.Context) error {
	if c.NArg() != 1 {
		return usagef("usage: dev rewind N [--files-only] [--yes] (dev checkpoints lists the numbers)")
	}
	n, err := app.ParseNumber(c.Args().First())
	if err != nil {
		return usagef("%v", err)
	}
	t, release, err := d.timeline(c, true)
	if err != nil {
		return err
	}
	defer release()
	ctx := context.Background()
	plan, err := t.Plan(ctx, n)
	if errors.Is(err, checkpoints.ErrNoCheckpoint) {
		return usagef("%v", err)
	}
	if err != nil {
		return err
	}
	ui.RewindPlan(d.streams.Err, plan, c.Bool("files-only"), "dev rewind")
	if !c.Bool("yes") {
		if !d.streams.InTTY {
			return usagef("a rewind changes files: run it on a terminal to confirm, or give --yes")
		}
		fmt.Fprint(d.streams.Err, "Rewind? [y/N] ")
		answer, _ := bufio.NewReader(d.streams.In).ReadString('\n')
		if a := strings.ToLower(strings.TrimSpace(answer)); a != "y" && a != "yes" {
			fmt.Fprintln(d.streams.Err, "nothing changed")
			return nil
		}
	}
	r, err := t.Rewind(ctx, n, c.Bool("files-only"))
	if err != nil {
		return err
	}
	ui.Rewound(d.streams.Err, r, "dev rewind")
	return nil
}

// flagsFirst moves the flags of the checkpoint commands, and of dev bench
// report, before their arguments: urfave/cli stops reading flags at the
// first argument, and people write `dev rewind 3 --yes` as naturally as
// `dev rewind --yes 3`.
func flagsFirst(args []string) []string {
	if len(args) < 3 {
		return args
	}
	start, valued := 2, "--session"
	switch {
	case args[1] == "checkpoints" || args[1] == "diff" || args[1] == "rewind":
	case args[1] == "bench" && args[2] == "report" && len(args) > 3:
		start, valued = 3, "--out"
	default:
		return args
	}
	var flags, rest []string
	for i := start; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			rest = append(rest, args[i:]...)
			i = len(args)
		case a == valued || a == valued[1:]:
			flags = append(flags, a)
			if i+1 < len(args) {
				flags = append(flags, args[i+1])
				i++
			}
		case strings.HasPrefix(a, "-") && len(a) > 1:
			flags = append(flags, a)
		default:
			rest = append(rest, a)
		}
	}
	return append(append(append([]string{}, args[:start]...), flags...), rest...)
}
