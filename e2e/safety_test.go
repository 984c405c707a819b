package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A secret from the environment and a token in a file never reach a
// request body, the session file or --json: they are masked where tool
// output enters the conversation. The apiKey appears nowhere either.
func TestSecretsAreRedactedEverywhere(t *testing.T) {
	const envSecret, fileToken, apiKey = "hunter2-very-secret-value", "ghp_abcdefghijklmnopqrstuvwxyz0123456789", "sk-local-api-key-0123456789"
	w := newWorld(t, map[string]any{"apiKey": apiKey})
	w.extra = []string{"MY_SERVICE_TOKEN=" + envSecret}
	w.write("token.txt", "token="+fileToken+"\n")
	w.write("key.txt", "key: "+apiKey+"\n")
	w.srv.Script(
		reply("Look.", "COMMAND", `echo "env: $MY_SERVICE_TOKEN"; cat token.txt key.txt`),
		reply("Read it.", "READ_FILE", "token.txt"),
		done("Done."),
	)
	r := w.run("--no-audit", "--json", "-p", "show the secrets")
	r.expect(t, 0)
	reqs := w.srv.Requests()
	results := lastUser(reqs[1]) + lastUser(reqs[2])
	for _, want := range []string{"env: [REDACTED:$MY_SERVICE_TOKEN]", "token=[REDACTED:github-token]", "key: [REDACTED:apiKey]"} {
		if !strings.Contains(results, want) {
			t.Errorf("the results lack %q:\n%s", want, results)
		}
	}
	session, err := os.ReadFile(filepath.Join(w.home, "sessions", w.onlySession().ID+".json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{envSecret, fileToken, apiKey} {
		for i, req := range reqs {
			if strings.Contains(allContent(req), secret) {
				t.Errorf("request %d holds %q", i+1, secret)
			}
		}
		if strings.Contains(string(session), secret) {
			t.Errorf("the session file holds %q", secret)
		}
		if strings.Contains(r.stdout, secret) || strings.Contains(r.stderr, secret) {
			t.Errorf("dev's output holds %q", secret)
		}
	}
}

// With -p nothing can be asked: what the approval mode would ask about is
// refused and the model is told why; what it would not ask about runs.
func TestApprovalInAnUnattendedRun(t *testing.T) {
	w := newWorld(t, map[string]any{"allowCommands": []string{"mkdir"}})
	w.srv.Script(
		reply("Write.", "WRITE_FILE", "a.txt\n```\nA\n```"),
		reply("Make.", "COMMAND", "mkdir made"),
		reply("Touch.", "COMMAND", "touch refused.txt"),
		done("Done."),
	)
	w.run("--no-audit", "--approval", "edits", "-p", "work").expect(t, 0)
	if _, err := os.Stat(filepath.Join(w.dir, "made")); err != nil || w.read("a.txt") != "A\n" {
		t.Errorf("edits mode: the file change or the allowed command did not happen (%v)", err)
	}
	if _, err := os.Stat(filepath.Join(w.dir, "refused.txt")); err == nil {
		t.Error("a command not in allowCommands ran in an unattended run")
	}
	told := lastUser(w.srv.Requests()[3])
	if !strings.Contains(told, `ok="false"`) || !strings.Contains(told, "needs the user's approval (approval: edits)") || !strings.Contains(told, "unattended") {
		t.Errorf("the model was told %q", told)
	}

	// ask: file changes are asked about too.
	w.srv.Script(reply("Write.", "WRITE_FILE", "b.txt\n```\nB\n```"), done("Done."))
	w.run("--no-audit", "--approval", "ask", "-p", "write b").expect(t, 0)
	if _, err := os.Stat(filepath.Join(w.dir, "b.txt")); err == nil {
		t.Error("ask mode: a file was written in an unattended run")
	}
	if told := lastUser(w.srv.Requests()[5]); !strings.Contains(told, "this change to b.txt needs the user's approval") {
		t.Errorf("the model was told %q", told)
	}
}

// In a conversation the user answers: y runs it, n with a reason refuses
// and the reason reaches the model, a allows this exact command for the
// rest of the session (and nothing else).
func TestApprovalQuestions(t *testing.T) {
	w := newWorld(t, nil)
	w.srv.Script(
		reply("One.", "COMMAND", "echo one >> log.txt"),
		reply("Two.", "COMMAND", "echo two >> log.txt"),
		reply("Three.", "COMMAND", "echo three >> log.txt"),
		reply("Three again.", "COMMAND", "echo three >> log.txt"),
		reply("Three and more.", "COMMAND", "echo three >> log.txt && echo four >> log.txt"),
		done("Done."),
	)
	stdin := "run things\ny\nn use make instead\na\nn\n/exit\n"
	r := w.runInput(stdin, "--no-audit", "--approval", "edits")
	r.expect(t, 0)
	if got := w.read("log.txt"); got != "one\nthree\nthree\n" {
		t.Errorf("log.txt = %q", got)
	}
	reqs := w.srv.Requests()
	if told := lastUser(reqs[2]); !strings.Contains(told, "the user did not allow the command `echo two >> log.txt`. Their reason: use make instead") {
		t.Errorf("the refusal told %q", told)
	}
	if told := lastUser(reqs[5]); !strings.Contains(told, "did not allow the command `echo three >> log.txt && echo four >> log.txt`") {
		t.Errorf("always for one command widened to another: %q", told)
	}
	if n := strings.Count(r.stderr, "Run this command?"); n != 4 {
		t.Errorf("%d questions, want 4 (the exact command allowed always is not asked again):\n%s", n, r.stderr)
	}
}

// The question about a file change shows the real diff.
func TestApprovalShowsTheDiff(t *testing.T) {
	w := newWorld(t, nil)
	w.write("a.go", "package a\n\nfunc A() int { return 1 }\n")
	w.srv.Script(reply("Edit.", "FIND_AND_REPLACE_IN_FILE", "a.go\n```find\nreturn 1\n```\n```replace\nreturn 2\n```"), done("Done."))
	r := w.runInput("change it\ny\n/exit\n", "--no-audit", "--approval", "ask")
	r.expect(t, 0)
	for _, want := range []string{"Change a.go?", "--- a/a.go", "+++ b/a.go", "-func A() int { return 1 }", "+func A() int { return 2 }"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("the question lacks %q:\n%s", want, r.stderr)
		}
	}
	if w.read("a.go") != "package a\n\nfunc A() int { return 2 }\n" {
		t.Errorf("a.go = %q", w.read("a.go"))
	}
}

// Write confinement: the file tools refuse a path outside the working
// directory, through .. or a symbolic link, unless it is in writableRoots.
func TestWriteConfinement(t *testing.T) {
	outside := t.TempDir()
	w := newWorld(t, nil)
	if err := os.Symlink(outside, filepath.Join(w.dir, "link")); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	w.srv.Script(
		reply("Escape.", "WRITE_FILE", filepath.Join(outside, "a.txt")+"\n```\nx\n```"),
		reply("Escape.", "WRITE_FILE", "link/b.txt\n```\nx\n```"),
		done("Done."),
	)
	w.run("--no-audit", "-p", "escape").expect(t, 0)
	entries, _ := os.ReadDir(outside)
	if len(entries) != 0 {
		t.Errorf("files written outside: %v", entries)
	}
	reqs := w.srv.Requests()
	for i := 1; i <= 2; i++ {
		if told := lastUser(reqs[i]); !strings.Contains(told, "writableRoots") || !strings.Contains(told, `ok="false"`) {
			t.Errorf("refusal %d told %q", i, told)
		}
	}
	w.writeConfig(map[string]any{"apiUrl": w.srv.BaseURL(), "model": "mock-model", "writableRoots": []string{outside}})
	w.srv.Script(reply("Write.", "WRITE_FILE", "link/c.txt\n```\nx\n```"), done("Done."))
	w.run("--no-audit", "-p", "write").expect(t, 0)
	if _, err := os.Stat(filepath.Join(outside, "c.txt")); err != nil {
		t.Errorf("a writableRoots directory could not be written: %v", err)
	}
}
