//go:build unix

package e2e

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
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

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd, _, stderr := w.command(ctx, "sessions", "serve")
	cmd.Stdout = nil
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("no URL on stdout (%v); stderr:\n%s", err, stderr)
	}
	printed, err := url.Parse(strings.TrimSpace(line))
	if err != nil || printed.Hostname() != "127.0.0.1" || printed.Query().Get("token") == "" {
		t.Fatalf("stdout %q: want http://127.0.0.1:PORT/?token=…", line)
	}
	base := "http://" + printed.Host

	get := func(client *http.Client, u string) (int, string) {
		t.Helper()
		resp, err := client.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	if code, body := get(http.DefaultClient, base+"/"); code != http.StatusForbidden || strings.Contains(body, "answer") {
		t.Errorf("without the token: %d %q, want 403", code, body)
	}
	jar, _ := cookiejar.New(nil)
	browser := &http.Client{Jar: jar}
	if code, body := get(browser, printed.String()); code != http.StatusOK || !strings.Contains(body, "what is the answer?") {
		t.Errorf("the printed URL: %d, want 200 with the session listed:\n%s", code, body)
	}
	if code, body := get(browser, base+"/s/"+id); code != http.StatusOK || !strings.Contains(body, "The answer is &lt;b&gt;42&lt;/b&gt;.") {
		t.Errorf("the session page: %d, want 200 with its DONE summary:\n%s", code, body)
	} else if !strings.Contains(body, `<span class="del">-two</span>`) || !strings.Contains(body, `<span class="add">&#43;TWO</span>`) {
		t.Errorf("the session page lacks the step's diff:\n%s", body)
	}

	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, out)
	if code := exitCode(t, cmd); code != 0 {
		t.Errorf("after Ctrl+C: exit code %d, want 0; stderr:\n%s", code, stderr)
	}
}

func TestSessionsServeUsage(t *testing.T) {
	w := newWorld(t, nil)
	for _, args := range [][]string{{"sessions", "serve", "now"}, {"sessions", "serve", "--port", "70000"}, {"sessions", "serve", "--port", "x"}} {
		if r := w.run(args...); r.code != 2 {
			t.Errorf("dev %s: exit %d, want 2; stderr:\n%s", strings.Join(args, " "), r.code, r.stderr)
		}
	}
}
