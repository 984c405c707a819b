package guard

import (
	"path/filepath"
	"strings"
	"sync"

	"github.com/devagent/dev/shell"
)

// Allow holds the allowCommands prefixes: the commands that approval modes
// `edits` and `ask` do not ask about (SPEC §13).
type Allow struct {
	prefixes []prefix
}

// NewAllow returns the allowCommands rules; a prefix that is not one
// plain command is an error naming it.
func NewAllow(prefixes []string) (*Allow, error) {
	p, err := parsePrefixes(prefixes)
	if err != nil {
		return nil, err
	}
	return &Allow{prefixes: p}, nil
}

// Allows reports whether line runs only allowed commands: every simple
// command in it (in pipelines, lists, substitutions, `sh -c` strings, and
// those run by wrappers such as env or xargs, which must be allowed
// themselves) starts with an allowed prefix, word for word. It is false
// when in doubt: a line that cannot be read, that runs no command, that
// writes a file by redirection (`go test > x`; /dev/null is fine), or that
// defines a function.
func (a *Allow) Allows(line string) bool {
	if a == nil || len(a.prefixes) == 0 {
		return false
	}
	s, err := shell.Parse(line)
	if err != nil || len(s.Commands) == 0 || len(s.Funcs) > 0 {
		return false
	}
	for _, c := range s.Commands {
		if len(c.Words) == 0 || c.Opaque != "" {
			return false
		}
		for _, r := range c.Redirects {
			if r.Writes() && !harmlessSink(r.Target.Text) {
				return false
			}
		}
		ok := false
		for _, p := range a.prefixes {
			if p.allows(c) {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

func harmlessSink(p string) bool {
	switch p {
	case "/dev/null", "/dev/stdout", "/dev/stderr":
		return true
	}
	return false
}

// Always remembers what the user allowed "always" during a session: exact
// command lines and files. "Always" for `go test ./...` does not allow
// `go test ./... && rm -rf x`: lines compare whole (surrounding space
// aside), files by cleaned absolute path. Safe for concurrent use.
type Always struct {
	mu       sync.Mutex
	commands map[string]bool
	files    map[string]bool
}

// AllowCommand remembers line.
func (m *Always) AllowCommand(line string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.commands == nil {
		m.commands = map[string]bool{}
	}
	m.commands[strings.TrimSpace(line)] = true
}

// Command reports whether exactly line was allowed always.
func (m *Always) Command(line string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.commands[strings.TrimSpace(line)]
}

// AllowFile remembers changes to the file at abs (an absolute path).
func (m *Always) AllowFile(abs string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.files == nil {
		m.files = map[string]bool{}
	}
	m.files[filepath.Clean(abs)] = true
}

// File reports whether changes to the file at abs were allowed always.
func (m *Always) File(abs string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.files[filepath.Clean(abs)]
}

// Mode is an approval mode (config approval, flag --approval).
type Mode string

// Approval modes of SPEC §13.
const (
	Auto  Mode = "auto"  // nothing is asked
	Edits Mode = "edits" // commands not allowed by allowCommands are asked
	Ask   Mode = "ask"   // every file change and every command is asked
	// Plan: only tools that read run (the caller refuses the others), and
	// what runs, a read-only command, is not asked about.
	Plan Mode = "plan"
)

// Approvals decides, without asking anyone, whether an action needs the
// user's approval. Asking (and refusing under -p) is the caller's.
type Approvals struct {
	Mode   Mode
	Allow  *Allow  // allowCommands; nil allows none
	Always *Always // the session's "always" answers; nil remembers none
}

// CommandNeedsApproval reports whether a command line (COMMAND, a custom
// tool's command, an MCP call named as a line) must be asked about.
func (a Approvals) CommandNeedsApproval(line string) bool {
	switch a.Mode {
	case Edits, Ask:
		if a.Always != nil && a.Always.Command(line) {
			return false
		}
		return !a.Allow.Allows(line)
	}
	return false
}

// EditNeedsApproval reports whether a file change at abs must be asked
// about. Edits outside the allowed directories are refused by write
// confinement before any question.
func (a Approvals) EditNeedsApproval(abs string) bool {
	if a.Mode != Ask {
		return false
	}
	return a.Always == nil || !a.Always.File(abs)
}
