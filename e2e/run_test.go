package e2e

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/devagent/dev/llm"
	"github.com/devagent/dev/llm/llmtest"
)

const helloGo = "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(\"Hello\")\n}\n"

// readme is written through a sloppily nested fence, as models do.
const readme = "# Hello\n\nRun it:\n\n```bash\ngo run ./src\n```\n\nThat is all.\n"

func TestMultiStepTask(t *testing.T) {
	w := newWorld(t, nil)
	w.srv.Script(
		llmtest.Response{Content: llmtest.Template("Start with a log.", "[~] set up\n[ ] write code",
			llmtest.Call{Tool: "COMMAND", Input: "mkdir -p src && echo started > log.txt && echo made"})},
		reply("Write the program.", "WRITE_FILE", "\"src/hello.go\"\n\n```go\n"+helloGo+"```"),
		reply("Write the readme.", "WRITE_FILE", "README.md\n\n```markdown\n"+readme+"```"),
		reply("Greet the world.", "FIND_AND_REPLACE_IN_FILE",
			"\"src/hello.go\"\n\n```find\n\tfmt.Println(\"Hello\")\n```\n\n```replace\n\tfmt.Println(\"Hello, world\")\n```"),
		reply("Check it.", "READ_FILE", "\"src/hello.go\""),
		llmtest.Response{Content: llmtest.Template("Finished.", "[x] set up\n[x] write code",
			llmtest.Call{Tool: "DONE", Input: "Wrote src/hello.go and README.md."}),
			Usage: &llm.Usage{PromptTokens: 900, CompletionTokens: 40, TotalTokens: 940}},
		verdict("| check | result |\n|---|---|\n| files | PASS |\n\nOverall: PASS"),
	)
	r := w.run("-p", "write a hello world with a readme")
	r.expect(t, 0)

	if r.stdout != "Wrote src/hello.go and README.md.\n" {
		t.Errorf("stdout = %q, want the summary and one newline", r.stdout)
	}
	if got := w.read("log.txt"); got != "started\n" {
		t.Errorf("log.txt = %q", got)
	}
	if got, want := w.read("src/hello.go"), strings.Replace(helloGo, `"Hello"`, `"Hello, world"`, 1); got != want {
		t.Errorf("src/hello.go = %q, want %q", got, want)
	}
	if got := w.read("README.md"); got != readme {
		t.Errorf("README.md = %q, want %q", got, readme)
	}

	reqs := w.srv.Requests()
	if len(reqs) != 7 {
		t.Fatalf("server saw %d requests, want 6 of the worker and 1 of the auditor", len(reqs))
	}
	for i, req := range reqs {
		checkRequestShape(t, i, req)
		if isAudit(req) != (i == 6) {
			t.Errorf("request %d: audit %v", i, isAudit(req))
		}
	}
	brief := reqs[6].Messages[1].Content
	for _, want := range []string{"write a hello world with a readme", "Wrote src/hello.go and README.md.", "- src/hello.go", "- README.md",
		"mkdir -p src && echo started > log.txt && echo made`: exit code 0", "[x] write code"} {
		if !strings.Contains(brief, want) {
			t.Errorf("the auditor's first message lacks %q:\n%s", want, brief)
		}
	}
	if got := lastUser(reqs[1]); !strings.Contains(got, `tool="COMMAND"`) || !strings.Contains(got, "made") || !strings.Contains(got, "0") {
		t.Errorf("COMMAND result sent to the model = %q", got)
	}
	if got := lastUser(reqs[5]); !strings.Contains(got, `tool="READ_FILE"`) || !strings.Contains(got, `fmt.Println("Hello, world")`) {
		t.Errorf("READ_FILE result sent to the model = %q", got)
	}
	first := reqs[0].Messages
	if first[0].Role != "system" || !strings.Contains(first[0].Content, "# Agent Response") {
		t.Errorf("first message is not the system prompt: %+v", first[0])
	}
	if !strings.Contains(first[1].Content, "<user_request>\nwrite a hello world with a readme\n</user_request>") {
		t.Errorf("request not wrapped: %q", first[1].Content)
	}

	s := w.onlySession()
	if s.Status != "complete" || s.OriginalPrompt != "write a hello world with a readme" {
		t.Errorf("session status %q prompt %q", s.Status, s.OriginalPrompt)
	}
	if s.WorkingDirectory != w.dir {
		t.Errorf("workingDirectory = %q, want %q", s.WorkingDirectory, w.dir)
	}
	if len(s.TaskList) != 2 || s.TaskList[0].Status != "complete" || s.TaskList[1].Text != "write code" {
		t.Errorf("taskList = %+v", s.TaskList)
	}
	// History: request + 6 replies + 5 results; no system prompt.
	if len(s.History) != 12 || s.History[0].Role != "user" || s.History[11].Role != "assistant" {
		t.Errorf("history has %d messages: %+v", len(s.History), s.History)
	}
	if s.TotalTokens < 940 {
		t.Errorf("totalTokens = %d, want at least the server's 940", s.TotalTokens)
	}
	if len(s.Audits) != 1 || s.Audits[0].Verdict != "PASS" || s.Audits[0].Steps != 1 || !strings.Contains(s.Audits[0].Feedback, "Overall: PASS") || s.Audits[0].Timestamp.IsZero() {
		t.Errorf("audits = %+v", s.Audits)
	}
	if !strings.Contains(r.stderr, "audit passed") {
		t.Errorf("stderr does not show the verdict:\n%s", r.stderr)
	}
}

// checkRequestShape asserts what every request must look like (SPEC §10).
func checkRequestShape(t *testing.T, i int, req llmtest.Request) {
	t.Helper()
	if req.Model != "mock-model" {
		t.Errorf("request %d: model %q", i, req.Model)
	}
	for _, key := range []string{"tools", "tool_choice", "functions"} {
		if _, ok := req.Raw[key]; ok {
			t.Errorf("request %d sends %q", i, key)
		}
	}
	if so, _ := req.Raw["stream_options"].(map[string]any); so["include_usage"] != true {
		t.Errorf("request %d: stream_options = %v", i, req.Raw["stream_options"])
	}
	if req.Raw["stream"] != true {
		t.Errorf("request %d is not streamed", i)
	}
	msgs := req.Messages
	if len(msgs) < 2 || msgs[0].Role != "system" {
		t.Fatalf("request %d: messages %+v", i, msgs)
	}
	for j := 1; j < len(msgs); j++ {
		want := "user"
		if j%2 == 0 {
			want = "assistant"
		}
		if msgs[j].Role != want || strings.TrimSpace(msgs[j].Content) == "" {
			t.Errorf("request %d message %d: role %q (want %q), content %q", i, j, msgs[j].Role, want, msgs[j].Content)
		}
	}
}

func TestFormatErrorThenRecovery(t *testing.T) {
	w := newWorld(t, nil)
	garbage := "Sure! I will list the directory now."
	w.srv.Script(
		llmtest.Response{Content: garbage},
		reply("Look around.", "LIST_DIRECTORY", "."),
		done("Looked."),
	)
	r := w.run("--no-audit", "-p", "look around")
	r.expect(t, 0)
	reqs := w.srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3", len(reqs))
	}
	feedback := lastUser(reqs[1])
	if !strings.Contains(feedback, "Tool Choice") || !strings.Contains(feedback, "# Agent Response") {
		t.Errorf("the format error sent to the model does not say what is missing and how to answer:\n%s", feedback)
	}
	if !strings.Contains(allContent(reqs[1]), garbage) {
		t.Errorf("the rejected reply is not shown to the model with its error")
	}
	if strings.Contains(allContent(reqs[2]), garbage) || strings.Contains(allContent(reqs[2]), feedback) {
		t.Errorf("after recovery the failed attempt and its error are still in history")
	}
	for _, m := range w.onlySession().History {
		if strings.Contains(m.Content, garbage) {
			t.Errorf("session history keeps the failed attempt: %q", m.Content)
		}
	}
	if !strings.Contains(r.stderr, "format") {
		t.Errorf("stderr does not mention the format error:\n%s", r.stderr)
	}
}

func TestFormatRetriesExhausted(t *testing.T) {
	w := newWorld(t, map[string]any{"maxRetriesAutomated": 2})
	for range 5 {
		w.srv.Script(llmtest.Response{Content: "I refuse to use the template."})
	}
	r := w.run("-p", "do something")
	r.expect(t, 5)
	if n := len(w.srv.Requests()); n != 3 {
		t.Errorf("%d requests, want 3 (one try and two retries)", n)
	}
	if r.stdout != "" {
		t.Errorf("stdout = %q, want nothing", r.stdout)
	}
	if s := w.onlySession(); s.Status != "failed" {
		t.Errorf("status %q, want failed", s.Status)
	}
}

func TestMaxLoops(t *testing.T) {
	w := newWorld(t, map[string]any{"maxLoops": 3})
	for i := range 5 {
		w.srv.Script(reply("Keep looking.", "LIST_DIRECTORY", strings.Repeat("./", i+1)))
	}
	r := w.run("-p", "never finish")
	r.expect(t, 4)
	if n := len(w.srv.Requests()); n != 3 {
		t.Errorf("%d requests, want 3", n)
	}
	if !strings.Contains(r.stderr, "maxLoops") {
		t.Errorf("stderr does not name maxLoops:\n%s", r.stderr)
	}
}

func TestRepeatedStepIsALoop(t *testing.T) {
	w := newWorld(t, nil)
	for range 6 {
		w.srv.Script(reply("Read it again.", "READ_FILE", "a.txt"))
	}
	w.write("a.txt", "same\n")
	r := w.run("-p", "read a.txt")
	r.expect(t, 5)
	reqs := w.srv.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests, want 4 (told at the third, failed at the fourth)", len(reqs))
	}
	if got := lastUser(reqs[3]); !strings.Contains(got, "change your approach") {
		t.Errorf("the model was not told it is looping: %q", got)
	}
}

func TestServerErrorThenSuccess(t *testing.T) {
	w := newWorld(t, nil)
	w.srv.Script(
		llmtest.Response{Status: 500, Body: `{"error":{"message":"boom","type":"server_error"}}`, Header: map[string]string{"Retry-After": "0"}},
		done("Recovered."),
	)
	r := w.run("--no-audit", "-p", "try")
	r.expect(t, 0)
	if r.stdout != "Recovered.\n" {
		t.Errorf("stdout = %q", r.stdout)
	}
	if n := len(w.srv.Requests()); n != 2 {
		t.Errorf("%d requests, want 2", n)
	}
	if !strings.Contains(r.stderr, "retrying") {
		t.Errorf("stderr does not show the retry:\n%s", r.stderr)
	}
}

func TestUnauthorizedFailsAtOnce(t *testing.T) {
	w := newWorld(t, map[string]any{"apiKey": "sk-wrong"})
	w.srv.Script(
		llmtest.Response{Status: 401, Body: `{"error":{"message":"Invalid API key","type":"invalid_request_error"}}`},
		done("never"),
	)
	r := w.run("-p", "try")
	r.expect(t, 1)
	reqs := w.srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want exactly 1", len(reqs))
	}
	if got := reqs[0].Header.Get("Authorization"); got != "Bearer sk-wrong" {
		t.Errorf("Authorization = %q", got)
	}
	if !strings.Contains(r.stderr, "apiKey") || !strings.Contains(r.stderr, "401") {
		t.Errorf("stderr does not explain the authentication failure:\n%s", r.stderr)
	}
}

func TestNoAuthorizationHeaderWithoutKey(t *testing.T) {
	w := newWorld(t, nil)
	w.srv.Script(done("ok"))
	w.run("--no-audit", "-p", "x").expect(t, 0)
	if got := w.srv.Requests()[0].Header.Get("Authorization"); got != "" {
		t.Errorf("Authorization = %q, want none", got)
	}
}

func TestConnectionRefused(t *testing.T) {
	w := newWorld(t, nil)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String() + "/v1"
	ln.Close()
	w.writeConfig(map[string]any{"apiUrl": url, "model": "mock-model"})
	r := w.run("-p", "anything")
	r.expect(t, 1)
	if !strings.Contains(r.stderr, url) || !strings.Contains(r.stderr, "apiUrl") {
		t.Errorf("stderr does not name the URL and how to change it:\n%s", r.stderr)
	}
	if strings.Contains(r.stderr, "retrying") {
		t.Errorf("a server that never answered is a configuration problem, not retried:\n%s", r.stderr)
	}
}

func TestUnknownModel(t *testing.T) {
	w := newWorld(t, nil)
	w.srv.Script(llmtest.Response{Status: 404,
		Body: `{"error":{"message":"model 'no-such-model' not found","type":"api_error","param":null,"code":null}}`})
	r := w.run("-p", "anything", "--model", "no-such-model")
	r.expect(t, 1)
	if n := len(w.srv.Requests()); n != 1 {
		t.Errorf("%d chat requests, want 1", n)
	}
	for _, want := range []string{"no-such-model", "mock-model", "other-model"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
}

func TestResumeContinuesHistory(t *testing.T) {
	w := newWorld(t, nil)
	w.srv.Script(
		reply("Create it.", "WRITE_FILE", "notes.txt\n```\nfirst\n```"),
		done("Created notes.txt."),
	)
	w.run("--no-audit", "-p", "create notes.txt").expect(t, 0)
	id := w.onlySession().ID

	w.srv.Script(done("Still here."))
	r := w.run("--no-audit", "--resume", "-p", "what did you do?")
	r.expect(t, 0)
	if r.stdout != "Still here.\n" {
		t.Errorf("stdout = %q", r.stdout)
	}
	reqs := w.srv.Requests()
	last := reqs[len(reqs)-1]
	content := allContent(last)
	for _, want := range []string{"create notes.txt", "Created notes.txt.", "what did you do?"} {
		if !strings.Contains(content, want) {
			t.Errorf("resumed request lacks %q", want)
		}
	}
	checkRequestShape(t, len(reqs)-1, last)
	all := w.sessions()
	if len(all) != 1 || all[id] == nil {
		t.Fatalf("resume created a new session: %v", all)
	}
	if s := all[id]; s.OriginalPrompt != "create notes.txt" || s.Status != "complete" {
		t.Errorf("session after resume: prompt %q status %q", s.OriginalPrompt, s.Status)
	}
}

func TestResumeWithNothingToResume(t *testing.T) {
	w := newWorld(t, nil)
	r := w.run("--resume", "-p", "go on")
	r.expect(t, 2)
	if !strings.Contains(r.stderr, "nothing to resume") {
		t.Errorf("stderr:\n%s", r.stderr)
	}
	if n := len(w.srv.Requests()); n != 0 {
		t.Errorf("%d requests, want none", n)
	}
}

func TestSessionFlagCreatesThenContinues(t *testing.T) {
	w := newWorld(t, nil)
	id := "3b241101-e2bb-4255-8caf-4136c566a962"
	w.srv.Script(done("one"), done("two"))
	w.run("--no-audit", "--session", id, "-p", "first").expect(t, 0)
	w.run("--no-audit", "--session", id, "-p", "second").expect(t, 0)
	all := w.sessions()
	if len(all) != 1 || all[id] == nil {
		t.Fatalf("sessions: %v", all)
	}
	if n := len(all[id].History); n != 4 {
		t.Errorf("history has %d messages, want 4", n)
	}
	if r := w.run("--session", "not-a-uuid", "-p", "x"); r.code != 2 {
		t.Errorf("bad session id: exit %d, want 2", r.code)
	}
}

func TestJSONLines(t *testing.T) {
	// LIST_DIRECTORY changes nothing: the audit runs because it is "always".
	w := newWorld(t, map[string]any{"audit": "always"})
	w.srv.Script(
		reply("Look.", "LIST_DIRECTORY", "."),
		done("Listed."),
		verdict("Overall: PASS"),
	)
	r := w.run("-p", "list", "--json")
	r.expect(t, 0)
	lines := strings.Split(strings.TrimRight(r.stdout, "\n"), "\n")
	var types []string
	var last map[string]any
	for _, line := range lines {
		var ev map[string]any
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("stdout line is not JSON: %q (%v)", line, err)
		}
		types = append(types, ev["type"].(string))
		last = ev
	}
	joined := strings.Join(types, ",")
	for _, want := range []string{"session", "response", "tool_result", "audit", "result"} {
		if !strings.Contains(joined, want) {
			t.Errorf("no %q event in %s", want, joined)
		}
	}
	if types[0] != "session" || last["type"] != "result" {
		t.Errorf("events: %s", joined)
	}
	if last["status"] != "complete" || last["exitCode"] != 0.0 || last["summary"] != "Listed." || last["sessionId"] == "" || last["audits"] != 1.0 {
		t.Errorf("result event: %v", last)
	}
}

func TestInvalidConfig(t *testing.T) {
	w := newWorld(t, nil)
	if err := os.WriteFile(filepath.Join(w.home, "config.json"), []byte("{\n  \"model\": \"x\",\n  \"maxLoops\": \"many\"\n}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := w.run("-p", "x")
	r.expect(t, 2)
	if !strings.Contains(r.stderr, "config.json") || !strings.Contains(r.stderr, "maxLoops") {
		t.Errorf("stderr does not name the file and key:\n%s", r.stderr)
	}
	if err := os.WriteFile(filepath.Join(w.home, "config.json"), []byte("{\n  \"model\": \"x\",,\n}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r = w.run("-p", "x")
	r.expect(t, 2)
	if !strings.Contains(r.stderr, "config.json:2:") {
		t.Errorf("stderr does not give line:column:\n%s", r.stderr)
	}
	if n := len(w.srv.Requests()); n != 0 {
		t.Errorf("%d requests with a broken config", n)
	}
}

func TestConfigCreatedWithDefaults(t *testing.T) {
	w := newWorld(t, nil)
	os.Remove(filepath.Join(w.home, "config.json"))
	r := w.run("config", "path")
	r.expect(t, 0)
	if r.stdout != filepath.Join(w.home, "config.json")+"\n" {
		t.Errorf("config path printed %q", r.stdout)
	}
	w.extra = []string{"DEV_API_URL=" + w.srv.BaseURL(), "DEV_MODEL=mock-model"}
	w.srv.Script(done("ok"))
	w.run("--no-audit", "-p", "x").expect(t, 0)
	st, err := os.Stat(filepath.Join(w.home, "config.json"))
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("config.json mode %v, want 0600", st.Mode().Perm())
	}
}

func TestUsageErrors(t *testing.T) {
	w := newWorld(t, nil)
	for _, args := range [][]string{
		{"--no-such-flag"},
		{"stray-argument"},
		{"--resume", "--session", "3b241101-e2bb-4255-8caf-4136c566a962", "-p", "x"},
		{"-p", ""},
	} {
		if r := w.run(args...); r.code != 2 {
			t.Errorf("dev %q: exit %d, want 2\n%s", args, r.code, r.stderr)
		}
	}
}

func TestHelpAndVersion(t *testing.T) {
	w := newWorld(t, nil)
	r := w.run("--help")
	r.expect(t, 0)
	for _, want := range []string{"-p", "--resume", "--session", "--json", "--no-audit", "EXIT CODES", "130"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("--help lacks %q", want)
		}
	}
	r = w.run("--version")
	r.expect(t, 0)
	if !strings.HasPrefix(r.stdout, "dev ") {
		t.Errorf("--version printed %q", r.stdout)
	}
}

func TestToolFailureGoesBackToModel(t *testing.T) {
	w := newWorld(t, nil)
	w.srv.Script(
		llmtest.Response{Content: llmtest.Template("Two steps.", "",
			llmtest.Call{Tool: "COMMAND", Input: "echo oops; exit 3"},
			llmtest.Call{Tool: "WRITE_FILE", Input: "never.txt\n```\nno\n```"})},
		done("Handled."),
	)
	w.run("--no-audit", "-p", "x").expect(t, 0)
	if _, err := os.Stat(filepath.Join(w.dir, "never.txt")); err == nil {
		t.Errorf("a tool after a failed one ran")
	}
	got := lastUser(w.srv.Requests()[1])
	if !strings.Contains(got, "oops") || !strings.Contains(got, "3") || !strings.Contains(got, "WRITE_FILE") {
		t.Errorf("result message = %q", got)
	}
}

func TestAskUserInAutomatedMode(t *testing.T) {
	w := newWorld(t, nil)
	w.srv.Script(reply("Ask.", "ASK_USER", "Which port?"), done("Assumed 8080."))
	w.run("--no-audit", "-p", "x").expect(t, 0)
	reqs := w.srv.Requests()
	if got := lastUser(reqs[1]); !strings.Contains(strings.ToLower(got), "assumption") {
		t.Errorf("ASK_USER in automated mode answered %q", got)
	}
	if strings.Contains(reqs[0].Messages[0].Content, "## ASK_USER") {
		t.Errorf("the automated system prompt offers ASK_USER")
	}
}

func TestInteractiveBasic(t *testing.T) {
	w := newWorld(t, nil)
	w.srv.Script(reply("Ask.", "ASK_USER", "Which name?"), done("Named it Bob."), done("Second turn."))
	r := w.runInput("name something\nBob\nand again\n/exit\n", "--no-audit")
	r.expect(t, 0)
	if r.stdout != "Named it Bob.\nSecond turn.\n" {
		t.Errorf("stdout = %q", r.stdout)
	}
	reqs := w.srv.Requests()
	if len(reqs) != 3 || !strings.Contains(lastUser(reqs[1]), "Bob") || !strings.Contains(lastUser(reqs[2]), "and again") {
		t.Fatalf("requests: %d; %q", len(reqs), lastUser(reqs[1]))
	}
	if !strings.Contains(reqs[0].Messages[0].Content, "## ASK_USER") {
		t.Errorf("the interactive system prompt does not offer ASK_USER")
	}
}

// fixture loads a captured server response as a scripted one, body bytes exact.
func fixture(t *testing.T, name string) llmtest.Response {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "llm", "testdata", "servers", name))
	if err != nil {
		t.Fatal(err)
	}
	head, body, ok := strings.Cut(string(data), "\r\n\r\n")
	if !ok {
		t.Fatalf("%s: no header end", name)
	}
	lines := strings.Split(head, "\r\n")
	var status int
	if _, err := fmt.Sscanf(lines[0], "HTTP/1.1 %d", &status); err != nil {
		t.Fatalf("%s: status line %q", name, lines[0])
	}
	header := map[string]string{}
	for _, l := range lines[1:] {
		k, v, _ := strings.Cut(l, ": ")
		if k != "Transfer-Encoding" && k != "Content-Length" {
			header[k] = v
		}
	}
	return llmtest.Response{Status: status, Header: header, Body: body}
}

func TestRealOllamaReplies(t *testing.T) {
	for name, tokens := range map[string]int{"agent-reply-stream.txt": 79, "think-reply-stream.txt": 85} {
		t.Run(name, func(t *testing.T) {
			w := newWorld(t, nil)
			w.srv.Script(fixture(t, "ollama-0.17.4/"+name))
			r := w.run("--no-audit", "-p", "Write hello.txt")
			r.expect(t, 0)
			if got := w.read("hello.txt"); got != "hello from a real server\n" {
				t.Errorf("hello.txt = %q", got)
			}
			if r.stdout != "Wrote hello.txt.\n" {
				t.Errorf("stdout = %q", r.stdout)
			}
			for _, m := range w.onlySession().History {
				if strings.Contains(m.Content, "I should write the file") {
					t.Errorf("thinking stored in history: %q", m.Content)
				}
			}
			if s := w.onlySession(); s.TotalTokens != tokens {
				t.Errorf("totalTokens = %d, want the server's %d", s.TotalTokens, tokens)
			}
		})
	}
}

func TestSessionsCommands(t *testing.T) {
	w := newWorld(t, nil)
	w.srv.Script(done("Listed it."))
	w.run("--no-audit", "-p", "list the files please").expect(t, 0)
	id := w.onlySession().ID

	// Reading sessions needs only the directory, even with a broken config.
	if err := os.WriteFile(filepath.Join(w.home, "config.json"), []byte("{broken"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := w.run("sessions", "list")
	r.expect(t, 0)
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "ID") || !strings.HasPrefix(lines[1], id) ||
		!strings.Contains(lines[1], "complete") || !strings.Contains(lines[1], w.dir) || !strings.Contains(lines[1], "list the files please") {
		t.Errorf("sessions list:\n%s", r.stdout)
	}
	r = w.run("sessions", "list", "--json")
	r.expect(t, 0)
	var rows []map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &rows); err != nil || len(rows) != 1 || rows[0]["id"] != id || rows[0]["status"] != "complete" {
		t.Errorf("sessions list --json: %v\n%s", err, r.stdout)
	}
	// --raw prints the stored messages (what sessions show printed before
	// SPEC §17 made it render the transcript as the terminal does).
	r = w.run("sessions", "show", "--raw", id)
	r.expect(t, 0)
	for _, want := range []string{"# Session " + id, "<user_request>\nlist the files please\n</user_request>", "## Tool Choice\nDONE", "Status: complete"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("sessions show --raw lacks %q:\n%s", want, r.stdout)
		}
	}
	r = w.run("sessions", "show", id[:8])
	r.expect(t, 0)
	// The calm screen, as the terminal draws a run by default.
	for _, want := range []string{"› list the files please", "  All done.\n", "Listed it.", "status complete"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("sessions show lacks %q:\n%s", want, r.stdout)
		}
	}
	for _, raw := range []string{"<user_request>", "## Tool Choice", "\x1b[", "┌─"} {
		if strings.Contains(r.stdout, raw) {
			t.Errorf("sessions show prints %q, the stored protocol or a box:\n%s", raw, r.stdout)
		}
	}
	// dev -v: the boxes.
	r = w.run("-v", "sessions", "show", id[:8])
	r.expect(t, 0)
	for _, want := range []string{"› list the files please", "┌─ Thoughts", "All done.", "Listed it.", "status complete"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("sessions show -v lacks %q:\n%s", want, r.stdout)
		}
	}
	if r := w.run("sessions", "show", "3b241101-e2bb-4255-8caf-4136c566a962"); r.code != 2 {
		t.Errorf("unknown session: exit %d", r.code)
	}
	if r := w.run("sessions", "show", "../../etc/passwd"); r.code != 2 {
		t.Errorf("bad id: exit %d", r.code)
	}
}

func TestOldSessionsRemovedAtStart(t *testing.T) {
	w := newWorld(t, map[string]any{"sessionRetentionDays": 7})
	dir := filepath.Join(w.home, "sessions")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	write := func(id string, age time.Duration) string {
		updated := time.Now().Add(-age).UTC().Format(time.RFC3339)
		path := filepath.Join(dir, id+".json")
		body := `{"id":"` + id + `","createdAt":"` + updated + `","updatedAt":"` + updated + `","workingDirectory":"/elsewhere","originalPrompt":"x","model":"m","status":"complete","taskList":[],"history":[],"totalTokens":0,"compressions":[],"compressionCount":0,"audits":[]}`
		if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	old := write("11111111-1111-4111-8111-111111111111", 8*24*time.Hour)
	recent := write("22222222-2222-4222-8222-222222222222", 6*24*time.Hour)
	w.srv.Script(done("ok"))
	w.run("--no-audit", "-p", "x").expect(t, 0)
	if _, err := os.Stat(old); !os.IsNotExist(err) {
		t.Errorf("a session older than sessionRetentionDays is still there (%v)", err)
	}
	if _, err := os.Stat(recent); err != nil {
		t.Errorf("a recent session was removed: %v", err)
	}
}
