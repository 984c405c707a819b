package e2e

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// The breaks of issue 22 that an adversarial run found under --sandbox
// workspace, each tried again through the dev binary: the network, signals,
// directories on PATH, the session's own files, and MCP servers.

// netprobe is testdata/netprobe, built once for the suite.
var netprobe struct {
	once sync.Once
	path string
	err  error
}

func netprobePath(t *testing.T) string {
	t.Helper()
	netprobe.once.Do(func() {
		dir, err := os.MkdirTemp("", "dev-e2e-netprobe-")
		if err != nil {
			netprobe.err = err
			return
		}
		netprobe.path = filepath.Join(dir, "netprobe")
		cmd := exec.Command("go", "build", "-o", netprobe.path, "./e2e/testdata/netprobe")
		cmd.Dir = ".."
		if out, err := cmd.CombinedOutput(); err != nil {
			netprobe.err = fmt.Errorf("building netprobe: %w\n%s", err, out)
		}
	})
	if netprobe.err != nil {
		t.Fatal(netprobe.err)
	}
	return netprobe.path
}

// tcpListener listens outside dev and counts the connections it accepts.
func tcpListener(t *testing.T) (addr string, port int, accepted func() int) {
	t.Helper()
	l, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	count := make(chan int, 1)
	count <- 0
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.Close()
			count <- <-count + 1
		}
	}()
	return l.Addr().String(), l.Addr().(*net.TCPAddr).Port, func() int { n := <-count; count <- n; return n }
}

// Break 3: a sandboxed command connected to a local port and listened on
// one. Go programs (Multipath TCP by default) and bash alike are refused.
func TestSandboxClosesTheNetwork(t *testing.T) {
	addr, port, accepted := tcpListener(t)
	// The denied commands would stop bash's /dev/tcp before the sandbox
	// sees it: this is about the sandbox.
	w := newWorld(t, map[string]any{"sandbox": "workspace", "denyBuiltinCommands": false})
	w.extra = append(sandboxEnv(t, t.TempDir()), "PROBE="+netprobePath(t), "ADDR="+addr, fmt.Sprintf("PORT=%d", port))
	w.srv.Script(
		reply("Try the network.", "COMMAND", `"$PROBE" dial "$ADDR"; "$PROBE" listen 127.0.0.1:0; "$PROBE" mptcp "$ADDR"
bash -c ': > /dev/tcp/127.0.0.1/'"$PORT" 2>/dev/null && echo "bash connected" || echo "bash refused"
exit 0`),
		done("Tried."),
	)
	w.run("--no-audit", "-p", "reach the network").expect(t, 0)
	told := lastUser(w.srv.Requests()[1])
	for _, want := range []string{"dial refused: ", "listen refused: ", "mptcp refused: ", "bash refused"} {
		if !strings.Contains(told, want) {
			t.Errorf("the command's output lacks %q:\n%s", want, told)
		}
	}
	if n := accepted(); n != 0 {
		t.Errorf("the listener outside dev accepted %d connections from the sandbox", n)
	}
}

// sandboxNetwork opens exactly the ports it lists; "all" opens every one.
func TestSandboxNetworkOpensTheListedPorts(t *testing.T) {
	open, openPort, openAccepted := tcpListener(t)
	closed, _, closedAccepted := tcpListener(t)
	w := newWorld(t, map[string]any{"sandbox": "workspace", "sandboxNetwork": []int{openPort}})
	w.extra = append(sandboxEnv(t, t.TempDir()), "PROBE="+netprobePath(t), "OPEN="+open, "CLOSED="+closed)
	w.srv.Script(reply("Try.", "COMMAND", `"$PROBE" dial "$OPEN"; "$PROBE" dial "$CLOSED"; exit 0`), done("Tried."))
	w.run("--no-audit", "-p", "reach the listed port").expect(t, 0)
	if told := lastUser(w.srv.Requests()[1]); !strings.Contains(told, "dial ok\ndial refused: ") {
		t.Errorf("want the listed port open and the other closed:\n%s", told)
	}
	if openAccepted() != 1 || closedAccepted() != 0 {
		t.Errorf("accepted %d on the listed port and %d on the other, want 1 and 0", openAccepted(), closedAccepted())
	}

	all := setUpWorld(t, map[string]any{"sandbox": "workspace", "sandboxNetwork": "all"})
	all.extra = append(sandboxEnv(t, t.TempDir()), "PROBE="+netprobePath(t), "CLOSED="+closed)
	all.srv.Script(reply("Try.", "COMMAND", `"$PROBE" dial "$CLOSED"; "$PROBE" listen 127.0.0.1:0; exit 0`), done("Tried."))
	all.run("--no-audit", "-p", "reach any port").expect(t, 0)
	if told := lastUser(all.srv.Requests()[1]); !strings.Contains(told, "dial ok\nlisten ok") {
		t.Errorf(`with "all", want every port open:\n%s`, told)
	}
}

// Break 3: a sandboxed command killed a process outside dev. It may still
// signal its own children.
func TestSandboxKeepsSignalsInside(t *testing.T) {
	victim := exec.Command("sleep", "300")
	if err := victim.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { victim.Process.Kill(); victim.Wait() })
	w := newWorld(t, map[string]any{"sandbox": "workspace"})
	w.extra = append(sandboxEnv(t, t.TempDir()), fmt.Sprintf("VICTIM=%d", victim.Process.Pid))
	w.srv.Script(
		reply("Kill.", "COMMAND", `kill -9 "$VICTIM" && echo "killed it" || echo "kill refused"
sleep 300 & kill $!; wait $!; echo "own child ended: $?"`),
		done("Tried."),
	)
	w.run("--no-audit", "-p", "kill a process").expect(t, 0)
	told := lastUser(w.srv.Requests()[1])
	if !strings.Contains(told, "kill refused") || !strings.Contains(told, "own child ended: 143") {
		t.Errorf("the command's output:\n%s", told)
	}
	if err := victim.Process.Signal(syscall.Signal(0)); err != nil {
		t.Errorf("the process outside dev is gone: %v", err)
	}
}

// Break 3: a sandboxed command wrote ~/.local/bin/git, which later runs
// unsandboxed from PATH. No directory on PATH is writable, even under a
// writable root (the build cache ~/go, the working directory); what lies
// around it stays writable.
func TestSandboxPathDirectoriesAreReadOnly(t *testing.T) {
	w := newWorld(t, map[string]any{"sandbox": "workspace"})
	for _, d := range []string{".local/bin", "go/bin", "go/pkg"} {
		if err := os.MkdirAll(filepath.Join(w.home, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	w.write("tools/bin/.keep", "")
	w.write("src/main.go", "package main\n")
	path := strings.Join([]string{filepath.Join(w.home, ".local/bin"), filepath.Join(w.home, "go/bin"), filepath.Join(w.dir, "tools/bin"), os.Getenv("PATH")}, ":")
	w.extra = append(sandboxEnv(t, t.TempDir()), "PATH="+path)
	w.srv.Script(
		reply("Plant.", "COMMAND", `for d in "$HOME/.local/bin" "$HOME/go/bin" tools/bin; do
  printf '#!/bin/sh\necho pwned\n' > "$d/git" 2>/dev/null && echo "planted in $d" || echo "refused in $d"
done
echo x > "$HOME/go/pkg/x" && echo "go/pkg written"
echo x >> src/main.go && echo "src written"`),
		done("Tried."),
	)
	r := w.run("--no-audit", "-p", "plant a git")
	r.expect(t, 0)
	told := lastUser(w.srv.Requests()[1])
	for _, want := range []string{"refused in " + w.home + "/.local/bin", "refused in " + w.home + "/go/bin", "refused in tools/bin", "go/pkg written", "src written"} {
		if !strings.Contains(told, want) {
			t.Errorf("the command's output lacks %q:\n%s", want, told)
		}
	}
	for _, p := range []string{filepath.Join(w.home, ".local/bin/git"), filepath.Join(w.home, "go/bin/git"), filepath.Join(w.dir, "tools/bin/git")} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s was planted", p)
		}
	}
	// The working directory holds a directory on PATH: dev says what that costs.
	if !strings.Contains(r.stderr, "commands may not write it, nor create or remove entries directly in "+w.dir) {
		t.Errorf("no warning that the working directory is limited:\n%s", r.stderr)
	}
}

// Break 5: a sandboxed command overwrote the session's checkpoint objects,
// and dev checkpoints, diff and rewind failed afterwards. The session's
// checkpoints, history and process record are read-only; its output
// directory, where saved command output goes, is not.
func TestSandboxSessionFilesAreReadOnly(t *testing.T) {
	const id = "6b3f2c1e-8d4a-4f5b-9c2e-1a7d3e5f9b08"
	w := newWorld(t, map[string]any{"sandbox": "workspace"})
	w.write("a.txt", "one\n")
	session := filepath.Join(w.home, "sessions", id)
	w.extra = append(sandboxEnv(t, t.TempDir()), "SESS="+session)
	w.srv.Script(
		reply("Edit.", "COMMAND", `echo two > a.txt`),
		reply("Break the session.", "COMMAND", `find "$SESS" -path "$SESS/output" -prune -o -type f -print | while read -r f; do
  echo garbage 2>/dev/null > "$f" && echo "overwrote $f"
done
rm -rf "$SESS/checkpoints" 2>/dev/null || echo "rm refused"
echo garbage 2>/dev/null > "$SESS.json" || echo "history refused"
echo note > "$SESS/output/note.txt" && echo "output written"
seq 1 100000`),
		done("Done."),
	)
	w.run("--no-audit", "--session", id, "-p", "edit, then break the session").expect(t, 0)
	told := lastUser(w.srv.Requests()[2])
	if strings.Contains(told, "overwrote") || !strings.Contains(told, "rm refused") || !strings.Contains(told, "history refused") || !strings.Contains(told, "output written") {
		t.Errorf("the command's output:\n%s", told)
	}
	// The command's long output was saved, in the session's output directory.
	if saved, _ := filepath.Glob(filepath.Join(session, "output", "command-*.log")); len(saved) != 1 || !strings.Contains(told, saved[0]) {
		t.Errorf("saved output %q, not named in the result", saved)
	}
	list := w.run("checkpoints", "--session", id)
	list.expect(t, 0)
	if !strings.Contains(list.stdout, "~a.txt") {
		t.Errorf("dev checkpoints:\n%s", list.stdout)
	}
	diff := w.run("diff", "--session", id)
	diff.expect(t, 0)
	if !strings.Contains(diff.stdout, "-one") || !strings.Contains(diff.stdout, "+two") {
		t.Errorf("dev diff:\n%s", diff.stdout)
	}
}

// Break 4: an MCP call wrote outside the workspace under --sandbox
// workspace. Stdio servers start inside the same sandbox.
func TestSandboxConfinesMCPServers(t *testing.T) {
	exe := mcpServerPath(t)
	outside := t.TempDir()
	w := newWorld(t, map[string]any{"sandbox": "workspace", "mcpServers": map[string]any{"t": map[string]any{"command": exe}}})
	w.extra = sandboxEnv(t, outside)
	w.srv.Script(
		reply("Write outside.", "t.write", fmt.Sprintf(`{"path": %q, "text": "x"}`, filepath.Join(outside, "mcp.txt"))),
		reply("Write inside.", "t.write", fmt.Sprintf(`{"path": %q, "text": "x"}`, filepath.Join(w.dir, "mcp.txt"))),
		done("Done."),
	)
	w.run("--no-audit", "-p", "write with MCP").expect(t, 0)
	reqs := w.srv.Requests()
	if told := lastUser(reqs[1]); !strings.Contains(told, `ok="false"`) || !strings.Contains(told, "permission denied") {
		t.Errorf("the write outside: %s", told)
	}
	if told := lastUser(reqs[2]); !strings.Contains(told, `ok="true"`) {
		t.Errorf("the write inside: %s", told)
	}
	if _, err := os.Stat(filepath.Join(outside, "mcp.txt")); err == nil {
		t.Error("the MCP server wrote outside the workspace")
	}
	if _, err := os.Stat(filepath.Join(w.dir, "mcp.txt")); err != nil {
		t.Errorf("the MCP server could not write inside the workspace: %v", err)
	}
	// dev mcp starts the servers in the same sandbox.
	if r := w.run("mcp"); r.code != 0 || !strings.Contains(r.stdout, "t.write") {
		t.Errorf("dev mcp under the sandbox: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// Ordinary work still runs in the sandbox: building and running a Go
// program, writing the workspace, the build cache and the temporary
// directory, and signalling what the command started.
func TestSandboxOrdinaryWork(t *testing.T) {
	out, err := exec.Command("go", "env", "GOCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	gocache := strings.TrimSpace(string(out)) // warm: the test does not rebuild the standard library
	w := newWorld(t, map[string]any{"sandbox": "workspace", "writableRoots": []string{gocache}, "commandTimeout": 120})
	if err := os.MkdirAll(filepath.Join(w.home, ".cache"), 0o755); err != nil {
		t.Fatal(err)
	}
	w.write("go.mod", "module hello\n\ngo 1.22\n")
	w.write("main.go", "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"hello from the sandbox\") }\n")
	w.extra = append(sandboxEnv(t, t.TempDir()), "GOCACHE="+gocache, "GOTOOLCHAIN=local", "GOPROXY=off", "GOFLAGS=")
	w.srv.Script(
		reply("Build.", "COMMAND", `go build -o hello . && ./hello && echo made > notes.txt && echo c > "$HOME/.cache/x" && f=$(mktemp) && echo t > "$f" && echo "all written"`),
		done("Built."),
	)
	w.run("--no-audit", "-p", "build it").expect(t, 0)
	if told := lastUser(w.srv.Requests()[1]); !strings.Contains(told, "hello from the sandbox\nall written") {
		t.Errorf("the command's output:\n%s", told)
	}
}
