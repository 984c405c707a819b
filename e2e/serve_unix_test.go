//go:build unix

package e2e

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// dev sessions serve prints a URL whose token opens the session browser;
// without the token it answers 403; Ctrl+C ends it with exit code 0.
func TestSessionsServe(t *testing.T) {
	w := newWorld(t, nil)
	w.write("a.txt", "one\ntwo\n")
	w.srv.Script(reply("Edit.", "FIND_AND_REPLACE_IN_FILE", "a.txt\n```find\ntwo\n```\n```replace\nTWO\n```"),
		done("The answer is <b>42</b>."), verdict("Overall: PASS"))
	w.run("-p", "what is the answer?").expect(t, 0)
	id := w.onlySession().ID

	browser := w.serve(t)
	if code, body := browser.getWith(http.DefaultClient, browser.base+"/"); code != http.StatusForbidden || strings.Contains(body, "answer") {
		t.Errorf("without the token: %d %q, want 403", code, body)
	}
	if code, body := browser.getWith(browser.client, browser.printed); code != http.StatusOK || !strings.Contains(body, "what is the answer?") {
		t.Errorf("the printed URL: %d, want 200 with the session listed:\n%s", code, body)
	}
	if code, body := browser.get("/s/" + id); code != http.StatusOK || !strings.Contains(body, "The answer is &lt;b&gt;42&lt;/b&gt;.") {
		t.Errorf("the session page: %d, want 200 with its DONE summary:\n%s", code, body)
	} else if !strings.Contains(body, `<span class="del">-two</span>`) || !strings.Contains(body, `<span class="add">&#43;TWO</span>`) {
		t.Errorf("the session page lacks the step's diff:\n%s", body)
	}

	if code := browser.stop(); code != 0 {
		t.Errorf("after Ctrl+C: exit code %d, want 0; stderr:\n%s", code, browser.stderr)
	}
}

// served is a running dev sessions serve and a browser that opened its
// printed URL (so it holds the token's cookie).
type served struct {
	t       *testing.T
	cmd     *exec.Cmd
	out     io.Reader
	stderr  *bytes.Buffer
	printed string // the URL dev printed
	base    string // http://127.0.0.1:PORT
	client  *http.Client
	stopped bool
}

// serve starts dev sessions serve and checks the URL it prints; it is
// stopped at the end of the test unless stop was called.
func (w *world) serve(t *testing.T) *served {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	cmd, _, stderr := w.command(ctx, "sessions", "serve")
	cmd.Stdout = nil
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &served{t: t, cmd: cmd, out: out, stderr: stderr}
	t.Cleanup(func() {
		if !s.stopped {
			s.stop()
		}
	})
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("no URL on stdout (%v); stderr:\n%s", err, stderr)
	}
	printed, err := url.Parse(strings.TrimSpace(line))
	if err != nil || printed.Hostname() != "127.0.0.1" || printed.Query().Get("token") == "" {
		t.Fatalf("stdout %q: want http://127.0.0.1:PORT/?token=…", line)
	}
	jar, _ := cookiejar.New(nil)
	s.printed, s.base, s.client = printed.String(), "http://"+printed.Host, &http.Client{Jar: jar}
	if code, body := s.getWith(s.client, s.printed); code != http.StatusOK {
		t.Fatalf("the printed URL: %d\n%s", code, body)
	}
	return s
}

// get fetches a path of the page with the token's cookie.
func (s *served) get(path string) (int, string) {
	s.t.Helper()
	return s.getWith(s.client, s.base+path)
}

func (s *served) getWith(client *http.Client, u string) (int, string) {
	s.t.Helper()
	resp, err := client.Get(u)
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// stop presses Ctrl+C and returns the exit code.
func (s *served) stop() int {
	s.t.Helper()
	s.stopped = true
	if err := s.cmd.Process.Signal(syscall.SIGINT); err != nil {
		s.t.Fatal(err)
	}
	io.Copy(io.Discard, s.out)
	return exitCode(s.t, s.cmd)
}

func TestSessionsServeUsage(t *testing.T) {
	w := newWorld(t, nil)
	for _, args := range [][]string{{"sessions", "serve", "now"}, {"sessions", "serve", "--port", "70000"}, {"sessions", "serve", "--port", "x"}} {
		if r := w.run(args...); r.code != 2 {
			t.Errorf("dev %s: exit %d, want 2; stderr:\n%s", strings.Join(args, " "), r.code, r.stderr)
		}
	}
}

// After a rewind, the session browser says what it undid, numbers the
// requests as the history holds them now, and lists no diff of what was
// undone; a command the user ran shows with the command, an answer
// rendered. Before, the undone request's diffs were listed, the later
// requests numbered as if it were still there, the command not named and
// the answer shown as a tool's raw input.
func TestSessionsServeAfterARewind(t *testing.T) {
	w := newWorld(t, nil)
	for i, name := range []string{"a", "b"} {
		w.srv.Script(reply("Write.", "WRITE_FILE", name+".txt\n```\n"+name+"\n```"), done("Wrote "+name+".txt."))
		args := []string{"--no-audit", "-p", "write " + name + ".txt"}
		if i > 0 {
			args = append(args, "--resume")
		}
		w.run(args...).expect(t, 0)
		if i == 0 {
			w.runInput("!echo shell-ran\n/exit\n", "--resume").expect(t, 0)
		}
	}
	sess := w.onlySession()
	before := -1
	for _, c := range sess.Checkpoints {
		if c.Reason == "request" {
			before = c.Number // the last: before "write b.txt"
		}
	}
	w.run("rewind", strconv.Itoa(before), "--yes").expect(t, 0)
	w.srv.Script(reply("Write.", "WRITE_FILE", "c.txt\n```\nc\n```"), done("Wrote `c.txt`."))
	w.run("--no-audit", "--resume", "-p", "write c.txt").expect(t, 0)
	if rw := w.onlySession().Rewinds; len(rw) != 1 || rw[0].To != before || rw[0].Kept != 1 || rw[0].Undone != 1 {
		t.Errorf("the session records the rewind as %+v", rw)
	}

	browser := w.serve(t)
	_, body := browser.get("/s/" + sess.ID)
	for _, want := range []string{"request 1 · step 1 · WRITE_FILE a.txt", "request 2 · step 1 · WRITE_FILE c.txt",
		"↶ rewound to checkpoint " + strconv.Itoa(before), "the request that followed was undone", "<pre>write c.txt</pre>",
		"<pre>$ echo shell-ran</pre>", "<p>Wrote <code>c.txt</code>.</p>"} {
		if !strings.Contains(body, want) {
			t.Errorf("the session page lacks %q:\n%s", want, body)
		}
	}
	if strings.Contains(body, "b.txt") || strings.Contains(body, "request 3") {
		t.Errorf("the page shows the undone request or numbers requests as before the rewind:\n%s", body)
	}
}
