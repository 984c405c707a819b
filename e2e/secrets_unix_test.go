//go:build unix

package e2e

import (
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/devagent/dev/llm/llmtest"
)

// A secret value is masked in the forms a command prints it in (issue 22,
// break 6): base64 (alone and inside a longer text at the three byte
// alignments), base64url, hex, JSON and URL escaping. Each form, computed
// here, must be absent from every request, the session file and --json.
func TestSecretEncodingsAreMasked(t *testing.T) {
	const secret = "s3cr3t/Value+for-tests?x"
	w := newWorld(t, nil)
	w.extra = []string{"DEV_E2E_TOKEN=" + secret}
	b64 := func(enc *base64.Encoding, prefix string) string {
		return enc.EncodeToString([]byte(prefix + secret))
	}
	// Each form as the command prints it; what must not appear is the
	// part that encodes the secret alone (the first characters of an
	// aligned text also encode the prefix).
	forms := map[string]string{
		"base64":           b64(base64.StdEncoding, ""),
		"base64, 1 before": b64(base64.StdEncoding, "x")[2:30],
		"base64, 2 before": b64(base64.StdEncoding, "xy")[3:30],
		"base64url":        b64(base64.URLEncoding, "x")[2:30],
		"hex":              hex.EncodeToString([]byte(secret)),
		"HEX":              strings.ToUpper(hex.EncodeToString([]byte(secret))),
		"JSON-escaped":     strings.ReplaceAll(secret, "/", `\/`),
		"URL-escaped":      url.QueryEscape(secret),
	}
	command := strings.Join([]string{
		`printf %s "$DEV_E2E_TOKEN" | base64`,
		`printf 'x%s' "$DEV_E2E_TOKEN" | base64`,
		`printf 'xy%s' "$DEV_E2E_TOKEN" | base64`,
		`printf 'x%s' "$DEV_E2E_TOKEN" | base64 | tr '+/' '-_'`,
		`printf %s "$DEV_E2E_TOKEN" | od -An -tx1 | tr -d ' \n'; echo`,
		`printf %s "$DEV_E2E_TOKEN" | od -An -tx1 | tr -d ' \n' | tr a-f A-F; echo`,
		`printf '{"t": "%s"}\n' "$DEV_E2E_TOKEN" | sed 's|/|\\/|g'`,
		`printf 'https://x/?t=%s\n' "$DEV_E2E_TOKEN" | sed 's|/V|%2FV|; s|+|%2B|; s|?x|%3Fx|'`,
	}, "; ")
	w.srv.Script(reply("Encode.", "COMMAND", command), done("Done."))
	r := w.run("--no-audit", "--json", "-p", "print the token encoded")
	r.expect(t, 0)
	session, err := os.ReadFile(filepath.Join(w.home, "sessions", w.onlySession().ID+".json"))
	if err != nil {
		t.Fatal(err)
	}
	result := lastUser(w.srv.Requests()[1])
	leaked := 0
	for name, form := range forms {
		where := ""
		switch {
		case strings.Contains(allContent(w.srv.Requests()[1]), form):
			where = "a request"
		case strings.Contains(string(session), form):
			where = "the session file"
		case strings.Contains(r.stdout, form):
			where = "--json"
		}
		if where != "" {
			leaked++
			t.Errorf("the %s form %q reached %s", name, form, where)
		}
	}
	t.Logf("%d of %d encoded forms of the secret left dev", leaked, len(forms))
	if n := strings.Count(result, "[REDACTED:$DEV_E2E_TOKEN"); n < len(forms) {
		t.Errorf("%d placeholders in the result, want %d or more:\n%s", n, len(forms), result)
	}
}

// A file named after a secret is named masked in --json's files and in
// the terminal's changed-files line; the full output of a long command,
// saved in the session's directory, holds no secret either (issue 22,
// break 6).
func TestSecretsInFileNamesAndSavedOutput(t *testing.T) {
	const secret = "s3cr3tF1leName0042"
	w := newWorld(t, nil)
	w.extra = []string{"DEV_E2E_SECRET=" + secret}
	// The secret sits in the middle of a long output: cut from what the
	// model sees, kept in the saved file.
	long := `seq 1 5000; echo "middle $DEV_E2E_SECRET"; printf %s "$DEV_E2E_SECRET" | base64; seq 1 5000`
	w.srv.Script(
		reply("Make.", "COMMAND", `touch "made-$DEV_E2E_SECRET.txt"`),
		reply("Print.", "COMMAND", long),
		done("Done."),
	)
	r := w.run("--no-audit", "--json", "-p", "make a file")
	r.expect(t, 0)
	if !strings.Contains(r.stdout, `"files":[{"path":"made-[REDACTED:$DEV_E2E_SECRET].txt"`) {
		t.Errorf("--json does not name the file masked:\n%s", r.stdout)
	}
	// The terminal's line of changed files.
	w.srv.Script(reply("Make.", "COMMAND", `touch "other-$DEV_E2E_SECRET.txt"`), done("Done."))
	shown := w.run("--no-audit", "-p", "make another")
	shown.expect(t, 0)
	if !strings.Contains(shown.stdout+shown.stderr, "other-[REDACTED:$DEV_E2E_SECRET].txt") {
		t.Errorf("the changed-files line does not name the file masked:\n%s%s", shown.stdout, shown.stderr)
	}
	for _, out := range []string{r.stdout, r.stderr, shown.stdout, shown.stderr} {
		if strings.Contains(out, secret) {
			t.Errorf("dev's output names the secret:\n%s", out)
		}
	}
	res := lastUser(w.srv.Requests()[2])
	m := regexp.MustCompile(`full output saved in (\S+)\]`).FindStringSubmatch(res)
	if m == nil {
		t.Fatalf("the long output was not saved:\n%s", res)
	}
	saved, err := os.ReadFile(m[1])
	if err != nil {
		t.Fatal(err)
	}
	encoded := base64.StdEncoding.EncodeToString([]byte(secret))
	if strings.Contains(string(saved), secret) || strings.Contains(string(saved), encoded) {
		t.Error("the saved output holds the secret")
	}
	if !strings.Contains(string(saved), "middle [REDACTED:$DEV_E2E_SECRET]\n[REDACTED:$DEV_E2E_SECRET base64]\n") {
		t.Errorf("the saved output does not hold the masked lines")
	}
}

// Issue 30: the model's own text was never masked. A secret the model
// writes (the value of an environment variable named *_TOKEN, and a
// GitHub token's shape) in a rejected reply, in its reasoning and
// Thoughts, in a command and in its DONE summary stays out of everything
// dev stores or shows: the session file, dev sessions show (--raw too),
// the session browser, --json and the terminal (stderr, verbose). The
// command runs as the model wrote it: the secret's lengths it prints are
// the real ones.
func TestModelTextIsMasked(t *testing.T) {
	const token = "tok-Q7v2Lx9pR4mW8kT3"
	gh := "ghp_" + strings.Repeat("a1B2", 9)
	w := newWorld(t, nil)
	w.extra = []string{"DEV_E2E_TOKEN=" + token}
	says := "the token " + token + " and the key " + gh
	script := func(summary string) []llmtest.Response {
		return []llmtest.Response{
			{Reasoning: "Thinking about " + says + ".", Content: "Sure, I will use " + says + " right away."}, // rejected: no template
			{Reasoning: "Now " + says + ".", Content: llmtest.Reply("I will measure "+says+".", "COMMAND",
				"printf %s '"+token+"' | wc -c; printf %s '"+gh+"' | wc -c")},
			done(summary + " with " + says + "."),
		}
	}
	w.srv.Script(script("Measured")...)
	jsonRun := w.run("--no-audit", "--json", "-p", "measure the secrets")
	jsonRun.expect(t, 0)
	w.srv.Script(script("Measured again")...)
	verbose := w.run("--no-audit", "-v", "--resume", "-p", "again")
	verbose.expect(t, 0)

	reqs := w.srv.Requests()
	if res := lastUser(reqs[2]); !strings.Contains(res, fmt.Sprintf("\n%d\n%d", len(token), len(gh))) {
		t.Errorf("the command did not run with the secrets as written (lengths %d and %d):\n%s", len(token), len(gh), res)
	}
	id := w.onlySession().ID
	session, err := os.ReadFile(filepath.Join(w.home, "sessions", id+".json"))
	if err != nil {
		t.Fatal(err)
	}
	show := w.run("sessions", "show", id)
	show.expect(t, 0)
	raw := w.run("sessions", "show", "--raw", id)
	raw.expect(t, 0)
	browser := w.serve(t)
	_, page := browser.get("/s/" + id)
	places := map[string]string{
		"the session file":         string(session),
		"dev sessions show":        show.stdout + show.stderr,
		"dev sessions show --raw":  raw.stdout + raw.stderr,
		"the session browser":      page,
		"--json":                   jsonRun.stdout,
		"stderr with --json":       jsonRun.stderr,
		"the terminal (-v stderr)": verbose.stdout + verbose.stderr,
	}
	leaks := 0
	for where, text := range places {
		for _, secret := range []string{token, gh} {
			if strings.Contains(text, secret) {
				leaks++
				i := strings.Index(text, secret)
				t.Errorf("%s holds %s: …%s…", where, secret, text[max(0, i-200):min(len(text), i+100)])
			}
		}
	}
	t.Logf("%d of %d places hold a secret of the model's text", leaks, 2*len(places))
	for where, text := range map[string]string{"the session file": string(session), "dev sessions show": show.stdout, "--json": jsonRun.stdout, "the terminal": verbose.stderr} {
		if !strings.Contains(text, "[REDACTED:$DEV_E2E_TOKEN]") || !strings.Contains(text, "[REDACTED:github-token]") {
			t.Errorf("%s does not show the secrets masked:\n%s", where, text)
		}
	}
}
