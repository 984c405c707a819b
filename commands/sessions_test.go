package commands

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/cookiejar"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/devagent/dev/sessions"
)

func TestSessionsList(t *testing.T) {
	h := newHome(t)
	r := h.run("sessions", "list").ok(t)
	if r.stdout != "" || r.stderr != "no sessions yet\n" {
		t.Errorf("no sessions: stdout %q, stderr %q", r.stdout, r.stderr)
	}

	h.session(idOld, "old prompt", "model-a", 72*time.Hour)
	h.session(idNew, "new prompt", "model-b", time.Minute)
	// A file that is no session shows, with why, instead of hiding.
	if err := os.WriteFile(filepath.Join(h.dir, "sessions", "33333333-3333-4333-8333-333333333333.json"), []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	r = h.run("sessions", "list").ok(t)
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if len(lines) != 4 || !strings.HasPrefix(lines[0], "ID ") {
		t.Fatalf("want a header and 3 rows:\n%s", r.stdout)
	}
	if !strings.Contains(lines[1], "unreadable") || !strings.HasPrefix(lines[2], idNew) || !strings.Contains(lines[2], "new prompt") ||
		!strings.HasPrefix(lines[3], idOld) || !strings.Contains(lines[3], "complete") {
		t.Errorf("rows, newest first:\n%s", r.stdout)
	}

	r = h.run("sessions", "list", "--json").ok(t)
	var rows []struct {
		ID, Status, OriginalPrompt, WorkingDirectory, Error string
		TotalTokens                                         int
	}
	if err := json.Unmarshal([]byte(r.stdout), &rows); err != nil {
		t.Fatalf("%v:\n%s", err, r.stdout)
	}
	if len(rows) != 3 || rows[1].ID != idNew || rows[1].OriginalPrompt != "new prompt" || rows[1].WorkingDirectory != h.cwd ||
		rows[1].TotalTokens != 1050 || rows[0].Status != "unreadable" || rows[0].Error == "" {
		t.Errorf("--json: %+v", rows)
	}
}

func TestSessionsShow(t *testing.T) {
	h := newHome(t)
	h.session(idNew, "say hello", "model-b", time.Minute)

	// A unique prefix of 6 characters will do.
	r := h.run("sessions", "show", idNew[:6]).ok(t)
	for _, want := range []string{"session " + idNew, "say hello", "Said hello.", "## Usage", "1,000"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("show lacks %q:\n%s", want, r.stdout)
		}
	}
	if strings.Contains(r.stdout, "## Tool Choice") {
		t.Errorf("show printed the raw reply:\n%s", r.stdout)
	}
	// A stored session is neither new nor resumed (SPEC §17).
	if !strings.Contains(r.stdout, "dev: session "+idNew) || strings.Contains(r.stdout, "new session") {
		t.Errorf("show announces the session as:\n%s", r.stdout)
	}
	r = h.run("sessions", "show", "--raw", idNew).ok(t)
	if !strings.Contains(r.stdout, "## 2. assistant") || !strings.Contains(r.stdout, "## Tool Choice\nDONE") {
		t.Errorf("--raw:\n%s", r.stdout)
	}
	r = h.run("sessions", "show", "--json", idNew).ok(t)
	var sess sessions.Session
	if err := json.Unmarshal([]byte(r.stdout), &sess); err != nil || sess.ID != idNew || len(sess.History) != 2 {
		t.Errorf("--json: %v %+v", err, sess)
	}

	if err := h.run("sessions", "show", "333333").err; !errors.Is(err, sessions.ErrNotFound) {
		t.Errorf("unknown session: %v", err)
	}
	if err := h.run("sessions", "show", "12").err; !errors.Is(err, sessions.ErrBadID) {
		t.Errorf("too short a prefix: %v", err)
	}
}

// dev sessions serve prints the page's URL with its token on stdout and
// serves until Ctrl+C.
func TestSessionsServe(t *testing.T) {
	h := newHome(t)
	h.session(idNew, "say hello", "model-b", time.Minute)
	out, w := io.Pipe()
	h.out = w
	served := make(chan result, 1)
	go func() {
		r := h.run("sessions", "serve")
		w.Close() // a serve that failed ends the read below
		served <- r
	}()

	url, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("no URL: %v, %v", err, (<-served).err)
	}
	url = strings.TrimSpace(url)
	if !strings.HasPrefix(url, "http://127.0.0.1:") || !strings.Contains(url, "token=") {
		t.Fatalf("URL %q", url)
	}
	// The token's answer is a cookie and a redirect to the page.
	jar, _ := cookiejar.New(nil)
	resp, err := (&http.Client{Jar: jar}).Get(url)
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(page), "say hello") {
		t.Errorf("GET %s: %s\n%s", url, resp.Status, page)
	}

	h.intr.interrupt()
	r := <-served
	if r.err != nil || !strings.Contains(r.stderr, "serving the session browser") {
		t.Errorf("after Ctrl+C: %v\n%s", r.err, r.stderr)
	}
}
