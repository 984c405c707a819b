package commands

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/devagent/dev/config"
	"github.com/devagent/dev/ui"
)

// profilesCommand is dev profiles: the model profiles of config.json.
func (d *devCmd) profilesCommand() *cli.Command {
	return &cli.Command{
		Name:   "profiles",
		Usage:  "list the model profiles of config.json, the active one marked",
		Action: d.profiles,
		Flags:  []cli.Flag{&cli.StringFlag{Name: "profile", Usage: "mark `NAME` as active (as dev --profile would)"}},
	}
}

// profiles lists the model profiles, the active one marked with a star.
func (d *devCmd) profiles(c *cli.Context) error {
	if err := noArgs(c, "dev profiles", ""); err != nil {
		return err
	}
	dir, err := config.Dir(config.Env(d.env))
	if err != nil {
		return err
	}
	cfg, _, warnings, err := config.Read(dir, config.Env(d.env), config.Flags{Profile: c.String("profile")})
	if err != nil {
		return err
	}
	for _, w := range warnings {
		fmt.Fprintln(d.streams.Err, "dev: warning: "+w)
	}
	if len(cfg.Profiles) == 0 {
		fmt.Fprintf(d.streams.Err, "no profiles in %s; add them under \"profiles\" (see the README's Profiles section)\n", config.Path(dir))
		return nil
	}
	ui.Profiles(d.streams.Out, cfg.Profiles, cfg.Profile)
	return nil
}
