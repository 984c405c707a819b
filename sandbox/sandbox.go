// Package sandbox confines commands with the operating system (SPEC §13,
// `sandbox: workspace`): a confined command and everything it starts, in
// the foreground or the background, may write only inside the directories
// it is given (never in a directory on PATH, nor in dev's configuration
// directory, which holds the sessions and their checkpoints), may use only
// the TCP ports it is given, and cannot signal processes outside it;
// reading is not restricted. On Linux this is Landlock: it restricts the
// calling process and its future children, so it is applied in a small
// helper, the dev binary executed again as
// `dev __sandbox-exec POLICY PATH -- ARGV…`, which confines itself and then
// executes the command in its place (same process, same process group).
// Where the OS cannot enforce the file part, New fails with the reason:
// nothing runs unconfined while the sandbox is asked for.
package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// HelperArg is the first argument that makes dev the sandbox helper.
const HelperArg = "__sandbox-exec"

// ErrUnavailable: the OS cannot enforce the sandbox here.
var ErrUnavailable = errors.New("the OS sandbox is not available")

// deviceFiles may be written by confined commands: writing them changes no
// file (`> /dev/null`, a terminal, the random pool).
var deviceFiles = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty"}

// policy is what the helper enforces; it travels as JSON in argv. The
// network is closed unless AllPorts is set or Ports lists a port.
type policy struct {
	Dirs  []string `json:"dirs"`  // writable directory trees
	Files []string `json:"files"` // writable single files
	// Protected directories are never writable, even inside Dirs: the
	// helper grants what lies around them instead (see plan).
	Protected []string `json:"protected,omitempty"`
	Ports     []uint16 `json:"ports,omitempty"`    // TCP ports that may be connected to and bound
	AllPorts  bool     `json:"allPorts,omitempty"` // the network is not restricted
}

// Network is what confined commands may do on the network (config
// sandboxNetwork): nothing but the TCP Ports, or everything with All.
type Network struct {
	All   bool
	Ports []uint16
}

// Sandbox starts commands confined by its policy. It implements
// bgproc.Sandbox and mcp.Sandbox.
type Sandbox struct {
	self     string // the executable that serves as helper
	policy   policy
	arg      string // the policy, encoded once
	warnings []string
}

// Layout is where a session's commands may write, by SPEC §13, and what
// stays read-only inside it.
type Layout struct {
	Dir string // the working directory
	// SessionOutput is the part of the session's directory that commands
	// may write: where their saved output goes. The rest of it (the
	// checkpoints, the record of process groups) and the session's
	// history are in ConfigDir, which is protected. "" for none.
	SessionOutput string
	WritableRoots []string // config writableRoots
	Home          string   // for the build caches; "" for none
	TempDir       string   // "" for os.TempDir()
	ConfigDir     string   // dev's configuration directory: never writable
	PathList      string   // the PATH variable: its directories are never writable
}

// buildCaches are the per-user directories build tools write (relative to
// the home directory). ~/.local/bin is deliberately not among them: it is
// on PATH.
var buildCaches = []string{".cache", "go", ".npm", ".cargo", ".rustup", filepath.Join(".local", "share"), filepath.Join(".local", "state")}

// Dirs lists the writable directories: the working directory, the
// temporary directory, the session's output directory, the writable roots,
// the build caches under the home directory, and /dev/shm (POSIX shared
// memory, which Python's multiprocessing needs).
func (l Layout) Dirs() []string {
	dirs := []string{l.Dir, l.tempDir(), l.SessionOutput}
	dirs = append(dirs, l.WritableRoots...)
	if l.Home != "" {
		for _, c := range buildCaches {
			dirs = append(dirs, filepath.Join(l.Home, c))
		}
	}
	dirs = append(dirs, "/dev/shm")
	return absolute(dirs)
}

func (l Layout) tempDir() string {
	if l.TempDir != "" {
		return l.TempDir
	}
	return os.TempDir()
}

// Protected lists the directories that stay read-only even inside the
// writable ones: every absolute directory on PATH (a program planted there
// would later run unconfined: `~/.local/bin/git`), and dev's configuration
// directory (config.json, the sessions' history and checkpoints). Relative
// PATH entries name a different directory wherever a command runs, and are
// not protected.
func (l Layout) Protected() []string {
	var dirs []string
	for _, p := range filepath.SplitList(l.PathList) {
		if filepath.IsAbs(p) {
			dirs = append(dirs, p)
		}
	}
	if l.ConfigDir != "" {
		dirs = append(dirs, l.ConfigDir)
	}
	return absolute(dirs)
}

// absolute makes dirs absolute and clean, dropping empty and repeated ones.
func absolute(dirs []string) []string {
	var out []string
	for _, d := range dirs {
		if d == "" {
			continue
		}
		if abs, err := filepath.Abs(d); err == nil {
			d = abs
		}
		if !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	return out
}

// New returns a sandbox for the layout l and the network n, served by dev
// itself as the helper. It fails, wrapping ErrUnavailable with the reason,
// where the OS cannot confine writes; what it cannot confine beyond that
// (the network, signals on older kernels) and the writable directories
// that a protected one limits are in Warnings.
func New(l Layout, n Network) (*Sandbox, error) {
	support := Probe()
	if !support.Files {
		return nil, fmt.Errorf("%w: %s", ErrUnavailable, support.Why)
	}
	p := policy{Dirs: l.Dirs(), Files: deviceFiles, Protected: l.Protected(), Ports: n.Ports, AllPorts: n.All}
	data, err := json.Marshal(p)
	if err != nil {
		return nil, err
	}
	self := helperPath
	if _, err := os.Stat(self); err != nil {
		// No /proc (a bare container): the executable by its path.
		if self, err = os.Executable(); err != nil {
			return nil, fmt.Errorf("%w: cannot find dev's own executable to confine commands with: %v", ErrUnavailable, err)
		}
	}
	s := &Sandbox{self: self, policy: p, arg: string(data)}
	s.warnings = append(support.Warnings(n), limits(l, p.Protected)...)
	return s, nil
}

// Dirs are the directories confined commands may write (around the
// protected ones).
func (s *Sandbox) Dirs() []string { return s.policy.Dirs }

// Warnings say, once per sandbox, what it does not confine here, and which
// of the writable directories a protected one makes partly read-only.
func (s *Sandbox) Warnings() []string { return s.warnings }

// Wrap makes cmd start through the helper, which confines itself and then
// executes cmd's program with cmd's arguments. The directory, environment
// and process attributes stay as they are.
func (s *Sandbox) Wrap(cmd *exec.Cmd) error {
	if cmd.Err != nil {
		return cmd.Err // the program was not found
	}
	args := append([]string{"dev", HelperArg, s.arg, cmd.Path, "--"}, cmd.Args...)
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

// Support is what the OS can enforce of the sandbox.
type Support struct {
	ABI     int  // the Landlock ABI version; 0 without Landlock
	Files   bool // writes (Landlock, Linux 5.13)
	Network bool // TCP ports (Landlock ABI 4, Linux 6.7, with a seccomp filter)
	Signals bool // signals and abstract unix sockets out of the sandbox (ABI 6, Linux 6.12)
	Why     string
}

// String says what is enforced: "Landlock ABI 7: files, network,
// signals", or why not.
func (s Support) String() string {
	if !s.Files {
		return s.Why
	}
	var on []string
	for _, x := range []struct {
		ok   bool
		name string
	}{{s.Files, "files"}, {s.Network, "network"}, {s.Signals, "signals"}} {
		if x.ok {
			on = append(on, x.name)
		}
	}
	msg := fmt.Sprintf("Landlock ABI %d: %s", s.ABI, strings.Join(on, ", "))
	if s.Why != "" {
		msg += " (" + s.Why + ")"
	}
	return msg
}

// Missing lists, in words, what the sandbox does not confine here that
// the network setting n asks for; empty when it confines everything.
func (s Support) Missing(n Network) []string {
	var m []string
	if !s.Network && !n.All {
		m = append(m, "the network (TCP ports need Landlock ABI 4, Linux 6.7, and seccomp): sandboxed commands can reach any port")
	}
	if !s.Signals {
		m = append(m, "signals (they need Landlock ABI 6, Linux 6.12): sandboxed commands can signal processes outside the sandbox")
	}
	return m
}

// Warnings are Missing as sentences for the start of a run.
func (s Support) Warnings(n Network) []string {
	var w []string
	for _, m := range s.Missing(n) {
		w = append(w, fmt.Sprintf("sandbox: this kernel (Landlock ABI %d) does not confine %s", s.ABI, m))
	}
	return w
}

// limits says which directories the user asked to be writable (the
// working directory, the temporary directory, the writable roots) hold a
// protected one, which makes them partly read-only: Landlock grants whole
// trees, so no entry can be created or removed directly in them (their
// files and other subdirectories stay writable). The build caches are not
// named: that ~/go/bin is on PATH is expected.
func limits(l Layout, protected []string) []string {
	var w []string
	for _, d := range absolute(append([]string{l.Dir, l.tempDir()}, l.WritableRoots...)) {
		root := realPath(d)
		for _, p := range protected {
			if rp := realPath(p); rp == root {
				w = append(w, fmt.Sprintf("sandbox: commands may not write %s: it is on PATH or holds dev's configuration", d))
				break
			} else if within(rp, root) {
				w = append(w, fmt.Sprintf("sandbox: %s is on PATH or holds dev's configuration, so commands may not write it, nor create or remove entries directly in %s or the directories down to it (Landlock grants whole trees; their files and other subdirectories stay writable)", p, d))
				break
			}
		}
	}
	return w
}

// plan turns writable directory trees and protected directories into what
// Landlock can grant, since a grant covers a whole tree: a tree holding no
// protected directory is granted whole; one holding some is not, but its
// subdirectories are planned the same way and its regular files granted
// one by one, so that only the protected directories themselves and the
// directories on the way to them lose the right to gain or lose entries.
// Symbolic links are never followed: a link to elsewhere would grant
// elsewhere.
func plan(dirs, protected []string) (trees, files []string) {
	var prot []string
	for _, p := range protected {
		prot = append(prot, realPath(p))
	}
	var walk func(dir string)
	walk = func(dir string) {
		holds := false
		for _, p := range prot {
			if p == dir {
				return
			}
			holds = holds || within(p, dir)
		}
		if !holds {
			trees = append(trees, dir)
			return
		}
		entries, err := os.ReadDir(dir)
		if err != nil {
			return
		}
		for _, e := range entries {
			path := filepath.Join(dir, e.Name())
			switch {
			case e.IsDir():
				walk(path)
			case e.Type().IsRegular():
				files = append(files, path)
			}
		}
	}
	for _, d := range dirs {
		walk(realPath(d))
	}
	return trees, files
}

// within reports whether path lies strictly inside dir (both clean).
func within(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != "." && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// realPath resolves the symbolic links of p's longest existing prefix, so
// that paths compare as the kernel sees them (Landlock follows links); the
// rest, which does not exist yet, is kept as written.
func realPath(p string) string {
	p = filepath.Clean(p)
	var rest []string
	for {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Join(append([]string{r}, rest...)...)
		}
		parent := filepath.Dir(p)
		if parent == p {
			return filepath.Join(append([]string{p}, rest...)...)
		}
		rest = append([]string{filepath.Base(p)}, rest...)
		p = parent
	}
}
