package commands

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/devagent/dev/config"
	"github.com/devagent/dev/ui"
)

// configCommand is dev config: open, locate and explain config.json.
func (d *devCmd) configCommand() *cli.Command {
	return &cli.Command{
		Name:   "config",
		Usage:  "open config.json in $VISUAL / $EDITOR (created if missing)",
		Action: d.configEdit,
		Subcommands: []*cli.Command{
			{Name: "path", Usage: "print the config file's path", Action: d.configPath},
			{Name: "show", Usage: "the effective settings and where each comes from", Action: d.configShow,
				Flags: []cli.Flag{&cli.StringFlag{Name: "profile", Usage: "as with the profile `NAME` active"}}},
		},
	}
}

// configEdit opens config.json in the user's editor, creating it first.
func (d *devCmd) configEdit(c *cli.Context) error {
	if c.NArg() > 0 {
		if err := unknownSubcommand("config", "path", "show")(c); err != nil {
			return usagef("%s; dev config alone opens the file in your editor", err)
		}
	}
	dir, err := config.Dir(config.Env(d.env))
	if err != nil {
		return err
	}
	// Load creates the file with defaults; a broken file is still opened so
	// the user can fix it.
	if _, _, err := config.Load(dir, config.Env(d.env), config.Flags{}); err != nil {
		fmt.Fprintln(d.streams.Err, "dev: "+err.Error())
	}
	path := config.Path(dir)
	editor := d.env("VISUAL")
	if editor == "" {
		editor = d.env("EDITOR")
	}
	var cmd *exec.Cmd
	switch {
	case editor != "":
		cmd = exec.Command("sh", "-c", editor+` "$1"`, "editor", path)
		if runtime.GOOS == "windows" {
			cmd = exec.Command("cmd", "/C", editor, path)
		}
	case runtime.GOOS == "windows":
		cmd = exec.Command("notepad", path)
	case runtime.GOOS == "darwin":
		cmd = exec.Command("open", "-W", "-t", path)
	default:
		name := "vi"
		for _, candidate := range []string{"sensible-editor", "nano", "vi"} {
			if _, err := exec.LookPath(candidate); err == nil {
				name = candidate
				break
			}
		}
		cmd = exec.Command(name, path)
	}
	// The editor gets the terminal itself, not dev's streams: those may
	// be wrapped (stdout watches for a closed pipe), and an editor on a
	// pipe cannot draw.
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("running the editor (%s): %w; the file is %s", strings.Join(cmd.Args, " "), err, path)
	}
	return nil
}

// configPath prints the config file's path.
func (d *devCmd) configPath(c *cli.Context) error {
	if err := noArgs(c, "dev config path", ""); err != nil {
		return err
	}
	dir, err := config.Dir(config.Env(d.env))
	if err != nil {
		return err
	}
	fmt.Fprintln(d.streams.Out, config.Path(dir))
	return nil
}

// configShow prints the effective settings and where each comes from,
// the apiKey masked. It creates nothing.
func (d *devCmd) configShow(c *cli.Context) error {
	if err := noArgs(c, "dev config show", ""); err != nil {
		return err
	}
	dir, err := config.Dir(config.Env(d.env))
	if err != nil {
		return err
	}
	// --profile after the command, or before it as for a run: the
	// command's own flag hides dev's from c.String.
	profile := ""
	for _, ctx := range c.Lineage() {
		if profile = ctx.String("profile"); profile != "" {
			break
		}
	}
	settings, _, found, warnings, err := config.Explain(dir, config.Env(d.env), config.Flags{Profile: profile, Constrain: c.String("constrain")})
	if err != nil {
		return err
	}
	for _, w := range warnings {
		fmt.Fprintln(d.streams.Err, "dev: warning: "+w)
	}
	// The flags given before the command win, as they do for a run.
	for i, s := range settings {
		switch {
		case s.Key == "model" && c.String("model") != "":
			settings[i].Value, settings[i].Source = c.String("model"), "flag --model"
		case s.Key == "audit" && c.Bool("no-audit"):
			settings[i].Value, settings[i].Source = config.AuditOff, "flag --no-audit"
		}
	}
	file := config.Path(dir)
	if !found {
		file += " (not created yet: defaults)"
	}
	fit := d.streams.OutFit()
	fmt.Fprintln(d.streams.Out, fit.Tail("config file: ", file))
	// The value gives way first (it is the longest: lists, JSON), then
	// where it comes from; keys stay whole.
	t := ui.Table{Columns: []ui.Column{{}, {Cut: ui.CutEnd, Min: 8, Yields: true}, {Cut: ui.CutEnd, Min: 11}}}
	for _, s := range settings {
		t.Rows = append(t.Rows, []string{s.Key, s.Value, s.Source})
	}
	return t.Write(d.streams.Out, fit)
}
