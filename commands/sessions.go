package commands

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/devagent/dev/app"
	"github.com/devagent/dev/checkpoints"
	"github.com/devagent/dev/config"
	"github.com/devagent/dev/sessions"
	"github.com/devagent/dev/ui"
	"github.com/devagent/dev/web"
)

// sessionsCommand is dev sessions: list, show and browse sessions.
func (d *devCmd) sessionsCommand() *cli.Command {
	return &cli.Command{
		Name:   "sessions",
		Usage:  "list, show and browse sessions",
		Action: unknownSubcommand("sessions", "list", "show", "serve"),
		Subcommands: []*cli.Command{
			{Name: "list", Usage: "sessions, newest first", Action: d.sessionsList,
				Flags: []cli.Flag{&cli.BoolFlag{Name: "json", Usage: "print JSON"}}},
			{Name: "show", Usage: "a session's transcript as the terminal shows it", ArgsUsage: "<id>", Action: d.sessionsShow,
				Flags: []cli.Flag{
					&cli.BoolFlag{Name: "raw", Usage: "print the stored messages"},
					&cli.BoolFlag{Name: "json", Usage: "print the raw session file"},
				}},
			d.sessionsServeCommand(),
		},
	}
}

// sessionsList prints the sessions, newest first, those whose file cannot
// be read as "unreadable" with why. It reads their summaries, not their
// histories.
func (d *devCmd) sessionsList(c *cli.Context) error {
	if err := noArgs(c, "dev sessions list", ""); err != nil {
		return err
	}
	store, err := d.sessionStore()
	if err != nil {
		return err
	}
	listed, err := store.Summaries()
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
			Prompts          int       `json:"prompts"`
			LastPrompt       string    `json:"lastPrompt"`
			TotalTokens      int       `json:"totalTokens"`
			Cost             *float64  `json:"cost,omitempty"`
			Error            string    `json:"error,omitempty"` // why an unreadable session cannot be read
		}
		rows := make([]row, 0, len(listed))
		for _, l := range listed {
			if l.Err != nil {
				rows = append(rows, row{ID: l.ID, UpdatedAt: l.ModTime.UTC(), Status: string(sessions.Unreadable), Error: l.Err.Error()})
				continue
			}
			rows = append(rows, row{l.ID, l.UpdatedAt, string(l.Status), l.WorkingDirectory, l.OriginalPrompt, l.Prompts, l.LastPrompt,
				l.TotalTokens, l.Cost, ""})
		}
		enc := json.NewEncoder(d.streams.Out)
		enc.SetIndent("", "  ")
		return enc.Encode(rows)
	}
	if len(listed) == 0 {
		fmt.Fprintln(d.streams.Err, "no sessions yet")
		return nil
	}
	list := make([]sessions.Summary, 0, len(listed))
	for _, l := range listed {
		if l.Err != nil {
			// The why goes in the request's column; dev sessions show <id>
			// prints it whole.
			why := strings.TrimPrefix(l.Err.Error(), "session file "+l.Path+" is ")
			list = append(list, sessions.Summary{ID: l.ID, UpdatedAt: l.ModTime, Status: sessions.Unreadable, OriginalPrompt: why})
			continue
		}
		list = append(list, l.Summary)
	}
	return ui.SessionTable(d.streams.Out, list, ui.SessionList{Now: time.Now()}, d.streams.OutFit())
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
		level := ui.Normal
		if c.Bool("verbose") { // dev -v sessions show
			level = ui.Verbose
		}
		ui.ShowSession(d.streams, sess, level)
	}
	fmt.Fprintln(out)
	return ui.UsageSummary(out, sess, d.streams.OutFit())
}

// sessionsServeCommand is `dev sessions serve`: the session browser.
func (d *devCmd) sessionsServeCommand() *cli.Command {
	return &cli.Command{
		Name:  "serve",
		Usage: "browse the sessions in a read-only web page on 127.0.0.1",
		Description: "Prints the page's URL, with the random token every request needs, on stdout,\n" +
			"and serves until Ctrl+C. The page lists the sessions and shows each one: its\n" +
			"transcript, its usage per request with a chart, and the diff of each step.",
		Flags:  []cli.Flag{&cli.IntFlag{Name: "port", Usage: "listen on port `N` of 127.0.0.1 (default: a free port)"}},
		Action: d.sessionsServe,
	}
}

func (d *devCmd) sessionsServe(c *cli.Context) error {
	if err := noArgs(c, "dev sessions serve", "use --port N"); err != nil {
		return err
	}
	port := c.Int("port")
	if port < 0 || port > 65535 {
		return usagef("--port must be a port number (1 to 65535, or 0 for a free one), got %d", port)
	}
	store, err := d.sessionStore()
	if err != nil {
		return err
	}
	dir, err := config.Dir(config.Env(d.env))
	if err != nil {
		return err
	}
	// The diffs of steps come from the checkpoints (SPEC §12).
	srv, err := web.New(web.Options{Sessions: store.Index(), Store: store, Diffs: stepDiffs{configDir: dir}})
	if err != nil {
		return err
	}
	ln, err := web.Listen(fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		return err
	}
	ctx, done := d.intr.Work(context.Background())
	defer done()
	fmt.Fprintln(d.streams.Out, srv.URL(ln.Addr()))
	fmt.Fprintln(d.streams.Err, "dev: serving the session browser (read-only); open the URL above, Ctrl+C stops it")
	return srv.Serve(ctx, ln)
}

// stepDiffs gives the session browser the diff of each step, from the
// checkpoint taken after it and the one before.
type stepDiffs struct{ configDir string }

func (s stepDiffs) Steps(ctx context.Context, sess *sessions.Session) ([]web.StepDiff, error) {
	if len(sess.Checkpoints) < 2 {
		return nil, nil
	}
	t, release, err := app.OpenTimeline(config.Config{}, s.configDir, sess, false)
	if err != nil {
		return nil, err
	}
	defer release()
	var out []web.StepDiff
	for i, c := range sess.Checkpoints {
		if c.Reason != checkpoints.AfterTool || i == 0 {
			continue
		}
		from, to := sess.Checkpoints[i-1].Number, c.Number
		diffs, err := t.Diff(ctx, &from, &to)
		if err != nil {
			return nil, err
		}
		step := web.StepDiff{Checkpoint: c.Number, Time: c.Time, Step: c.Step, Tool: c.Tool, Input: c.Input}
		for _, d := range diffs {
			step.Files = append(step.Files, web.FileDiff{Path: d.Path, Change: string(d.Change.Change), Patch: d.Diff, Binary: d.Binary})
		}
		out = append(out, step)
	}
	return out, nil
}
