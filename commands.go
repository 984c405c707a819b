package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/devagent/dev/app"
	"github.com/devagent/dev/config"
	"github.com/devagent/dev/mcp"
	"github.com/devagent/dev/sessions"
	"github.com/devagent/dev/textdist"
	"github.com/devagent/dev/textfmt"
	"github.com/devagent/dev/ui"
	"github.com/devagent/dev/usage"
)

// sessionStore opens the sessions without loading config.json: listing and
// reading sessions must work even while the config file is broken.
func (d *devCmd) sessionStore() (*sessions.Store, error) {
	dir, err := config.Dir(config.Env(d.env))
	if err != nil {
		return nil, err
	}
	return sessions.Open(dir, time.Now), nil
}

// sessionsList prints the sessions, newest first, those whose file cannot
// be read as "unreadable" with why.
func (d *devCmd) sessionsList(c *cli.Context) error {
	store, err := d.sessionStore()
	if err != nil {
		return err
	}
	entries, err := store.Entries()
	if err != nil {
		return err
	}
	if c.Bool("json") {
		type row struct {
			ID               string    `json:"id"`
			UpdatedAt        time.Time `json:"updatedAt"`
			Status           string    `json:"status"`
			WorkingDirectory string    `json:"workingDirectory"`
			OriginalPrompt   string    `json:"originalPrompt"`
			TotalTokens      int       `json:"totalTokens"`
			Cost             *float64  `json:"cost,omitempty"`
			Error            string    `json:"error,omitempty"` // why an unreadable session cannot be read
		}
		rows := make([]row, 0, len(entries))
		for _, e := range entries {
			if x := e.Session; x != nil {
				rows = append(rows, row{x.ID, x.UpdatedAt, string(x.Status), x.WorkingDirectory, x.OriginalPrompt, x.TotalTokens, x.Cost, ""})
			} else {
				rows = append(rows, row{ID: e.ID, UpdatedAt: e.ModTime.UTC(), Status: string(sessions.Unreadable), Error: e.Err.Error()})
			}
		}
		enc := json.NewEncoder(d.streams.Out)
		enc.SetIndent("", "  ")
		return enc.Encode(rows)
	}
	if len(entries) == 0 {
		fmt.Fprintln(d.streams.Err, "no sessions yet")
		return nil
	}
	var list []*sessions.Session
	for _, e := range entries {
		if e.Session != nil {
			list = append(list, e.Session)
		} else {
			// The why goes in the prompt column; dev sessions show <id>
			// prints it whole.
			why := strings.TrimPrefix(e.Err.Error(), "session file "+e.Path+" is ")
			list = append(list, &sessions.Session{ID: e.ID, UpdatedAt: e.ModTime, Status: sessions.Unreadable, OriginalPrompt: why})
		}
	}
	return ui.SessionTable(d.streams.Out, list, "")
}

// sessionsShow prints one session's transcript as the terminal showed it;
// --raw prints its stored messages, --json the file.
func (d *devCmd) sessionsShow(c *cli.Context) error {
	if c.NArg() != 1 {
		return usagef("usage: dev sessions show <id> (a unique prefix of 6 characters or more will do)")
	}
	store, err := d.sessionStore()
	if err != nil {
		return err
	}
	id, err := store.Resolve(c.Args().First())
	if err != nil {
		return err
	}
	sess, err := store.Load(id)
	if err != nil {
		return err
	}
	out := d.streams.Out
	switch {
	case c.Bool("json"):
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		return enc.Encode(sess)
	case c.Bool("raw"):
		ui.Transcript(out, sess)
	default:
		ui.ShowSession(d.streams, sess)
	}
	fmt.Fprintln(out)
	ui.UsageSummary(out, sess)
	return nil
}

// configPath prints the config file's path.
func (d *devCmd) configPath(*cli.Context) error {
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
	if c.NArg() > 0 {
		return usagef("dev config show takes no arguments")
	}
	dir, err := config.Dir(config.Env(d.env))
	if err != nil {
		return err
	}
	settings, _, found, warnings, err := config.Explain(dir, config.Env(d.env), config.Flags{Profile: c.String("profile"), Constrain: c.String("constrain")})
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
	fmt.Fprintln(d.streams.Out, "config file: "+file)
	tw := tabwriter.NewWriter(d.streams.Out, 0, 0, 2, ' ', 0)
	for _, s := range settings {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", s.Key, s.Value, s.Source)
	}
	return tw.Flush()
}

// unknownSubcommand is the action of a command that only has subcommands:
// anything else is a usage error naming the valid choices.
func unknownSubcommand(parent string, choices ...string) cli.ActionFunc {
	return func(c *cli.Context) error {
		valid := strings.Join(choices, ", ")
		if c.NArg() == 0 {
			return usagef("dev %s needs a command: %s", parent, valid)
		}
		typed := c.Args().First()
		msg := fmt.Sprintf("dev %s: unknown command %q", parent, typed)
		if close := textdist.Closest(choices, typed, 2); len(close) > 0 {
			msg += "; did you mean " + strings.Join(close, " or ") + "?"
		}
		return usagef("%s (valid: %s)", msg, valid)
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
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("running the editor (%s): %w; the file is %s", strings.Join(cmd.Args, " "), err, path)
	}
	return nil
}

// profiles lists the model profiles, the active one marked with a star.
func (d *devCmd) profiles(c *cli.Context) error {
	if c.NArg() > 0 {
		return usagef("dev profiles takes no arguments (got %q)", c.Args().First())
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

// stats prints usage and format compliance per model over the last days.
func (d *devCmd) stats(c *cli.Context) error {
	if c.NArg() > 0 {
		return usagef("dev stats takes no arguments (got %q); use --days N", c.Args().First())
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
	list, err := sessions.Open(dir, time.Now).List()
	if err != nil {
		return err
	}
	rows := usage.Stats(list, time.Now().AddDate(0, 0, -days), cfg.Prices)
	if c.Bool("json") {
		return ui.StatsJSON(d.streams.Out, rows, days)
	}
	if len(rows) == 0 {
		fmt.Fprintf(d.streams.Err, "no model requests recorded in the last %s\n", textfmt.Plural(days, "day"))
		return nil
	}
	ui.Stats(d.streams.Out, rows, days)
	return nil
}

// mcp connects to the configured MCP servers, as a run would, and lists
// them with their state and tools.
func (d *devCmd) mcp(c *cli.Context) error {
	if c.NArg() > 0 {
		return usagef("dev mcp takes no arguments (got %q)", c.Args().First())
	}
	dir, cfg, err := d.loadConfig(config.Flags{})
	if err != nil {
		return err
	}
	if len(cfg.MCPServers) == 0 {
		fmt.Fprintf(d.streams.Err, "no MCP servers in %s; add them under \"mcpServers\" (see the README's Extending dev)\n", config.Path(dir))
		return nil
	}
	cwd, err := workingDir("")
	if err != nil {
		return err
	}
	ctx, done := d.intr.Work(context.Background())
	defer done()
	set := mcp.Connect(ctx, app.MCPServers(cfg), mcp.Options{Dir: cwd, ClientName: "dev", ClientVersion: version})
	defer set.Close()
	return mcp.WriteReport(d.streams.Out, set.Servers(), c.Bool("verbose"))
}
