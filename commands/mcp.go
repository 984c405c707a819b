package commands

import (
	"context"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/devagent/dev/app"
	"github.com/devagent/dev/config"
	"github.com/devagent/dev/mcp"
)

// mcpCommand is dev mcp: the configured MCP servers, connected as a run
// would.
func (d *devCmd) mcpCommand() *cli.Command {
	return &cli.Command{
		Name:   "mcp",
		Usage:  "the configured MCP servers, their state and their tools",
		Action: d.mcp,
		Flags:  []cli.Flag{&cli.BoolFlag{Name: "verbose", Aliases: []string{"v"}, Usage: "also each tool's description and each server's stderr"}},
	}
}

// mcp connects to the configured MCP servers, as a run would, and lists
// them with their state and tools.
func (d *devCmd) mcp(c *cli.Context) error {
	if err := noArgs(c, "dev mcp", ""); err != nil {
		return err
	}
	dir, cfg, err := d.loadConfig(config.Flags{})
	if err != nil {
		return err
	}
	if len(cfg.MCPServers) == 0 {
		fmt.Fprintf(d.streams.Err, "no MCP servers in %s; add them under \"mcpServers\" (see docs/extending.md)\n", config.Path(dir))
		return nil
	}
	cwd, err := d.workingDir("")
	if err != nil {
		return err
	}
	sb, err := app.MCPSandbox(cfg, dir, cwd)
	if err != nil {
		return err
	}
	ctx, done := d.intr.Work(context.Background())
	defer done()
	set := mcp.Connect(ctx, app.MCPServers(cfg), mcp.Options{Dir: cwd, ClientName: "dev", ClientVersion: d.version, Sandbox: sb})
	defer set.Close()
	return mcp.WriteReport(d.streams.Out, set.Servers(), c.Bool("verbose"))
}
