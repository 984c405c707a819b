package e2e

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// resultEvent is the last line of a --json run.
func resultEvent(t *testing.T, stdout string) map[string]any {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	var ev map[string]any
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &ev); err != nil || ev["type"] != "result" {
		t.Fatalf("last line is not a result: %q (%v)", lines[len(lines)-1], err)
	}
	return ev
}

// The audit policy "changes" (the default) audits a DONE only when its
// request changed files or ran a command; a pure answer is accepted
// without one, and the result says so.
func TestAuditPolicy(t *testing.T) {
	w := newWorld(t, nil)
	w.srv.Script(done("It is 42."))
	r := w.run("--json", "-p", "what is 6*7?")
	r.expect(t, 0)
	if ev := resultEvent(t, r.stdout); ev["audit"] != "skipped" || ev["audits"] != 0.0 {
		t.Errorf("pure answer: %v", ev)
	}
	if n := len(w.srv.Requests()); n != 1 {
		t.Errorf("%d requests for a pure answer, want 1 (no audit)", n)
	}

	w.srv.Script(reply("Write.", "WRITE_FILE", "a.txt\n```\nx\n```"), done("Wrote a.txt."), verdict("Overall: PASS"))
	r = w.run("--json", "-p", "write a.txt")
	r.expect(t, 0)
	if ev := resultEvent(t, r.stdout); ev["audit"] != "passed" || ev["audits"] != 1.0 {
		t.Errorf("a change: %v", ev)
	}

	w.writeConfig(map[string]any{"apiUrl": w.srv.BaseURL(), "model": "mock-model", "audit": "always"})
	w.srv.Script(done("It is 43."), verdict("Overall: PASS"))
	r = w.run("--json", "-p", "and 43?")
	r.expect(t, 0)
	if ev := resultEvent(t, r.stdout); ev["audit"] != "passed" {
		t.Errorf("audit always: %v", ev)
	}
	w.srv.Script(done("No audit."))
	r = w.run("--json", "--no-audit", "-p", "x")
	r.expect(t, 0)
	if ev := resultEvent(t, r.stdout); ev["audit"] != "off" {
		t.Errorf("--no-audit: %v", ev)
	}
	w.writeConfig(map[string]any{"apiUrl": w.srv.BaseURL(), "model": "mock-model", "audit": "sometimes"})
	if r := w.run("-p", "x"); r.code != 2 || !strings.Contains(r.stderr, `"changes", "always", "off"`) {
		t.Errorf("a bad policy: exit %d\n%s", r.code, r.stderr)
	}
}

// Everywhere a session id is taken, a unique prefix of 6 characters or
// more works; an ambiguous one exits 2 naming the matches.
func TestSessionIDPrefixes(t *testing.T) {
	w := newWorld(t, nil)
	first := "abcdef01-0000-4000-8000-000000000001"
	second := "abcdef02-0000-4000-8000-000000000002"
	for _, id := range []string{first, second} {
		w.srv.Script(done("Answer of " + id[:8] + "."))
		w.run("--session", id, "-p", "request of "+id[:8]).expect(t, 0)
	}
	r := w.run("sessions", "show", "abcdef01")
	r.expect(t, 0)
	if !strings.Contains(r.stdout, "Answer of abcdef01.") || strings.Contains(r.stdout, "abcdef02") {
		t.Errorf("sessions show by prefix:\n%s", r.stdout)
	}
	r = w.run("sessions", "show", "abcdef")
	if r.code != 2 || !strings.Contains(r.stderr, first) || !strings.Contains(r.stderr, second) {
		t.Errorf("ambiguous prefix: exit %d\n%s", r.code, r.stderr)
	}
	if r := w.run("sessions", "show", "abcde"); r.code != 2 || !strings.Contains(r.stderr, "at least 6 characters") {
		t.Errorf("short prefix: exit %d\n%s", r.code, r.stderr)
	}
	w.srv.Script(done("Continued."))
	r = w.run("--session", "abcdef02", "--json", "-p", "go on")
	r.expect(t, 0)
	if !strings.Contains(r.stdout, `"id":"`+second+`","resumed":true`) {
		t.Errorf("--session by prefix:\n%s", r.stdout)
	}
	if r := w.run("--session", "abcdef", "-p", "x"); r.code != 2 {
		t.Errorf("--session with an ambiguous prefix: exit %d", r.code)
	}
	if r := w.run("--session", "fedcba98", "-p", "x"); r.code != 2 || !strings.Contains(r.stderr, "no session id starts with fedcba98") {
		t.Errorf("--session with an unknown prefix: exit %d\n%s", r.code, r.stderr)
	}
}

// dev config show prints every setting and where it comes from, the key
// masked; it creates nothing.
func TestConfigShow(t *testing.T) {
	w := newWorld(t, map[string]any{"maxLoops": 7, "apiKey": "sk-file-key-0000"})
	w.extra = append(w.extra, "DEV_API_KEY=sk-secret-from-env-9876")
	r := w.run("--model", "flag-model", "config", "show")
	r.expect(t, 0)
	rows := map[string]string{}
	for _, l := range strings.Split(r.stdout, "\n")[1:] {
		if f := strings.Fields(l); len(f) >= 3 {
			rows[f[0]] = strings.Join(f[1:], " ")
		}
	}
	for key, want := range map[string]string{
		"maxLoops":       "7 file",
		"apiKey":         "****9876 environment DEV_API_KEY",
		"model":          "flag-model flag --model",
		"audit":          "changes default",
		"commandTimeout": "10 file",
		"maxTokens":      "unset default",
	} {
		if rows[key] != want {
			t.Errorf("%s: %q, want %q\n%s", key, rows[key], want, r.stdout)
		}
	}
	if strings.Contains(r.stdout, "secret") || strings.Contains(r.stdout, "sk-file") {
		t.Errorf("the API key shows:\n%s", r.stdout)
	}
	if !strings.HasPrefix(r.stdout, "config file: "+w.home) {
		t.Errorf("first line: %q", strings.SplitN(r.stdout, "\n", 2)[0])
	}

	if err := removeFile(w.home + "/config.json"); err != nil {
		t.Fatal(err)
	}
	r = w.run("config", "show")
	r.expect(t, 0)
	if !strings.Contains(r.stdout, "(not created yet: defaults)") || fileExists(w.home+"/config.json") {
		t.Errorf("without a file:\n%s", r.stdout)
	}
}

// A mistake in a subcommand exits 2 and names the valid choices.
func TestSubcommandUsageErrors(t *testing.T) {
	w := newWorld(t, nil)
	for _, tt := range []struct {
		args []string
		want []string
	}{
		{[]string{"sessions", "lst"}, []string{`unknown command "lst"`, "did you mean list?", "valid: list, show"}},
		{[]string{"sessions"}, []string{"dev sessions needs a command: list, show"}},
		{[]string{"config", "nonsense"}, []string{`unknown command "nonsense"`, "valid: path, show", "dev config alone opens the file"}},
		{[]string{"config", "shw"}, []string{"did you mean show?"}},
		{[]string{"sessions", "show"}, []string{"usage: dev sessions show <id>"}},
	} {
		r := w.run(tt.args...)
		if r.code != 2 {
			t.Errorf("dev %s: exit %d, want 2\n%s", strings.Join(tt.args, " "), r.code, r.stderr)
		}
		for _, want := range tt.want {
			if !strings.Contains(r.stderr, want) {
				t.Errorf("dev %s: stderr lacks %q:\n%s", strings.Join(tt.args, " "), want, r.stderr)
			}
		}
	}
}

// A flag a command does not have exits 2 with one line naming the
// command and its valid flags, never the whole help.
func TestBadFlagOfEveryCommand(t *testing.T) {
	w := newWorld(t, nil)
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--bogus"}, "dev: unknown flag --bogus (valid: -p/--prompt PROMPT, "},
		{[]string{"sessions", "--bogus"}, "dev sessions takes no flags; its commands: list, show, serve"},
		{[]string{"sessions", "list", "--bogus"}, "dev sessions list: unknown flag --bogus (valid: --json)"},
		{[]string{"sessions", "show", "--bogus"}, "(valid: --raw, --json)"},
		{[]string{"sessions", "serve", "--bogus"}, "(valid: --port N)"},
		{[]string{"config", "--bogus"}, "dev config takes no flags; its commands: path, show"},
		{[]string{"config", "path", "--bogus"}, "dev config path takes no flags"},
		{[]string{"config", "show", "--bogus"}, "(valid: --profile NAME)"},
		{[]string{"checkpoints", "--bogus"}, "dev checkpoints: unknown flag --bogus (valid: --session ID)"},
		{[]string{"diff", "--bogus"}, "dev diff: unknown flag --bogus (valid: --session ID)"},
		{[]string{"rewind", "1", "--bogus"}, "(valid: --session ID, --files-only, -y/--yes)"},
		{[]string{"doctor", "--bogus"}, "(valid: -m/--model MODEL, --profile NAME, --constrain MODE, --json)"},
		{[]string{"mcp", "--bogus"}, "(valid: -v/--verbose)"},
		{[]string{"stats", "--bogus"}, "(valid: --days N, --json)"},
		{[]string{"stats", "--days", "x"}, `dev stats: invalid value "x" for --days: a whole number is needed`},
		{[]string{"profiles", "--bogus"}, "(valid: --profile NAME)"},
	} {
		r := w.run(tt.args...)
		if r.code != 2 || r.stdout != "" || strings.Count(r.stderr, "\n") != 1 || !strings.Contains(r.stderr, tt.want) {
			t.Errorf("dev %s: exit %d, want 2 and one line with %q\nstdout:\n%s\nstderr:\n%s", strings.Join(tt.args, " "), r.code, tt.want, r.stdout, r.stderr)
		}
	}
}

// Before the first prompt dev says when the server is unreachable or the
// model unknown, with the fix, and still starts.
func TestServerProblemsBeforeTheFirstPrompt(t *testing.T) {
	t.Run("unreachable", func(t *testing.T) {
		w := newWorld(t, map[string]any{"apiUrl": "http://127.0.0.1:1/v1"})
		r := w.runInput("/exit\n")
		r.expect(t, 0)
		noServer(t, r.stderr)
	})
	// -p says the same when its request fails (SPEC §17: no server, no
	// mystery).
	t.Run("unreachable with -p", func(t *testing.T) {
		w := newWorld(t, map[string]any{"apiUrl": "http://127.0.0.1:1/v1", "maxRetriesAutomated": 0})
		r := w.run("-p", "hello")
		r.expect(t, 1)
		noServer(t, r.stderr)
	})
	t.Run("unknown model", func(t *testing.T) {
		w := newWorld(t, map[string]any{"model": "mock-modle"})
		r := w.runInput("/model mock-model\n/exit\n")
		r.expect(t, 0)
		if !strings.Contains(r.stderr, `has no model "mock-modle"; it offers mock-model`) || !strings.Contains(r.stderr, "model: mock-model for the next requests") {
			t.Errorf("unknown model:\n%s", r.stderr)
		}
	})
	t.Run("no /v1", func(t *testing.T) {
		w := newWorld(t, nil)
		w.writeConfig(map[string]any{"apiUrl": w.srv.URL, "model": "mock-model"})
		r := w.runInput("/exit\n")
		if !strings.Contains(r.stderr, "apiUrl lacks /v1. Fix: set apiUrl to "+w.srv.URL+"/v1") {
			t.Errorf("no /v1:\n%s", r.stderr)
		}
	})
}

// noServer checks that stderr says the server cannot be reached, and how
// to start one or check the setup.
func noServer(t *testing.T, stderr string) {
	t.Helper()
	for _, want := range []string{"cannot reach the model server at http://127.0.0.1:1/v1", "Fix: start it",
		"the README's quick start runs one with scripts/llama-server.sh", "or set apiUrl in", "dev doctor checks the setup"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("%q is not said:\n%s", want, stderr)
		}
	}
}

// --resume shows how the last run ended, and why when it failed.
func TestResumeShowsHowTheLastRunEnded(t *testing.T) {
	w := newWorld(t, nil)
	w.srv.Script(reply("Think.", "LIST_DIRECTORY", "."), reply("Think.", "LIST_DIRECTORY", "./x"))
	w.writeConfig(map[string]any{"apiUrl": w.srv.BaseURL(), "model": "mock-model", "maxLoops": 2})
	w.run("--no-audit", "-p", "loop").expect(t, 4)
	r := w.runInput("/exit\n", "--resume")
	r.expect(t, 0)
	if !strings.Contains(r.stderr, "last run: failed: stopped after 2 steps without DONE (maxLoops in") {
		t.Errorf("--resume after a failure:\n%s", r.stderr)
	}
}

func removeFile(path string) error { return os.Remove(path) }

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
