package app

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/devagent/dev/config"
	"github.com/devagent/dev/event"
	"github.com/devagent/dev/history"
	"github.com/devagent/dev/mcp"
	"github.com/devagent/dev/mention"
	"github.com/devagent/dev/parser"
	"github.com/devagent/dev/shape"
	"github.com/devagent/dev/slashcmd"
	"github.com/devagent/dev/tools"
)

// Extending dev (SPEC §15): custom tools and MCP servers join the worker's
// tools; slash commands from files and @file mentions shape the request,
// the same way for -p and the conversation; a shell escape adds a
// command's output to the conversation.

// ErrUnknownCommand: a request named a slash command that no file defines.
var ErrUnknownCommand = errors.New("unknown command")

// connectMCP starts every configured MCP server, in parallel with each
// other, each bounded by mcp's connect timeout; stdio servers inside sb
// when it is not nil.
func (a *App) connectMCP(sb mcp.Sandbox) *mcp.Set {
	set := mcp.Connect(context.Background(), MCPServers(a.cfg), mcp.Options{Dir: a.opts.Dir, Stderr: a.opts.MCPStderr,
		ClientName: "dev", ClientVersion: a.opts.Version, Sandbox: sb})
	for _, w := range set.Warnings() {
		a.warn(w)
	}
	return set
}

// MCPServers are the mcpServers of the settings, in name order, as mcp
// connects to them.
func MCPServers(cfg config.Config) []mcp.ServerConfig {
	var servers []mcp.ServerConfig
	for _, name := range slices.Sorted(maps.Keys(cfg.MCPServers)) {
		s := cfg.MCPServers[name]
		servers = append(servers, mcp.ServerConfig{Name: name, Command: s.Command, Args: s.Args, Env: s.Env,
			URL: s.URL, Headers: s.Headers, Disabled: s.Disabled})
	}
	return servers
}

// registry is the worker's tools: the built-in ones, the custom tools,
// and the tools of the MCP servers that connected. A name taken twice is a
// configuration error.
func (a *App) registry() (*tools.Registry, error) {
	extra := customTools(a.cfg)
	if a.mcp != nil {
		extra = append(extra, tools.NewMCPTools(a.mcp.Tools())...)
	}
	r, err := tools.Compose(extra...)
	if err != nil {
		return nil, &config.Error{Path: config.Path(a.opts.ConfigDir), Key: "tools", Reason: err.Error()}
	}
	return r, nil
}

func customTools(cfg config.Config) []tools.Tool {
	var out []tools.Tool
	for _, t := range cfg.Tools {
		out = append(out, tools.NewCustomTool(tools.CustomSpec{Name: t.Name, Description: t.Description,
			Command: t.Command, Timeout: time.Duration(t.Timeout) * time.Second}))
	}
	return out
}

// Sends is what a run of the settings sends with its requests, and the
// tools an interactive run's worker replies offer (without the tools of
// MCP servers, which it does not connect to): what dev doctor hands to
// shape.Plan to say what a run sends. The tools are nil when the custom
// tools cannot be composed.
func Sends(cfg config.Config) (shape.Settings, []parser.GrammarTool) {
	settings := shape.Settings{Params: requestParams(cfg), Constrain: shape.Constrain(cfg.Constrain), Window: cfg.MaxContextTokens}
	r, err := tools.Compose(customTools(cfg)...)
	if err != nil {
		return settings, nil
	}
	return settings, tools.Shaped(r.Docs())
}

// MCP is the MCP servers of the run (for dev mcp and /help).
func (a *App) MCP() *mcp.Set { return a.mcp }

// Commands are the slash commands defined by files for the session's
// directory, and what their files said wrong.
func (a *App) Commands(reserved []string) ([]slashcmd.Command, []string) {
	return slashcmd.Discover(a.sess.WorkingDirectory, a.opts.ConfigDir, reserved)
}

// Request turns what the user typed into the request to work on: a slash
// command defined by a file becomes its text with $ARGUMENTS replaced
// (one that no file defines is ErrUnknownCommand); built-in commands are
// the caller's and never reach here.
func (a *App) Request(typed string) (string, error) {
	name, _, isCommand := slashcmd.Parse(typed)
	if !isCommand {
		return typed, nil
	}
	cmds, _ := a.Commands(nil)
	text, _, ok := slashcmd.Expand(cmds, typed)
	if !ok {
		known := "no command files define any (see docs/extending.md, Slash commands from files)"
		if len(cmds) > 0 {
			var names []string
			for _, c := range cmds {
				names = append(names, "/"+c.Name)
			}
			known = "the commands are " + strings.Join(names, ", ")
		}
		return "", fmt.Errorf("%w /%s: %s", ErrUnknownCommand, name, known)
	}
	return text, nil
}

// attach adds the files the request mentions with @path after its text.
func (a *App) attach(request string) string {
	text, attached := mention.Expand(a.sess.WorkingDirectory, request)
	for _, f := range attached {
		a.sink.Emit(event.FileAttached{Path: f.Path, Lines: f.Lines, Binary: f.Binary})
	}
	return text
}

// Shell runs a command the user typed (the `!` escape) with COMMAND's
// runner in the working directory, and adds the command and its output to
// the conversation as context for the next request. The user's own
// command is not asked about; the denied list and the sandbox still apply.
func (a *App) Shell(ctx context.Context, command string) tools.Result {
	env := *a.loop.Env
	env.Approve, env.Interactive, env.Background = a.protectOnly, false, nil
	res := tools.Result{Tool: tools.Command, ExitCode: -1}
	if call, err := (tools.CommandTool{}).Check(command); err != nil {
		res.Output = "Error: " + err.Error() // repl sends no empty command
	} else {
		res = call.Run(ctx, &env)
	}
	res = res.Masked(a.mask)
	a.sess.History = append(a.sess.History, history.Shell(command, res.Held()))
	if err := a.store.Save(a.sess); err != nil {
		a.warn("saving the session: " + err.Error())
	}
	return res
}
