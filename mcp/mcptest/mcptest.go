// Package mcptest holds the MCP server the tests of dev talk to: real
// servers written with the official Go SDK, so that the client is tested
// against the protocol as the SDK speaks it, not against a mock of it. The
// same tools are served over stdio by testdata/server (built by the tests)
// and over Streamable HTTP in process by NewHTTPServer.
package mcptest

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Tool names of the test server.
const (
	Echo       = "echo"       // {"text": string} → the text
	Add        = "add"        // {"a": integer, "b": integer} → the sum, as text
	Fail       = "fail"       // a result with isError set
	Media      = "media"      // image, audio, a resource link, an embedded resource and some text
	Structured = "structured" // structured content only, no content items
	Sleep      = "sleep"      // blocks until the call is cancelled
	Env        = "env"        // {"name": string} → the variable's value and the working directory
	Stderr     = "stderr"     // writes its "text" to the server's stderr
	Garbage    = "garbage"    // stdio only: writes bytes that are not JSON-RPC on stdout
	Crash      = "crash"      // stdio only: the server exits with status 3
	Wedge      = "wedge"      // stdio only: never answers, ignores cancellation
	Spawn      = "spawn"      // stdio only: starts a child that sleeps, holding stdout; returns its pid
	Write      = "write"      // stdio only: {"path": string, "text": string} → writes the file; an error result when it cannot
)

// ImageSize is the size of the image Media returns.
const ImageSize = 1536

// EchoDescription is the description of Echo: two sentences, so that the
// first one can be told from the whole.
const EchoDescription = "Echo the text back. It is returned verbatim, with no change at all."

type echoIn struct {
	Text string `json:"text" jsonschema:"the text to echo"`
}

type addIn struct {
	A int `json:"a" jsonschema:"the first term"`
	B int `json:"b" jsonschema:"the second term"`
}

type writeIn struct {
	Path string `json:"path" jsonschema:"the file to write"`
	Text string `json:"text" jsonschema:"what to write"`
}

type envIn struct {
	Name string `json:"name" jsonschema:"an environment variable"`
}

type empty struct{}

// NewServer returns the test server; stdio adds the tools that only make
// sense in a process of their own (writing garbage, crashing, spawning).
func NewServer(stdio bool) *sdk.Server { return newServer(stdio, nil) }

// newServer is NewServer whose blocking tools also return once release is
// closed: a session's Close waits for the calls it serves, and a call whose
// cancellation was lost on the way would hold it forever.
func newServer(stdio bool, release <-chan struct{}) *sdk.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: "devtest", Version: "1.2.3"}, nil)
	sdk.AddTool(s, &sdk.Tool{Name: Echo, Description: EchoDescription},
		func(_ context.Context, _ *sdk.CallToolRequest, in echoIn) (*sdk.CallToolResult, any, error) {
			return text(in.Text), nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: Add, Description: "Add two integers."},
		func(_ context.Context, _ *sdk.CallToolRequest, in addIn) (*sdk.CallToolResult, any, error) {
			return text(strconv.Itoa(in.A + in.B)), nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: Fail, Description: "Always fails."},
		func(context.Context, *sdk.CallToolRequest, empty) (*sdk.CallToolResult, any, error) {
			return nil, nil, errors.New("the widget is broken")
		})
	sdk.AddTool(s, &sdk.Tool{Name: Media, Description: "Returns content of every kind."},
		func(context.Context, *sdk.CallToolRequest, empty) (*sdk.CallToolResult, any, error) {
			size := int64(2048)
			return &sdk.CallToolResult{Content: []sdk.Content{
				&sdk.TextContent{Text: "here is a chart"},
				&sdk.ImageContent{MIMEType: "image/png", Data: make([]byte, ImageSize)},
				&sdk.AudioContent{MIMEType: "audio/wav", Data: make([]byte, 10)},
				&sdk.ResourceLink{URI: "file:///data/report.csv", Name: "report", MIMEType: "text/csv", Size: &size},
				&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "file:///notes.txt", MIMEType: "text/plain", Text: "embedded note"}},
				&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "file:///blob.bin", MIMEType: "application/octet-stream", Blob: make([]byte, 300)}},
			}}, nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: Structured, Description: "Returns structured content only."},
		func(context.Context, *sdk.CallToolRequest, empty) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{}, StructuredContent: map[string]any{"answer": 42}}, nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: Sleep, Description: "Blocks until cancelled."},
		func(ctx context.Context, _ *sdk.CallToolRequest, _ empty) (*sdk.CallToolResult, any, error) {
			select {
			case <-ctx.Done():
				return nil, nil, ctx.Err()
			case <-release:
				return nil, nil, errors.New("the server is closing")
			}
		})
	sdk.AddTool(s, &sdk.Tool{Name: Env, Description: "Shows an environment variable and the working directory."},
		func(_ context.Context, _ *sdk.CallToolRequest, in envIn) (*sdk.CallToolResult, any, error) {
			wd, _ := os.Getwd()
			return text(in.Name + "=" + os.Getenv(in.Name) + "\ncwd=" + wd), nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: Stderr, Description: "Writes to stderr."},
		func(_ context.Context, _ *sdk.CallToolRequest, in echoIn) (*sdk.CallToolResult, any, error) {
			fmt.Fprintln(os.Stderr, in.Text)
			return text("written"), nil, nil
		})
	if !stdio {
		return s
	}
	sdk.AddTool(s, &sdk.Tool{Name: Garbage, Description: "Breaks the protocol."},
		func(context.Context, *sdk.CallToolRequest, empty) (*sdk.CallToolResult, any, error) {
			os.Stdout.WriteString("<html>this is not JSON-RPC</html>\n")
			select {} // the client gives up on the connection; nothing more to say
		})
	sdk.AddTool(s, &sdk.Tool{Name: Crash, Description: "Exits."},
		func(context.Context, *sdk.CallToolRequest, empty) (*sdk.CallToolResult, any, error) {
			fmt.Fprintln(os.Stderr, "panic: out of widgets")
			os.Exit(3)
			return nil, nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: Wedge, Description: "Never answers."},
		func(context.Context, *sdk.CallToolRequest, empty) (*sdk.CallToolResult, any, error) {
			select {}
		})
	sdk.AddTool(s, &sdk.Tool{Name: Spawn, Description: "Starts a child that outlives the call."},
		func(context.Context, *sdk.CallToolRequest, empty) (*sdk.CallToolResult, any, error) {
			cmd := exec.Command("sleep", "300")
			cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
			if err := cmd.Start(); err != nil {
				return nil, nil, err
			}
			return text(strconv.Itoa(cmd.Process.Pid)), nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: Write, Description: "Writes a file."},
		func(_ context.Context, _ *sdk.CallToolRequest, in writeIn) (*sdk.CallToolResult, any, error) {
			if err := os.WriteFile(in.Path, []byte(in.Text), 0o644); err != nil {
				return nil, nil, err
			}
			return text("wrote " + in.Path), nil, nil
		})
	return s
}

func text(s string) *sdk.CallToolResult {
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: s}}}
}

// Header is the header NewHTTPServer requires when given a token.
const Header = "Authorization"

// HTTPServer is NewServer(false) served over Streamable HTTP.
type HTTPServer struct {
	*httptest.Server
	mcp     *sdk.Server
	release chan struct{}
}

// NewHTTPServer starts an HTTPServer. With a token, requests without
// "Authorization: Bearer <token>" get 401.
func NewHTTPServer(token string) *HTTPServer {
	release := make(chan struct{})
	s := newServer(false, release)
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, nil)
	return &HTTPServer{mcp: s, release: release, Server: httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if token != "" && r.Header.Get(Header) != "Bearer "+token {
			http.Error(w, "missing or wrong token", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))}
}

// Close ends the server's MCP sessions, then the HTTP server, so that no
// goroutine of it is left behind.
func (s *HTTPServer) Close() {
	close(s.release)
	for ss := range s.mcp.Sessions() {
		_ = ss.Close()
	}
	s.Server.Close()
}

// NewGarbageServer answers every request with an HTML page, as a
// misconfigured URL does.
func NewGarbageServer() *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte("<html><body>Welcome to nginx!</body></html>"))
	}))
}

// Build compiles the stdio test server (testdata/server of the mcp
// package) into dir and returns the executable's path. moduleRoot is the
// path of the module's root from the calling test's directory (e.g. "..").
func Build(moduleRoot, dir string) (string, error) {
	exe := filepath.Join(dir, "mcpserver")
	if runtime.GOOS == "windows" {
		exe += ".exe"
	}
	cmd := exec.Command("go", "build", "-o", exe, "./mcp/testdata/server")
	cmd.Dir = moduleRoot
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building the MCP test server: %w\n%s", err, strings.TrimSpace(string(out)))
	}
	return exe, nil
}
