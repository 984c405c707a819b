package main

import (
	"context"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/devagent/dev/web"
)

// sessionsServeCommand is `dev sessions serve`: the session browser.
func (d *devCmd) sessionsServeCommand() *cli.Command {
	return &cli.Command{
		Name:  "serve",
		Usage: "browse the sessions in a web page on 127.0.0.1 (read-only; Ctrl+C stops it)",
		Description: "Prints the page's URL, with the random token every request needs, on stdout,\n" +
			"and serves until Ctrl+C. The page lists the sessions and shows each one: its\n" +
			"transcript, its usage per request with a chart, and the diff of each step.",
		Flags:  []cli.Flag{&cli.IntFlag{Name: "port", Usage: "listen on port `N` of 127.0.0.1 (default: a free port)"}},
		Action: d.sessionsServe,
		// A bad --port is a usage error (exit 2), as the app's own flags'.
		OnUsageError: func(_ *cli.Context, err error, _ bool) error { return &usageError{err.Error()} },
	}
}

func (d *devCmd) sessionsServe(c *cli.Context) error {
	if c.NArg() > 0 {
		return usagef("dev sessions serve takes no arguments (got %q); use --port N", c.Args().First())
	}
	port := c.Int("port")
	if port < 0 || port > 65535 {
		return usagef("--port must be a port number (1 to 65535, or 0 for a free one), got %d", port)
	}
	store, err := d.sessionStore()
	if err != nil {
		return err
	}
	// The diffs of steps come from the checkpoints (SPEC §12); without
	// them the page says that none are available.
	srv, err := web.New(web.Options{Sessions: store.Index(), Store: store})
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
