package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// The test binary doubles as the helper, as dev does, and as a network
// probe (DEV_TEST_PROBE) to run inside the sandbox.
func TestMain(m *testing.M) {
	if IsHelper(os.Args) {
		err := Exec(os.Args[2:])
		fmt.Fprintln(os.Stderr, "sandbox helper:", err)
		os.Exit(126)
	}
	if what := os.Getenv("DEV_TEST_PROBE"); what != "" {
		if err := probe(what, os.Getenv("DEV_TEST_ADDR")); err != nil {
			fmt.Println(what, "refused:", err)
			os.Exit(1)
		}
		fmt.Println(what, "ok")
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// world is a sandbox over a fresh working directory, with a directory
// outside that holds a file.
type world struct {
	sb           *Sandbox
	in, out, tmp string
}

func newWorld(t *testing.T) world {
	t.Helper()
	w := world{in: t.TempDir(), out: t.TempDir(), tmp: t.TempDir()}
	// TempDir is set: os.TempDir() holds the test's other directories.
	w.sb = w.sandbox(t, Layout{Dir: w.in, SessionOutput: filepath.Join(w.tmp, "session"), TempDir: w.tmp}, Network{})
	if err := os.WriteFile(filepath.Join(w.out, "existing.txt"), []byte("outside\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return w
}

func (w world) sandbox(t *testing.T, l Layout, n Network) *Sandbox {
	t.Helper()
	if s := Probe(); !s.Files || !s.Network || !s.Signals {
		t.Fatalf("Landlock ABI 6 or later is expected on this machine: %s", s)
	}
	sb, err := New(l, n)
	if err != nil {
		t.Fatal(err)
	}
	return sb
}

// run runs a shell script confined, in the working directory, with IN,
// OUT and TMP (the sandbox's temporary directory) in its environment.
func (w world) run(t *testing.T, script string) (string, int) {
	t.Helper()
	cmd := exec.Command("sh", "-c", script)
	cmd.Dir = w.in
	cmd.Env = append(os.Environ(), "IN="+w.in, "OUT="+w.out, "TMP="+w.tmp)
	if err := w.sb.Wrap(cmd); err != nil {
		t.Fatal(err)
	}
	out, err := cmd.CombinedOutput()
	code := 0
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		code = exit.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return string(out), code
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

func TestSandboxConfinesWrites(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	out, code := w.run(t, `
		echo in > in.txt && mkdir -p sub/dir && mv in.txt sub/dir/moved.txt && echo ok-inside
		echo tmp > "$TMP/t.txt" && echo ok-tmp
		echo x > /dev/null && echo ok-null
		cat "$OUT/existing.txt"
		echo out > "$OUT/new.txt" || echo denied-create
		echo out >> "$OUT/existing.txt" || echo denied-append
		rm -f "$OUT/existing.txt" || echo denied-remove
		mkdir "$OUT/d" || echo denied-mkdir
		ln -s /etc/passwd "$OUT/l" || echo denied-link
		mv sub/dir/moved.txt "$OUT/" || echo denied-move
		exit 7`+"\n")
	for _, want := range []string{"ok-inside", "ok-tmp", "ok-null", "outside", "denied-create", "denied-append", "denied-remove", "denied-mkdir", "denied-link", "denied-move"} {
		if !strings.Contains(out, want+"\n") {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if code != 7 {
		t.Errorf("exit code %d, want 7 (the command's own)", code)
	}
	if !exists(filepath.Join(w.in, "sub/dir/moved.txt")) || !exists(filepath.Join(w.tmp, "t.txt")) {
		t.Error("writes inside did not happen")
	}
	for _, p := range []string{"new.txt", "d", "l", "moved.txt"} {
		if exists(filepath.Join(w.out, p)) {
			t.Errorf("%s was created outside", p)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(w.out, "existing.txt")); string(b) != "outside\n" {
		t.Errorf("the file outside changed: %q", b)
	}
}

// Landlock is inherited: a child left running in the background by the
// command is confined as well. The fifo reports its result without a sleep.
func TestSandboxCoversBackgroundDescendants(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	fifo := filepath.Join(w.in, "result")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	_, code := w.run(t, `(sh -c 'echo x > "$OUT/bg.txt"' 2>/dev/null; a=$?; sh -c 'echo y > bg-in.txt'; echo "$a $?" > result) > /dev/null 2>&1 &`)
	if code != 0 {
		t.Fatalf("exit code %d", code)
	}
	got, err := os.ReadFile(fifo) // blocks until the background child writes
	if err != nil {
		t.Fatal(err)
	}
	if fields := strings.Fields(string(got)); len(fields) != 2 || fields[0] == "0" || fields[1] != "0" {
		t.Errorf("background child: outside/inside exit codes %q, want non-zero then 0", got)
	}
	if exists(filepath.Join(w.out, "bg.txt")) || !exists(filepath.Join(w.in, "bg-in.txt")) {
		t.Error("the background child was not confined as the command is")
	}
}

func TestWrapRewritesOnlyTheProgram(t *testing.T) {
	t.Parallel()
	sb := &Sandbox{self: "/path/dev", arg: "{}"}
	cmd := exec.Command("/bin/echo", "a", "b")
	cmd.Dir, cmd.Env = "/w", []string{"X=1"}
	if err := sb.Wrap(cmd); err != nil {
		t.Fatal(err)
	}
	want := []string{"dev", HelperArg, "{}", "/bin/echo", "--", "/bin/echo", "a", "b"}
	if cmd.Path != "/path/dev" || strings.Join(cmd.Args, "|") != strings.Join(want, "|") || cmd.Dir != "/w" || cmd.Env[0] != "X=1" {
		t.Errorf("Path %q Args %q", cmd.Path, cmd.Args)
	}
	missing := exec.Command("no-such-program-dev")
	if err := sb.Wrap(missing); err == nil {
		t.Error("a missing program was wrapped")
	}
}

// A helper that cannot confine itself runs nothing.
func TestHelperFailsClosed(t *testing.T) {
	t.Parallel()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	marker := filepath.Join(t.TempDir(), "ran")
	for _, args := range [][]string{
		{HelperArg, "not json", "/bin/sh", "--", "sh", "-c", "touch " + marker},
		{HelperArg, `{"dirs":["/"]}`, "/bin/sh", "sh", "-c", "touch " + marker},
		{HelperArg},
	} {
		out, err := exec.Command(self, args...).CombinedOutput()
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 126 {
			t.Errorf("%q: err %v, output %s", args, err, out)
		}
		if exists(marker) {
			t.Fatalf("%q: the command ran", args)
		}
	}
}

func TestLayoutDirs(t *testing.T) {
	t.Parallel()
	l := Layout{Dir: "/w", SessionOutput: "/c/sessions/s/output", WritableRoots: []string{"/r", "/w"}, Home: "/h", TempDir: "/t",
		ConfigDir: "/c", PathList: "/h/.local/bin:bin::/usr/bin:/h/go/bin:/usr/bin"}
	want := "/w /t /c/sessions/s/output /r /h/.cache /h/go /h/.npm /h/.cargo /h/.rustup /h/.local/share /h/.local/state /dev/shm"
	if got := l.Dirs(); strings.Join(got, " ") != want {
		t.Errorf("Dirs = %q\nwant %q", got, want)
	}
	// Relative entries of PATH name a different directory wherever a
	// command runs: they are not protected.
	if got, want := strings.Join(l.Protected(), " "), "/h/.local/bin /usr/bin /h/go/bin /c"; got != want {
		t.Errorf("Protected = %q\nwant %q", got, want)
	}
}
