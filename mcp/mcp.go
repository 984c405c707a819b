// Package mcp connects dev to MCP servers (Model Context Protocol) through
// the official Go SDK: it starts or reaches every configured server at once,
// each within a time limit, lists their tools, checks a call's arguments
// against the tool's input schema, calls the tool and renders its result as
// text. A server that cannot be reached, crashes, hangs or talks garbage
// becomes an error value, never a crash or a hang of dev. Stdio servers
// start inside the OS sandbox when one is given. The package never
// prints: what stdio servers write on stderr is kept (Server.Stderr) and
// copied only to the writer the caller gives.
package mcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sort"
	"sync"
	"time"
)

// DefaultConnectTimeout bounds the start of one server: connecting,
// initialising and listing its tools.
const DefaultConnectTimeout = 10 * time.Second

// ServerConfig is one entry of mcpServers: a command for stdio, or a URL for
// Streamable HTTP. Strings may use ${VAR} and ${VAR:-default}, expanded from
// the environment when the server starts.
type ServerConfig struct {
	Name    string
	Command string
	Args    []string
	Env     map[string]string
	URL     string
	Headers map[string]string
	// Disabled servers are listed but not started.
	Disabled bool
}

// Transport names as Server.Transport reports them.
const (
	Stdio = "stdio"
	HTTP  = "http"
)

// Options are the settings of Connect.
type Options struct {
	// Dir is the working directory of stdio servers.
	Dir string
	// ConnectTimeout bounds each server's start; 0 means
	// DefaultConnectTimeout.
	ConnectTimeout time.Duration
	// Stderr, when not nil, receives what stdio servers write on their
	// stderr as it comes, each line prefixed with "[name] " (verbose mode).
	// It is always kept, whatever this is (Server.Stderr).
	Stderr io.Writer
	// Getenv looks up the variables of ${VAR}; nil means os.Getenv. The
	// servers' processes get the environment of dev plus their Env.
	Getenv func(string) string
	// ClientName and ClientVersion introduce dev to the servers.
	ClientName, ClientVersion string
	// Sandbox, when not nil, confines every stdio server and what it
	// starts (config sandbox: workspace), as it confines commands.
	Sandbox Sandbox

	// grace is how long a stdio server may take to exit after its input
	// closes, and after TERM, before it is killed; tests shorten it.
	grace time.Duration
}

// Sandbox confines a process before it starts (a *sandbox.Sandbox): it
// rewrites cmd so that the program runs under the confinement, or fails.
type Sandbox interface {
	Wrap(cmd *exec.Cmd) error
}

// defaultGrace: well-behaved servers exit as soon as their input closes.
const defaultGrace = 2 * time.Second

// Set is the servers of one run.
type Set struct {
	servers []*Server
}

// Connect starts every server at once, each bounded by the connect timeout,
// and returns when all have connected or failed. It never fails as a whole:
// a server that could not start is in the Set with its error (Server.Err)
// and no tools, and Warnings says so. Close the Set when done.
func Connect(ctx context.Context, configs []ServerConfig, opts Options) *Set {
	if opts.ConnectTimeout <= 0 {
		opts.ConnectTimeout = DefaultConnectTimeout
	}
	if opts.Getenv == nil {
		opts.Getenv = os.Getenv
	}
	if opts.grace <= 0 {
		opts.grace = defaultGrace
	}
	if opts.ClientName == "" {
		opts.ClientName = "dev"
	}
	var mirror io.Writer
	if opts.Stderr != nil {
		mirror = &lockedWriter{w: opts.Stderr}
	}
	sorted := append([]ServerConfig(nil), configs...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Name < sorted[j].Name })
	s := &Set{servers: make([]*Server, len(sorted))}
	var wg sync.WaitGroup
	for i, cfg := range sorted {
		srv := newServer(cfg, mirror)
		s.servers[i] = srv
		if cfg.Disabled {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			cctx, cancel := context.WithTimeout(ctx, opts.ConnectTimeout)
			defer cancel()
			srv.start(cctx, opts)
		}()
	}
	wg.Wait()
	return s
}

// Servers lists the servers by name, connected or not (for `dev mcp`).
func (s *Set) Servers() []*Server { return s.servers }

// Tools lists the tools of the connected servers, by server name, each
// server's in the order it gave them.
func (s *Set) Tools() []*Tool {
	var all []*Tool
	for _, srv := range s.servers {
		all = append(all, srv.Tools()...)
	}
	return all
}

// Warnings says, one sentence each, which servers could not start and why,
// and which tools were left out.
func (s *Set) Warnings() []string {
	var w []string
	for _, srv := range s.servers {
		if err := srv.Err(); err != nil {
			w = append(w, fmt.Sprintf("MCP server %q is skipped: %v", srv.Name, err))
		}
		w = append(w, srv.skipped...)
	}
	return w
}

// Close ends every session and stops every server process, the processes
// they started included, and returns once all are gone. It is safe to call
// more than once.
func (s *Set) Close() error {
	errs := make([]error, len(s.servers))
	var wg sync.WaitGroup
	for i, srv := range s.servers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = srv.close()
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}
