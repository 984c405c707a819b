package commands

import (
	"fmt"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/devagent/dev/app"
	"github.com/devagent/dev/config"
	"github.com/devagent/dev/textfmt"
	"github.com/devagent/dev/ui"
	"github.com/devagent/dev/usage"
)

// statsCommand is dev stats: usage and format compliance per model.
func (d *devCmd) statsCommand() *cli.Command {
	return &cli.Command{
		Name:   "stats",
		Usage:  "usage and format compliance per model: which works best here",
		Action: d.stats,
		Flags: []cli.Flag{
			&cli.IntFlag{Name: "days", Value: 30, Usage: "count the sessions of the last `N` days"},
			&cli.BoolFlag{Name: "json", Usage: "print JSON"},
		},
	}
}

// stats prints usage and format compliance per model over the last days.
func (d *devCmd) stats(c *cli.Context) error {
	if err := noArgs(c, "dev stats", "use --days N"); err != nil {
		return err
	}
	days := c.Int("days")
	if days <= 0 {
		return usagef("--days must be at least 1, got %d", days)
	}
	dir, err := config.Dir(config.Env(d.env))
	if err != nil {
		return err
	}
	// Prices are optional here: a broken config.json still lets the
	// sessions be counted.
	cfg, _, _, cfgErr := config.Read(dir, config.Env(d.env), config.Flags{})
	if cfgErr != nil {
		fmt.Fprintln(d.streams.Err, "dev: warning: no prices, config.json is unusable: "+cfgErr.Error())
	}
	list, err := d.openStore(dir).List()
	if err != nil {
		return err
	}
	rows := usage.Stats(list, time.Now().AddDate(0, 0, -days), app.Prices(cfg.Prices))
	if c.Bool("json") {
		return ui.StatsJSON(d.streams.Out, rows, days)
	}
	if len(rows) == 0 {
		fmt.Fprintf(d.streams.Err, "no model requests recorded in the last %s\n", textfmt.Plural(days, "day"))
		return nil
	}
	return ui.Stats(d.streams.Out, rows, days, d.streams.OutFit())
}
