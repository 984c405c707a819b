// Command server is the stdio MCP server of dev's tests (see mcptest).
// Its first argument picks a misbehaviour at start:
//
//	exit   writes an error on stderr and exits with status 1
//	hang   never answers, ignores the end of its input and SIGTERM
//	noise  writes a line on stderr, then serves
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/devagent/dev/mcp/mcptest"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	mode := ""
	if len(os.Args) > 1 {
		mode = os.Args[1]
	}
	switch mode {
	case "exit":
		fmt.Fprintln(os.Stderr, "fatal: GITHUB_TOKEN is not set")
		os.Exit(1)
	case "hang":
		signal.Ignore(syscall.SIGTERM)
		for {
			time.Sleep(time.Hour) // select{} alone would be reported as a deadlock
		}
	case "noise":
		fmt.Fprintln(os.Stderr, "server starting on stdio")
	}
	if err := mcptest.NewServer(true).Run(context.Background(), &sdk.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
}
