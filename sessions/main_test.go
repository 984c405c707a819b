package sessions

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/devagent/dev/llm"
)

// Cross-process tests re-run this test binary as a child that plays one
// role (hold a lock, remember directories, save in a loop) instead of
// running the tests.
const (
	helperRole = "SESSIONS_TEST_HELPER"
	helperDir  = "SESSIONS_TEST_DIR"
	helperID   = "SESSIONS_TEST_ID"
	helperArg  = "SESSIONS_TEST_ARG"
)

func TestMain(m *testing.M) {
	if role := os.Getenv(helperRole); role != "" {
		os.Exit(runHelper(role))
	}
	os.Exit(m.Run())
}

func runHelper(role string) int {
	s := NewStore(os.Getenv(helperDir), nil)
	id := os.Getenv(helperID)
	arg := os.Getenv(helperArg)
	stdin := bufio.NewReader(os.Stdin)
	switch role {
	case "lock":
		// Hold the lock until killed or told to stop (stdin closed).
		release, err := s.Lock(id)
		if err != nil {
			fmt.Println("error:", err)
			return 1
		}
		fmt.Println("locked")
		_, _ = io.Copy(io.Discard, stdin)
		release()
	case "remember":
		// Remember arg's count of distinct directories, after the parent
		// says go, so that every child and goroutine overlap.
		n, _ := strconv.Atoi(arg)
		fmt.Println("ready")
		if _, err := stdin.ReadString('\n'); err != nil {
			return 1
		}
		for i := range n {
			if err := s.Remember(rememberedDir(id, i), id); err != nil {
				fmt.Println("error:", err)
				return 1
			}
		}
		fmt.Println("done")
	case "save-loop":
		// Save two versions of a session alternately until killed.
		for i := 0; ; i++ {
			sess := version(id, i%2)
			if err := s.Save(sess); err != nil {
				fmt.Println("error:", err)
				return 1
			}
			fmt.Println("saved")
		}
	default:
		fmt.Println("error: unknown role", role)
		return 2
	}
	return 0
}

// rememberedDir is the i-th directory a remember helper records, absolute
// on every OS.
func rememberedDir(id string, i int) string {
	dir, _ := filepath.Abs(filepath.Join(string(filepath.Separator)+"work", id[:8], strconv.Itoa(i)))
	return dir
}

// version returns one of two clearly different versions of a session.
func version(id string, v int) *Session {
	sess := &Session{ID: id, WorkingDirectory: "/w", Status: Active}
	n, text := 200, strings.Repeat("a", 2000)
	if v == 1 {
		n, text = 37, strings.Repeat("<b>", 500)
	}
	sess.Model = fmt.Sprintf("v%d", v)
	for range n {
		sess.History = append(sess.History, llm.Message{Role: llm.RoleUser, Content: text})
	}
	return sess
}

// child is a helper process started by startChild.
type child struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	lines chan string
}

func startChild(t *testing.T, role, dir, id, arg string) *child {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), helperRole+"="+role, helperDir+"="+dir, helperID+"="+id, helperArg+"="+arg)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &child{cmd: cmd, stdin: stdin, lines: make(chan string, 64)}
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			c.lines <- sc.Text()
		}
		close(c.lines)
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	return c
}

// expect waits for the child's next line and fails unless it is want.
func (c *child) expect(t *testing.T, want string) {
	t.Helper()
	select {
	case line, ok := <-c.lines:
		if !ok {
			t.Fatalf("helper exited before saying %q", want)
		}
		if line != want {
			t.Fatalf("helper said %q, want %q", line, want)
		}
	case <-time.After(20 * time.Second):
		t.Fatalf("helper did not say %q within 20s", want)
	}
}

// kill ends the child abruptly, as a crash would, and waits for it.
func (c *child) kill(t *testing.T) {
	t.Helper()
	if err := c.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = c.cmd.Wait()
}

// clock is a settable clock for the store.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock(t time.Time) *clock { return &clock{t: t} }

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = t
}
