// Package sandbox confines commands with the operating system (SPEC §13,
// `sandbox: workspace`): a confined command and everything it starts, in
// the foreground or the background, may write only inside the directories
// it is given; reading is not restricted. On Linux this is Landlock: it
// restricts the calling process and its future children, so it is applied
// in a small helper, the dev binary executed again as
// `dev __sandbox-exec POLICY PATH -- ARGV…`, which confines itself and then
// executes the command in its place (same process, same process group).
// Where the OS cannot enforce it, New fails with the reason: nothing runs
// unconfined while the sandbox is asked for.
package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// HelperArg is the first argument that makes dev the sandbox helper.
const HelperArg = "__sandbox-exec"

// ErrUnavailable: the OS cannot enforce the sandbox here.
var ErrUnavailable = errors.New("the OS sandbox is not available")

// deviceFiles may be written by confined commands: writing them changes no
// file (`> /dev/null`, a terminal, the random pool).
var deviceFiles = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty"}

// policy is what the helper enforces; it travels as JSON in argv.
type policy struct {
	Dirs  []string `json:"dirs"`  // writable directory trees
	Files []string `json:"files"` // writable single files
}

// Sandbox starts commands confined to writing in its directories. It
// implements tools.Sandbox.
type Sandbox struct {
	self   string // the executable that serves as helper
	policy policy
	arg    string // the policy, encoded once
}

// Layout is where a session's commands may write, by SPEC §13.
type Layout struct {
	Dir           string   // the working directory
	SessionDir    string   // the session's directory
	WritableRoots []string // config writableRoots
	Home          string   // for the build caches; "" for none
	TempDir       string   // "" for os.TempDir()
}

// buildCaches are the per-user directories build tools write (relative to
// the home directory).
var buildCaches = []string{".cache", "go", ".npm", ".cargo", ".rustup", ".local"}

// Dirs lists the writable directories: the working directory, the
// temporary directory, the session's directory, the writable roots, the
// build caches under the home directory, and /dev/shm (POSIX shared
// memory, which Python's multiprocessing needs).
func (l Layout) Dirs() []string {
	tmp := l.TempDir
	if tmp == "" {
		tmp = os.TempDir()
	}
	dirs := []string{l.Dir, tmp, l.SessionDir}
	dirs = append(dirs, l.WritableRoots...)
	if l.Home != "" {
		for _, c := range buildCaches {
			dirs = append(dirs, filepath.Join(l.Home, c))
		}
	}
	dirs = append(dirs, "/dev/shm")
	var out []string
	seen := map[string]bool{}
	for _, d := range dirs {
		if d == "" {
			continue
		}
		if abs, err := filepath.Abs(d); err == nil {
			d = abs
		}
		if !seen[d] {
			seen[d] = true
			out = append(out, d)
		}
	}
	return out
}

// New returns a sandbox whose commands may write only inside dirs (and
// to harmless device files such as /dev/null), served by the helper
// executable self (the dev binary: os.Executable). It fails, wrapping
// ErrUnavailable with the reason, where the OS cannot enforce it.
func New(self string, dirs []string) (*Sandbox, error) {
	if ok, why := Available(); !ok {
		return nil, fmt.Errorf("%w: %s", ErrUnavailable, why)
	}
	if self == "" {
		return nil, errors.New("sandbox: no helper executable")
	}
	p := policy{Dirs: dirs, Files: deviceFiles}
	data, err := json.Marshal(p)
	if err != nil {
		return nil, err
	}
	return &Sandbox{self: self, policy: p, arg: string(data)}, nil
}

// Dirs are the directories confined commands may write.
func (s *Sandbox) Dirs() []string { return s.policy.Dirs }

// Wrap makes cmd start through the helper, which confines itself and then
// executes cmd's program with cmd's arguments. The directory, environment
// and process attributes stay as they are.
func (s *Sandbox) Wrap(cmd *exec.Cmd) error {
	if cmd.Err != nil {
		return cmd.Err // the program was not found
	}
	args := append([]string{s.self, HelperArg, s.arg, cmd.Path, "--"}, cmd.Args...)
	cmd.Path, cmd.Args = s.self, args
	return nil
}

// IsHelper reports whether a process's arguments (os.Args) ask it to be
// the sandbox helper.
func IsHelper(args []string) bool {
	return len(args) > 1 && args[1] == HelperArg
}

// Exec is the helper: args are what follows HelperArg (POLICY PATH --
// ARGV…). It confines the process and replaces it with the command; it
// returns only on failure, and then nothing was run.
func Exec(args []string) error {
	if len(args) < 4 || args[2] != "--" {
		return fmt.Errorf("usage: dev %s POLICY PATH -- ARGV…", HelperArg)
	}
	var p policy
	if err := json.Unmarshal([]byte(args[0]), &p); err != nil {
		return fmt.Errorf("bad policy: %w", err)
	}
	if err := restrict(p); err != nil {
		return fmt.Errorf("cannot confine the command, so it was not run: %w", err)
	}
	return execve(args[1], args[3:], os.Environ())
}
