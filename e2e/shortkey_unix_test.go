//go:build unix

package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Local servers accept any apiKey, and users write "x": a key shorter than
// 8 characters is no secret and is never masked, so no text that holds its
// letters is garbled (issue 26). Each channel is checked: the tool results
// the model reads, stdout, stderr, --json, the session file, the session
// browser and the interactive screen.
func TestShortAPIKeyGarblesNothing(t *testing.T) {
	w := newWorld(t, map[string]any{"apiKey": "x"})
	w.srv.Script(
		reply("Write it.", "WRITE_FILE", "hello.txt\n```\nhello, next text\n```"),
		reply("Read it back.", "READ_FILE", "hello.txt"),
		reply("Copy it.", "WRITE_FILE", "copy.txt\n```\nhello.txt says: hello, next text\n```"),
		done("Wrote hello.txt and copy.txt."),
	)
	r := w.run("--no-audit", "--json", "-p", "write hello.txt please")
	r.expect(t, 0)
	if got := w.read("copy.txt"); got != "hello.txt says: hello, next text\n" {
		t.Errorf("copy.txt = %q: the model's copy of a result was refused or changed", got)
	}
	reqs := w.srv.Requests()
	results := ""
	for _, req := range reqs[1:] {
		results += lastUser(req)
	}
	if !strings.Contains(results, "hello.txt") || !strings.Contains(results, "hello, next text") {
		t.Errorf("the tool results the model read lack hello.txt:\n%s", results)
	}
	session, err := os.ReadFile(filepath.Join(w.home, "sessions", w.onlySession().ID+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var summary string
	for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		var ev struct{ Type, Summary string }
		if json.Unmarshal([]byte(line), &ev) == nil && ev.Type == "result" {
			summary = ev.Summary
		}
	}
	if summary != "Wrote hello.txt and copy.txt." {
		t.Errorf("--json result summary %q", summary)
	}
	w.srv.Script(reply("Look.", "LIST_DIRECTORY", "."), done("Listed hello.txt."))
	plain := w.run("--no-audit", "--resume", "-p", "list the files")
	plain.expect(t, 0)

	browser := w.serve(t)
	_, page := browser.get("/s/" + w.onlySession().ID)

	for channel, text := range map[string]string{
		"the tool results": results, "--json": r.stdout, "stderr": r.stderr + plain.stderr,
		"stdout": plain.stdout, "the session file": string(session), "the session browser": page,
	} {
		if strings.Contains(text, "[REDACTED") {
			t.Errorf("%s masked the short apiKey:\n%s", channel, text)
		}
		if !strings.Contains(text, "hello.txt") {
			t.Errorf("%s lacks hello.txt:\n%s", channel, text)
		}
	}

	// The interactive screen, as the recording showed it.
	w.srv.Script(reply("Write it.", "WRITE_FILE", "hello.txt\n```\nhello\n```"), done("Wrote hello.txt with a greeting."))
	term := w.startTerminal(t.Context(), "--no-audit")
	term.prompt("› ")
	start := term.mark()
	term.typeLine("write hello.txt please")
	term.expect("with a greeting.")
	term.prompt("› ")
	shown := term.since(start)
	term.key("\x04")
	term.exitCode()
	if strings.Contains(shown, "[REDACTED") || !strings.Contains(shown, "Wrote hello.txt") {
		t.Errorf("the screen:\n%s", shown)
	}
}
