package e2e

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/devagent/dev/mcp/mcptest"
)

// mcpServer is the stdio MCP test server, built once for the suite.
var mcpServer struct {
	once sync.Once
	path string
	err  error
}

func mcpServerPath(t *testing.T) string {
	t.Helper()
	mcpServer.once.Do(func() {
		dir, err := os.MkdirTemp("", "dev-e2e-mcp-")
		if err != nil {
			mcpServer.err = err
			return
		}
		mcpServer.path, mcpServer.err = mcptest.Build("..", dir)
	})
	if mcpServer.err != nil {
		t.Fatal(mcpServer.err)
	}
	return mcpServer.path
}

// A custom tool gets its input on stdin and in $DEV_TOOL_INPUT, never in
// its command line: an input that is shell code stays text.
func TestCustomTool(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the tool's command is POSIX shell")
	}
	w := newWorld(t, map[string]any{"tools": []map[string]any{
		{"name": "SHOUT", "description": "Shout the input back.", "command": `echo "env: $DEV_TOOL_INPUT"; echo "stdin: $(cat)"`},
	}})
	w.srv.Script(reply("Shout.", "SHOUT", "hello $(touch pwned) `touch pwned2`"), done("Shouted."))
	w.run("--no-audit", "-p", "shout").expect(t, 0)
	reqs := w.srv.Requests()
	if !strings.Contains(reqs[0].Messages[0].Content, "SHOUT") || !strings.Contains(reqs[0].Messages[0].Content, "Shout the input back.") {
		t.Errorf("the system prompt does not document SHOUT")
	}
	got := lastUser(reqs[1])
	for _, want := range []string{"env: hello $(touch pwned) `touch pwned2`", "stdin: hello $(touch pwned) `touch pwned2`", `tool="SHOUT" ok="true"`} {
		if !strings.Contains(got, want) {
			t.Errorf("the result lacks %q:\n%s", want, got)
		}
	}
	for _, f := range []string{"pwned", "pwned2"} {
		if _, err := os.Stat(filepath.Join(w.dir, f)); err == nil {
			t.Errorf("the input ran as code: %s exists", f)
		}
	}
}

func TestCustomToolNamedLikeABuiltinExits2(t *testing.T) {
	w := newWorld(t, map[string]any{"tools": []map[string]any{{"name": "COMMAND", "description": "d", "command": "true"}}})
	r := w.run("-p", "x")
	r.expect(t, 2)
	if !strings.Contains(r.stderr, "COMMAND") {
		t.Errorf("stderr:\n%s", r.stderr)
	}
}

// MCP servers: tools named SERVER.TOOL, one line each in the system prompt,
// TOOL_HELP for the rest, the input checked against the schema, errors
// back to the model; servers that fail at start are skipped with a warning.
func TestMCPServers(t *testing.T) {
	exe := mcpServerPath(t)
	w := newWorld(t, map[string]any{
		"commandTimeout": 2,
		"mcpServers": map[string]any{
			"test":   map[string]any{"command": exe},
			"broken": map[string]any{"command": exe, "args": []string{"exit"}},
		},
	})
	w.srv.Script(
		reply("Learn.", "TOOL_HELP", "test.add"),
		reply("Add.", "test.add", `{"a": 2}`),
		reply("Add.", "test.add", `{"a": 2, "b": 40}`),
		reply("Fail.", "test.fail", `{}`),
		done("42."),
	)
	r := w.run("--no-audit", "-p", "add")
	r.expect(t, 0)
	if !strings.Contains(r.stderr, `MCP server "broken" is skipped`) || !strings.Contains(r.stderr, "GITHUB_TOKEN is not set") {
		t.Errorf("no warning for the broken server:\n%s", r.stderr)
	}
	if strings.Contains(r.stderr, "server starting") {
		t.Errorf("a server's stderr reached the terminal without --verbose:\n%s", r.stderr)
	}
	reqs := w.srv.Requests()
	system := reqs[0].Messages[0].Content
	if !strings.Contains(system, "- test.echo: Echo the text back.") || strings.Contains(system, "no change at all") || !strings.Contains(system, "TOOL_HELP") {
		t.Errorf("the system prompt's MCP lines:\n%s", system[strings.Index(system, "# MCP tools"):])
	}
	if help := lastUser(reqs[1]); !strings.Contains(help, `"b"`) || !strings.Contains(help, "the second term") {
		t.Errorf("TOOL_HELP gave %q", help)
	}
	if bad := lastUser(reqs[2]); !strings.Contains(bad, `missing required field "b"`) {
		t.Errorf("schema error: %q", bad)
	}
	if sum := lastUser(reqs[3]); !strings.Contains(sum, "42") || !strings.Contains(sum, `ok="true"`) {
		t.Errorf("the sum: %q", sum)
	}
	if failed := lastUser(reqs[4]); !strings.Contains(failed, `tool="test.fail" ok="false"`) {
		t.Errorf("the failing tool: %q", failed)
	}
}

// A server that never answers is skipped after the connect timeout; dev
// goes on with the rest and leaves no process behind.
func TestMCPServerThatHangsIsSkipped(t *testing.T) {
	exe := mcpServerPath(t)
	w := newWorld(t, map[string]any{"mcpServers": map[string]any{"slow": map[string]any{"command": exe, "args": []string{"hang"}}}})
	w.srv.Script(done("ok"))
	r := w.run("--no-audit", "-p", "hi")
	r.expect(t, 0)
	if !strings.Contains(r.stderr, `MCP server "slow" is skipped`) {
		t.Errorf("stderr:\n%s", r.stderr)
	}
}

func TestMCPCommand(t *testing.T) {
	exe := mcpServerPath(t)
	w := newWorld(t, map[string]any{"mcpServers": map[string]any{
		"test": map[string]any{"command": exe}, "broken": map[string]any{"command": exe, "args": []string{"exit"}}}})
	r := w.run("mcp")
	r.expect(t, 0)
	for _, want := range []string{"test", "connected", "test.echo", "broken", "GITHUB_TOKEN is not set"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("dev mcp lacks %q:\n%s", want, r.stdout)
		}
	}
}

// Slash commands from files and @file mentions work with -p as in the
// conversation.
func TestSlashCommandsAndMentions(t *testing.T) {
	w := newWorld(t, nil)
	w.write(".dev/commands/review.md", "---\ndescription: Review a file\n---\nReview $ARGUMENTS for bugs.\n")
	w.write(".dev/commands/git/log.md", "Summarise the git log.\n")
	w.write("notes.md", "# Notes\nthe parser is slow\n")
	w.srv.Script(done("Reviewed."), done("Summarised."))
	w.run("--no-audit", "-p", "/review @notes.md").expect(t, 0)
	first := lastUser(w.srv.Requests()[0])
	if !strings.Contains(first, "Review @notes.md for bugs.") || !strings.Contains(first, "<file path=\"notes.md\">\n# Notes\nthe parser is slow\n</file>") {
		t.Errorf("the request:\n%s", first)
	}
	r := w.runInput("/git:log\n/exit\n", "--no-audit")
	r.expect(t, 0)
	if got := lastUser(w.srv.Requests()[1]); !strings.Contains(got, "Summarise the git log.") {
		t.Errorf("the REPL's request: %q", got)
	}
	if r := w.run("-p", "/nope x"); r.code != 2 || !strings.Contains(r.stderr, "unknown command /nope") || !strings.Contains(r.stderr, "/review") {
		t.Errorf("unknown command: exit %d\n%s", r.code, r.stderr)
	}
}

// !command runs in the working directory; its output joins the
// conversation for the next request.
func TestShellEscape(t *testing.T) {
	w := newWorld(t, nil)
	w.write("data.txt", "forty-two\n")
	w.srv.Script(done("It says forty-two."))
	r := w.runInput("!cat data.txt\nwhat does it say?\n/exit\n", "--no-audit")
	r.expect(t, 0)
	if !strings.Contains(r.stderr, "forty-two") {
		t.Errorf("the command's output was not shown:\n%s", r.stderr)
	}
	if all := allContent(w.srv.Requests()[0]); !strings.Contains(all, "The user ran a command") || !strings.Contains(all, "forty-two") {
		t.Errorf("the output did not reach the request:\n%s", all)
	}
}
