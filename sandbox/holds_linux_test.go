package sandbox

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// probe tries one network operation, from inside the sandbox when the
// test binary runs as a confined command.
func probe(what, addr string) error {
	switch what {
	case "dial":
		c, err := net.DialTimeout("tcp", addr, 5*time.Second)
		if err == nil {
			c.Close()
		}
		return err
	case "listen": // Go listens with Multipath TCP by default
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err == nil {
			l.Close()
		}
		return err
	case "mptcp-connect": // a Multipath TCP socket reaches plain TCP listeners
		fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM, unix.IPPROTO_MPTCP)
		if err != nil {
			return err
		}
		defer unix.Close(fd)
		ap, err := net.ResolveTCPAddr("tcp", addr)
		if err != nil {
			return err
		}
		return unix.Connect(fd, &unix.SockaddrInet4{Port: ap.Port, Addr: [4]byte(ap.IP.To4())})
	case "io_uring":
		var params [120]byte // struct io_uring_params
		fd, _, errno := unix.Syscall(unix.SYS_IO_URING_SETUP, 1, uintptr(unsafe.Pointer(&params)), 0)
		if errno != 0 {
			return errno
		}
		unix.Close(int(fd))
		return nil
	}
	return fmt.Errorf("unknown probe %q", what)
}

// listener accepts connections outside the sandbox and counts them.
func listener(t *testing.T) (addr string, accepted func() int) {
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
	return l.Addr().String(), func() int { n := <-count; count <- n; return n }
}

// runProbe runs the test binary as a probe, confined by sb.
func runProbe(t *testing.T, sb *Sandbox, what, addr string) (string, bool) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(self)
	cmd.Env = append(os.Environ(), "DEV_TEST_PROBE="+what, "DEV_TEST_ADDR="+addr)
	if err := sb.Wrap(cmd); err != nil {
		t.Fatal(err)
	}
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(out)), err == nil
}

func TestSandboxClosesTheNetwork(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	addr, accepted := listener(t)
	for _, what := range []string{"dial", "listen", "mptcp-connect", "io_uring"} {
		if out, ok := runProbe(t, w.sb, what, addr); ok || !strings.Contains(out, "refused: ") {
			t.Errorf("%s inside the sandbox: %s", what, out)
		}
	}
	if n := accepted(); n != 0 {
		t.Errorf("the listener outside accepted %d connections", n)
	}
}

// The ports of sandboxNetwork, and only those, are open; "all" opens
// every one.
func TestSandboxOpensTheListedPorts(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	open, openAccepted := listener(t)
	closed, closedAccepted := listener(t)
	_, portText, _ := net.SplitHostPort(open)
	port, _ := strconv.Atoi(portText)
	listed := w.sandbox(t, Layout{Dir: w.in, TempDir: w.tmp}, Network{Ports: []uint16{uint16(port)}})
	if out, ok := runProbe(t, listed, "dial", open); !ok {
		t.Errorf("dial to the listed port: %s", out)
	}
	if out, ok := runProbe(t, listed, "dial", closed); ok {
		t.Errorf("dial to a port not listed: %s", out)
	}
	all := w.sandbox(t, Layout{Dir: w.in, TempDir: w.tmp}, Network{All: true})
	for _, what := range []string{"dial", "listen"} {
		if out, ok := runProbe(t, all, what, closed); !ok {
			t.Errorf("%s with all ports open: %s", what, out)
		}
	}
	if openAccepted() != 1 || closedAccepted() != 1 {
		t.Errorf("accepted %d on the listed port, %d on the other (want 1 and 1: the last from the sandbox with all ports)", openAccepted(), closedAccepted())
	}
}

// A confined command signals its own children, never a process outside.
func TestSandboxKeepsSignalsInside(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	victim := exec.Command("sleep", "300")
	if err := victim.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { victim.Process.Kill(); victim.Wait() })
	out, _ := w.run(t, fmt.Sprintf(`kill -9 %d || echo refused-outside
sleep 300 & kill $! && wait $!; echo "own child: $?"`, victim.Process.Pid))
	if !strings.Contains(out, "refused-outside") || !strings.Contains(out, "own child: 143") {
		t.Errorf("output:\n%s", out)
	}
	if err := victim.Process.Signal(syscall.Signal(0)); err != nil {
		t.Errorf("the process outside is gone: %v", err)
	}
}

// The directories on PATH and dev's configuration directory stay
// read-only inside writable ones; what lies around them stays writable, and
// a writable directory inside a protected one (the session's output) too.
func TestSandboxKeepsProtectedDirectoriesReadOnly(t *testing.T) {
	t.Parallel()
	w := world{in: t.TempDir(), out: t.TempDir(), tmp: t.TempDir()}
	config := filepath.Join(w.in, "config")
	output := filepath.Join(config, "sessions", "s", "output")
	for _, d := range []string{"tools/bin", "tools/lib", "src", "config/sessions/s/checkpoints", "config/sessions/s/output"} {
		if err := os.MkdirAll(filepath.Join(w.in, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"go.mod", "tools/README", "config/config.json"} {
		if err := os.WriteFile(filepath.Join(w.in, f), []byte("old\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	w.sb = w.sandbox(t, Layout{Dir: w.in, TempDir: w.tmp, SessionOutput: output, ConfigDir: config,
		PathList: filepath.Join(w.in, "tools/bin") + ":relative/bin:/usr/bin"}, Network{})
	out, _ := w.run(t, `
		echo x > tools/bin/git || echo refused-path
		echo x > config/config.json || echo refused-config
		echo x > config/sessions/s/checkpoints/obj || echo refused-checkpoints
		mkdir newdir || echo refused-mkdir-on-the-way
		echo new >> go.mod && echo ok-existing-file
		echo new > tools/lib/x && echo ok-sibling
		echo new > tools/README && echo ok-file-on-the-way
		echo new > src/main.go && echo ok-subdirectory
		echo new > config/sessions/s/output/o && echo ok-output
		echo new > "$TMP/t" && echo ok-tmp`+"\n")
	for _, want := range []string{"refused-path", "refused-config", "refused-checkpoints", "refused-mkdir-on-the-way",
		"ok-existing-file", "ok-sibling", "ok-file-on-the-way", "ok-subdirectory", "ok-output", "ok-tmp"} {
		if !strings.Contains(out, want+"\n") {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	for _, p := range []string{"tools/bin/git", "newdir", "config/sessions/s/checkpoints/obj"} {
		if exists(filepath.Join(w.in, p)) {
			t.Errorf("%s was created", p)
		}
	}
	if warnings := w.sb.Warnings(); len(warnings) != 1 || !strings.Contains(warnings[0], "directly in "+w.in) {
		t.Errorf("warnings %q, want one that the working directory is limited", warnings)
	}
}

func TestPlan(t *testing.T) {
	t.Parallel()
	root, elsewhere := t.TempDir(), t.TempDir()
	for _, d := range []string{"a/b", "a/d", "c"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"f", "a/g"} {
		if err := os.WriteFile(filepath.Join(root, f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(elsewhere, filepath.Join(root, "a", "link")); err != nil {
		t.Fatal(err)
	}
	rel := func(paths []string) string {
		var out []string
		for _, p := range paths {
			r, _ := filepath.Rel(root, p)
			out = append(out, r)
		}
		slices.Sort(out)
		return strings.Join(out, " ")
	}
	trees, files := plan([]string{root, filepath.Join(root, "c")}, []string{filepath.Join(root, "a/b"), "/usr/bin"})
	if got, want := rel(trees), "a/d c c"; got != want {
		t.Errorf("trees %q, want %q", got, want)
	}
	if got, want := rel(files), "a/g f"; got != want {
		t.Errorf("files %q, want %q (never the link)", got, want)
	}
	// A protected directory that does not exist yet cannot be created.
	trees, _ = plan([]string{root}, []string{filepath.Join(root, "c/bin")})
	if got, want := rel(trees), "a"; got != want {
		t.Errorf("trees %q, want %q", got, want)
	}
}

func TestSupportWarnings(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		s    Support
		n    Network
		want []string
	}{
		{Support{ABI: 7, Files: true, Network: true, Signals: true}, Network{}, nil},
		{Support{ABI: 3, Files: true}, Network{}, []string{"(Landlock ABI 3) does not confine the network", "(Landlock ABI 3) does not confine signals"}},
		{Support{ABI: 5, Files: true, Network: true}, Network{}, []string{"does not confine signals"}},
		{Support{ABI: 3, Files: true}, Network{All: true}, []string{"does not confine signals"}},
	} {
		got := c.s.Warnings(c.n)
		if len(got) != len(c.want) {
			t.Errorf("%+v %+v: %q, want %q", c.s, c.n, got, c.want)
			continue
		}
		for i := range got {
			if !strings.Contains(got[i], c.want[i]) {
				t.Errorf("%+v %+v: %q lacks %q", c.s, c.n, got[i], c.want[i])
			}
		}
	}
	if got := (Support{ABI: 7, Files: true, Network: true, Signals: true}).String(); got != "Landlock ABI 7: files, network, signals" {
		t.Errorf("String = %q", got)
	}
}

// The seccomp program, run on an interpreter for every architecture it
// knows: socket(…, IPPROTO_MPTCP), socketcall's socket and io_uring_setup
// fail; other sockets and system calls, and other architectures, pass.
func TestNetFilter(t *testing.T) {
	t.Parallel()
	allow, noproto, nosys := unix.SECCOMP_RET_ALLOW, unix.SECCOMP_RET_ERRNO|int(unix.EPROTONOSUPPORT), unix.SECCOMP_RET_ERRNO|int(unix.ENOSYS)
	for arch, nums := range filterArchs {
		prog, err := netFilter(nums, arch == "amd64")
		if err != nil {
			t.Fatalf("%s: %v", arch, err)
		}
		raw := make([]bpf.Instruction, len(prog))
		for i, f := range prog {
			raw[i] = bpf.RawInstruction{Op: f.Code, Jt: f.Jt, Jf: f.Jf, K: f.K}.Disassemble()
		}
		vm, err := bpf.NewVM(raw)
		if err != nil {
			t.Fatalf("%s: %v", arch, err)
		}
		// seccomp_data: the interpreter loads words big-endian, so the
		// fields are laid out so; arguments' low halves as the kernel has them.
		call := func(a uint32, nr uint32, args ...uint32) int {
			data := make([]byte, 64)
			binary.BigEndian.PutUint32(data[dataNr:], nr)
			binary.BigEndian.PutUint32(data[dataArch:], a)
			for i, v := range args {
				binary.BigEndian.PutUint32(data[dataArg0+8*i:], v)
			}
			got, err := vm.Run(data)
			if err != nil {
				t.Fatalf("%s: %v", arch, err)
			}
			return got
		}
		native, compat := nums[0], nums[1]
		for _, c := range []struct {
			name string
			got  int
			want int
		}{
			{"mptcp socket", call(native.arch, native.socket, unix.AF_INET, unix.SOCK_STREAM, unix.IPPROTO_MPTCP), noproto},
			{"tcp socket", call(native.arch, native.socket, unix.AF_INET, unix.SOCK_STREAM, 0), allow},
			{"io_uring_setup", call(native.arch, native.ioUring), nosys},
			{"another call", call(native.arch, 0), allow},
			{"compat mptcp socket", call(compat.arch, compat.socket, unix.AF_INET6, unix.SOCK_STREAM, unix.IPPROTO_MPTCP), noproto},
			{"compat udp socket", call(compat.arch, compat.socket, unix.AF_INET, unix.SOCK_DGRAM, 0), allow},
			{"compat io_uring_setup", call(compat.arch, compat.ioUring), nosys},
			{"another arch", call(0x1234, native.socket, unix.AF_INET, unix.SOCK_STREAM, unix.IPPROTO_MPTCP), allow},
		} {
			if c.got != c.want {
				t.Errorf("%s %s: %#x, want %#x", arch, c.name, c.got, c.want)
			}
		}
		if arch == "amd64" {
			if got := call(native.arch, x32Bit|native.socket, unix.AF_INET, unix.SOCK_STREAM, unix.IPPROTO_MPTCP); got != noproto {
				t.Errorf("x32 mptcp socket: %#x", got)
			}
			if got := call(compat.arch, compat.socketcall, 1); got != noproto {
				t.Errorf("socketcall socket: %#x", got)
			}
			if got := call(compat.arch, compat.socketcall, 3); got != allow {
				t.Errorf("socketcall connect: %#x", got)
			}
		}
	}
	if _, ok := filterArchs[runtime.GOARCH]; !ok {
		t.Logf("no filter for %s: the network is reported as not confined", runtime.GOARCH)
	}
}
