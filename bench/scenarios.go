package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/devagent/dev/history"
	"github.com/devagent/dev/llm"
	"github.com/devagent/dev/llm/llmtest"
	"github.com/devagent/dev/sessions"
)

func scenarios() []scenario {
	j1 := new(time.Duration) // dev-bench-j1's wall time, for dev-bench-j4
	// The scenarios that keep the disk busy afterwards come last.
	return []scenario{
		versionScenario(),
		fixABugScenario(),
		longSessionScenario(),
		bigReplyScenario(),
		longLineScenario(),
		tenThousandToolsScenario(),
		devBenchScenario(1, j1, "dev's own time per task < 100 ms (median)"),
		devBenchScenario(4, j1, "≤ 0.35× the wall time of -j 1; dev's own time per task < 100 ms (median)"),
		fixABugKeptScenario(),
		sessionsListScenario(),
		hugeOutputScenario(),
		bigTreeScenario(),
		checkpointUnchangedScenario(),
		checkpointChangedScenario(),
		checkpointSessionScenario(),
		checkpointRunScenario("checkpoints-fix-a-bug", 0, "≤ 1.3× the wall time with checkpoints off"),
		checkpointRunScenario("checkpoints-10k", 10_000, "per step ≤ +5 ms, first checkpoint ≤ 300 ms"),
		checkpointRunScenario("checkpoints-100k", 100_000, "per step ≤ +50 ms, first checkpoint ≤ 2 s"),
		checkpointStepsScenario("checkpoint-steps-10k", 10_000, "≤ 5 ms a step that changed nothing, first ≤ 300 ms"),
		checkpointStepsScenario("checkpoint-steps-100k", 100_000, "≤ 50 ms a step that changed nothing, first ≤ 2 s"),
	}
}

// reply is a scripted reply in the protocol's template.
func reply(thoughts, tasks string, calls ...llmtest.Call) llmtest.Response {
	return llmtest.Response{Content: llmtest.Template(thoughts, tasks, calls...)}
}

func instant(r llmtest.Response) step { return step{resp: r} }
func command(r llmtest.Response) step { return step{resp: r, slow: true} }

func call(tool, input string) llmtest.Call { return llmtest.Call{Tool: tool, Input: input} }

// lastUser is the last user message of a request: the tool results.
func lastUser(req llmtest.Request) string {
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if req.Messages[i].Role == "user" {
			return req.Messages[i].Content
		}
	}
	return ""
}

// checkRun verifies what every agent run must show: exit 0, the summary on
// stdout, the expected number of requests, every tool result a success, and
// a complete session.
func checkRun(w *world, p *process, requests int, summary string) error {
	if p.code != 0 {
		return fmt.Errorf("exit %d, want 0", p.code)
	}
	if p.stdout != summary+"\n" {
		return fmt.Errorf("stdout %q, want the summary %q", tail(p.stdout, 200), summary)
	}
	if len(p.requests) != requests {
		return fmt.Errorf("%d requests, want %d", len(p.requests), requests)
	}
	for i, req := range p.requests[1:] {
		if res := lastUser(req); strings.Contains(res, `ok="false"`) {
			return fmt.Errorf("a tool of step %d failed: %s", i+1, tail(res, 600))
		}
	}
	files := sessionFiles(w.home)
	if len(files) != w.sessionsBefore+1 {
		return fmt.Errorf("%d session files, want %d", len(files), w.sessionsBefore+1)
	}
	newest, newestTime := "", time.Time{}
	for _, f := range files {
		if fi, err := os.Stat(f); err == nil && fi.ModTime().After(newestTime) {
			newest, newestTime = f, fi.ModTime()
		}
	}
	data, err := os.ReadFile(newest)
	if err != nil {
		return err
	}
	var sess sessions.Session
	if err := json.Unmarshal(data, &sess); err != nil {
		return fmt.Errorf("session file: %w", err)
	}
	if sess.Status != sessions.Complete {
		return fmt.Errorf("session status %q, want complete", sess.Status)
	}
	return nil
}

func sessionFiles(home string) []string {
	files, _ := filepath.Glob(filepath.Join(home, "sessions", "*-*-*-*-*.json"))
	return files
}

func versionScenario() scenario {
	return scenario{
		name:   "version",
		title:  "`dev --version`",
		target: "< 10 ms",
		setup:  func(w *world) ([]string, error) { return []string{"--version"}, nil },
		check: func(w *world, p *process) error {
			if p.code != 0 || !strings.HasPrefix(p.stdout, "dev ") {
				return fmt.Errorf("exit %d, stdout %q", p.code, p.stdout)
			}
			return nil
		},
	}
}

const buggyCalc = `package calc

// Add returns the sum of a and b.
func Add(a, b int) int {
	return a - b
}

// Mul returns the product of a and b.
func Mul(a, b int) int {
	return a * b
}
`

const calcTest = `package calc

import "testing"

func TestAdd(t *testing.T) {
	if got := Add(2, 3); got != 5 {
		t.Fatalf("Add(2, 3) = %d, want 5", got)
	}
}

func TestMul(t *testing.T) {
	if got := Mul(2, 3); got != 6 {
		t.Fatalf("Mul(2, 3) = %d, want 6", got)
	}
}
`

const changelog = "# Changelog\n\n- Add returned a - b; it returns a + b now.\n"

// fixABugScenario is a 10-step task: look around, read, find the bug, fix
// it, check, record it, DONE. Two steps run a command (grep).
func fixABugScenario() scenario {
	return scenario{
		name:   "fix-a-bug",
		title:  "10-step fix-a-bug task",
		target: "wall < 120 ms, first request < 15 ms, gap < 2 ms, RSS < 25 MB",
		setup:  fixABug,
		check:  checkFixABug,
	}
}

// fixABugKeptScenario is the same task in a config directory that keeps
// 100 sessions of 300 steps from the last days (60 MB), as a user's does:
// every run checks them for retention before its first request.
func fixABugKeptScenario() scenario {
	return scenario{
		name:   "fix-a-bug-kept",
		title:  "10-step task, 100 sessions kept (60 MB)",
		target: "first request < 15 ms",
		// The disk is still busy with the 60 MB for the first runs.
		minWarmup: 3,
		prepare: func(b *bench) (any, error) {
			home := filepath.Join(b.tmp, "home-kept")
			store := sessions.NewStore(filepath.Join(home, "sessions"), nil)
			for i := range 100 {
				if err := store.Save(keptSession(fmt.Sprintf("%08d-0000-4000-8000-000000000000", i))); err != nil {
					return nil, err
				}
			}
			return home, nil
		},
		setup: func(w *world) ([]string, error) {
			w.home = w.shared.(string) // dev adds one session a run
			w.sessionsBefore = len(sessionFiles(w.home))
			return fixABug(w)
		},
		check: checkFixABug,
	}
}

// keptSessions is how many sessions the sessions-list scenario keeps.
const keptSessions = 500

// sessionsListScenario is `dev sessions list` in a config directory that
// keeps 500 sessions of 300 steps (345 MB): a user's months of work.
func sessionsListScenario() scenario {
	return scenario{
		name:      "sessions-list",
		title:     "`dev sessions list`, 500 sessions kept (345 MB)",
		target:    "< 100 ms",
		minWarmup: 2,
		prepare: func(b *bench) (any, error) {
			home := filepath.Join(b.tmp, "home-list")
			store := sessions.NewStore(filepath.Join(home, "sessions"), nil)
			for i := range keptSessions {
				if err := store.Save(keptSession(fmt.Sprintf("%08d-0000-4000-8000-000000000000", i))); err != nil {
					return nil, err
				}
			}
			return home, nil
		},
		setup: func(w *world) ([]string, error) {
			w.home = w.shared.(string)
			return []string{"sessions", "list"}, nil
		},
		check: func(w *world, p *process) error {
			// A header, then a row a session.
			if rows := strings.Count(p.stdout, "\n") - 1; p.code != 0 || rows != keptSessions {
				return fmt.Errorf("exit %d, %d rows, want %d: %s", p.code, rows, keptSessions, tail(p.stderr, 300))
			}
			return nil
		},
	}
}

// keptSession is a finished session of a request and 300 messages of
// about 2 KB.
func keptSession(id string) *sessions.Session {
	line := "<tool_result tool=\"READ_FILE\" ok=\"true\" path=\"main.go\">\tfmt.Println(\"hello\") // a & b\n"
	content := strings.Repeat(line, 2048/len(line)+1)[:2048]
	const task = "an earlier task"
	sess := &sessions.Session{ID: id, WorkingDirectory: "/home/ann/project", OriginalPrompt: task, Prompts: 1, LastPrompt: task,
		Model: "mock-model", Status: sessions.Complete, History: []llm.Message{history.Request(task)}}
	for i := range 300 {
		role := llm.RoleUser
		if i%2 == 1 {
			role = llm.RoleAssistant
		}
		sess.History = append(sess.History, llm.Message{Role: role, Content: content})
	}
	return sess
}

const fixABugSummary = "Fixed Add in calc.go (it subtracted) and noted it in CHANGELOG.md."

func fixABug(w *world) ([]string, error) {
	for name, content := range map[string]string{
		"go.mod":       "module example.com/calc\n\ngo 1.22\n",
		"calc.go":      buggyCalc,
		"calc_test.go": calcTest,
		"README.md":    "# calc\n\nSmall arithmetic helpers.\n",
	} {
		if err := w.write(name, content); err != nil {
			return nil, err
		}
	}
	tasks := "[~] Find the bug\n[ ] Fix it\n[ ] Record it"
	w.script(
		instant(reply("Look at the project first.", tasks, call("LIST_DIRECTORY", "."))),
		instant(reply("Read the code.", tasks, call("READ_FILE", `"calc.go"`))),
		instant(reply("Read the tests.", tasks, call("READ_FILE", `"calc_test.go"`))),
		command(reply("Find the subtraction.", tasks, call("COMMAND", `grep -n "return a - b" calc.go`))),
		instant(reply("Add subtracts: fix it.", "[x] Find the bug\n[~] Fix it\n[ ] Record it",
			call("FIND_AND_REPLACE_IN_FILE", "\"calc.go\"\n```find\n\treturn a - b\n```\n```replace\n\treturn a + b\n```"))),
		instant(reply("Check the result.", "[x] Find the bug\n[~] Fix it\n[ ] Record it", call("READ_FILE", `"calc.go" 1-6`))),
		command(reply("Make sure no subtraction is left.", "[x] Find the bug\n[x] Fix it\n[ ] Record it",
			call("COMMAND", `grep -c "return a + b" calc.go`))),
		instant(reply("Record the fix.", "[x] Find the bug\n[x] Fix it\n[~] Record it",
			call("WRITE_FILE", "\"CHANGELOG.md\"\n```markdown\n"+changelog+"```"))),
		instant(reply("Everything is done.", "[x] Find the bug\n[x] Fix it\n[x] Record it", call("UPDATE_TASK_LIST", ""))),
		instant(reply("Done.", "", call("DONE", fixABugSummary))),
	)
	return []string{"--no-audit", "-p", "Add gives wrong results; fix it and note the fix in a changelog"}, nil
}

func checkFixABug(w *world, p *process) error {
	if err := checkRun(w, p, 10, fixABugSummary); err != nil {
		return err
	}
	if got, want := w.read("calc.go"), strings.Replace(buggyCalc, "a - b", "a + b", 1); got != want {
		return fmt.Errorf("calc.go was not fixed:\n%s", got)
	}
	if got := w.read("CHANGELOG.md"); got != changelog {
		return fmt.Errorf("CHANGELOG.md = %q", got)
	}
	return nil
}

// longSessionScenario is 300 steps of reading, listing, writing, editing
// and a command every sixth step, in a window large enough that nothing is
// compressed: the history, and the session file, grow to the end. The
// server reports usage.
func longSessionScenario() scenario {
	const steps = 300
	const summary = "Worked through 299 steps."
	return scenario{
		name:   "300-steps",
		title:  "300-step session",
		target: "gap < 3 ms, RSS < 40 MB",
		setup: func(w *world) ([]string, error) {
			for i := range 7 {
				line := fmt.Sprintf("file %d: a line of source text in the project, with some code.\n", i)
				if err := w.write(fmt.Sprintf("src/f%d.txt", i), strings.Repeat(line, 24)); err != nil { // ~1.6 KB
					return nil, err
				}
			}
			usage := func(ctx context.Context, req llmtest.Request) (u *llm.Usage) {
				n := 0
				for _, m := range req.Messages {
					n += len(m.Content)
				}
				return &llm.Usage{PromptTokens: n / 4, CompletionTokens: 100, TotalTokens: n/4 + 100}
			}
			for i := 1; i <= steps; i++ {
				s := longStep(i, steps, summary)
				r := s.resp
				s.resp = llmtest.Response{Respond: func(ctx context.Context, req llmtest.Request) llmtest.Response {
					r.Usage = usage(ctx, req)
					return r
				}}
				w.script(s)
			}
			return []string{"--no-audit", "-p", "work through the scripted steps"}, nil
		},
		check: func(w *world, p *process) error {
			if err := checkRun(w, p, steps, summary); err != nil {
				return err
			}
			for i := 2; i < steps; i += 6 {
				if got := w.read(fmt.Sprintf("out/%d.txt", i)); !strings.Contains(got, "status: final") {
					return fmt.Errorf("out/%d.txt = %q, want it edited", i, got)
				}
			}
			last := p.requests[len(p.requests)-1]
			if n := len(last.Messages); n != 2*steps {
				return fmt.Errorf("the last request has %d messages, want %d: was the history compressed?", n, 2*steps)
			}
			return nil
		},
		notes: func(ps []*process) string {
			early := median(ps, func(p *process) time.Duration { return medianOf(p.gaps[:40]) })
			late := median(ps, func(p *process) time.Duration { return medianOf(p.gaps[len(p.gaps)-40:]) })
			size := 0
			for _, m := range ps[0].requests[len(ps[0].requests)-1].Messages {
				size += len(m.Content)
			}
			return fmt.Sprintf("gap of the first 40 instant steps %s, of the last 40 %s; last request %d KB", ms(early), ms(late), size>>10)
		},
	}
}

// longStep is reply i (1-based) of the long session.
func longStep(i, steps int, summary string) step {
	if i == steps {
		return instant(reply("All steps are done.", "[x] all steps", call("DONE", summary)))
	}
	tasks := fmt.Sprintf("[x] step %d\n[~] step %d\n[ ] finish", i-1, i)
	thoughts := fmt.Sprintf("Step %d of the plan: keep going with the next part of the work.", i)
	switch i % 6 {
	case 0:
		return instant(reply(thoughts, tasks, call("READ_FILE", fmt.Sprintf(`"src/f%d.txt"`, i%7))))
	case 1:
		return instant(reply(thoughts, tasks, call("LIST_DIRECTORY", `"src"`)))
	case 2:
		body := strings.Repeat(fmt.Sprintf("result line of step %d\n", i), 12) + "status: draft\n"
		return instant(reply(thoughts, tasks, call("WRITE_FILE", fmt.Sprintf("\"out/%d.txt\"\n```text\n%s```", i, body))))
	case 3:
		return instant(reply(thoughts, tasks, call("FIND_AND_REPLACE_IN_FILE",
			fmt.Sprintf("\"out/%d.txt\"\n```find\nstatus: draft\n```\n```replace\nstatus: final\n```", i-1))))
	case 4:
		return instant(reply(thoughts, tasks, call("READ_FILE", fmt.Sprintf(`"out/%d.txt" 1-5`, i-2))))
	default:
		return command(reply(thoughts, tasks, call("COMMAND", fmt.Sprintf("echo step %d && wc -l src/f%d.txt", i, i%7))))
	}
}

// bigReplyScenario streams a 100,000-token reply (a WRITE_FILE of 400 KB)
// in chunks of 4 bytes, one token each, at 50,000 tokens a second: faster
// than models generate, slow enough that dev reads each chunk as it comes
// rather than catching up with a backlog at the end, so the gap after the
// reply is what dev does with it.
func bigReplyScenario() scenario {
	const summary = "Wrote big.md."
	content := bigMarkdown(400 << 10)
	big := llmtest.Response{Content: llmtest.Template("Write the big file.", "", call("WRITE_FILE", "\"big.md\"\n````markdown\n"+content+"````")),
		ChunkSize: 4, Rate: 50_000}
	return scenario{
		name:   "big-reply",
		title:  "100k-token reply",
		target: "no visible lag; parse 1 MB < 10 ms",
		setup: func(w *world) ([]string, error) {
			w.script(instant(big), instant(reply("Done.", "", call("DONE", summary))))
			return []string{"--no-audit", "-p", "write a big markdown file"}, nil
		},
		check: func(w *world, p *process) error {
			if err := checkRun(w, p, 2, summary); err != nil {
				return err
			}
			if w.read("big.md") != content {
				return fmt.Errorf("big.md was not written whole")
			}
			return nil
		},
		notes: func(ps []*process) string {
			stream := median(ps, func(p *process) time.Duration { return p.requests[0].Replied.Sub(p.requests[0].Arrived) })
			alone, size := mockAlone(big)
			chunks := len(big.Content) / big.ChunkSize
			cpu := median(ps, func(p *process) time.Duration { return p.cpu })
			return fmt.Sprintf("%d chunks (%.1f MB of SSE) streamed in %s (to a client that only reads: %s); dev's CPU %.1f µs a chunk; the gap is parsing, writing 400 KB and saving the session",
				chunks, float64(size)/(1<<20), ms(stream), ms(alone), float64(cpu.Microseconds())/float64(chunks))
		},
	}
}

// longLineScenario streams a reply of 50 MB on one line, as a broken model
// or server might: dev cuts it at 8 MB (SPEC §11), tells the model, and
// the next reply ends the run.
func longLineScenario() scenario {
	const summary = "Short this time."
	long := llmtest.Response{Content: llmtest.Reply(strings.Repeat("word ", (50<<20)/5), "DONE", "never"), ChunkSize: 64 << 10}
	return scenario{
		name:    "50mb-line",
		title:   "reply of 50 MB on one line",
		target:  "seconds, RSS < 200 MB",
		maxRuns: 3,
		setup: func(w *world) ([]string, error) {
			w.script(instant(long), instant(reply("Done.", "", call("DONE", summary))))
			return []string{"--no-audit", "-p", "think aloud"}, nil
		},
		check: func(w *world, p *process) error {
			if err := checkRun(w, p, 2, summary); err != nil {
				return err
			}
			if !strings.Contains(p.stderr, "Your reply was cut off") {
				return fmt.Errorf("the reply was not cut")
			}
			return nil
		},
		notes: func(ps []*process) string {
			stream := median(ps, func(p *process) time.Duration { return p.requests[0].Replied.Sub(p.requests[0].Arrived) })
			return fmt.Sprintf("first reply streamed (and cut at 8 MB) in %s", ms(stream))
		},
	}
}

// tenThousandToolsScenario: one reply calls UPDATE_TASK_LIST 10,000 times;
// the results outgrow the context window and are summarised.
func tenThousandToolsScenario() scenario {
	const summary = "Counted."
	calls := make([]llmtest.Call, 10000)
	for i := range calls {
		calls[i] = call("UPDATE_TASK_LIST", "")
	}
	many := llmtest.Response{Content: llmtest.Template("Many steps.", "[~] count", calls...), ChunkSize: 4 << 10}
	return scenario{
		name:    "10k-tools",
		title:   "reply with 10,000 tool calls",
		target:  "seconds, RSS < 200 MB",
		maxRuns: 3,
		setup: func(w *world) ([]string, error) {
			w.srv.Respond(func(req llmtest.Request) (llmtest.Response, bool) {
				compression := len(req.Messages) == 1 && strings.Contains(req.Messages[0].Content, "<conversation>")
				return llmtest.Response{Content: "SUMMARY: counted to 10,000."}, compression
			})
			w.script(instant(many), instant(reply("Done.", "", call("DONE", summary))))
			// -v: the terminal shows task-list updates only as the list's
			// changes; verbose shows each call, so all 10,000 are rendered.
			return []string{"--no-audit", "-v", "-p", "count"}, nil
		},
		check: func(w *world, p *process) error {
			if err := checkRun(w, p, 3, summary); err != nil {
				return err
			}
			if n := strings.Count(p.stderr, "UPDATE_TASK_LIST"); n < 10000 {
				return fmt.Errorf("%d tools shown, want 10000", n)
			}
			return nil
		},
	}
}

// bigMarkdown is size bytes of a markdown file with headings and fences,
// which the parser must keep inside the WRITE_FILE block.
func bigMarkdown(size int) string {
	var b strings.Builder
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, "## Section %d\n\nSome text about section %d, with `code` and a list:\n\n- one\n- two\n\n```bash\necho %d\n```\n\n", i, i, i)
	}
	return b.String()
}

// mockAlone is how long the mock takes to stream resp to a client that
// only reads, and how many bytes the stream has.
func mockAlone(resp llmtest.Response) (time.Duration, int64) {
	srv := llmtest.New("mock-model")
	defer srv.Close()
	srv.Script(resp)
	body := `{"model":"mock-model","stream":true,"messages":[{"role":"user","content":"hi"}]}`
	res, err := http.Post(srv.BaseURL()+"/chat/completions", "application/json", strings.NewReader(body))
	if err != nil {
		return 0, 0
	}
	defer res.Body.Close()
	n, _ := io.Copy(io.Discard, res.Body)
	req := srv.Requests()[0]
	return req.Replied.Sub(req.Arrived), n
}

// hugeOutputScenario runs a command that prints 1 GB: dev keeps the head
// and the tail for the model and streams the output to a file that keeps
// its first and last 32 MB.
func hugeOutputScenario() scenario {
	const summary = "Printed 1 GB."
	const size = 1 << 30
	return scenario{
		name:    "1gb-output",
		title:   "command printing 1 GB",
		target:  "RSS < 60 MB",
		maxRuns: 3,
		setup: func(w *world) ([]string, error) {
			w.timeout = 600
			w.script(
				command(reply("Print a lot.", "", call("COMMAND", fmt.Sprintf("yes 0123456789abcdef | head -c %d", size)))),
				instant(reply("Done.", "", call("DONE", summary))),
			)
			return []string{"--no-audit", "-p", "print a gigabyte"}, nil
		},
		check: func(w *world, p *process) error {
			if err := checkRun(w, p, 2, summary); err != nil {
				return err
			}
			res := lastUser(p.requests[1])
			if !strings.Contains(res, "1.0 GB in all") {
				return fmt.Errorf("the result does not say 1 GB was printed: %s", tail(res, 400))
			}
			// The saved file keeps the first and the last 32 MB (SPEC §2).
			m := regexp.MustCompile(`its first 32 MB and last 32 MB saved in (\S+)\]`).FindStringSubmatch(res)
			if m == nil {
				return fmt.Errorf("the result names no saved output: %s", tail(res, 400))
			}
			if fi, err := os.Stat(m[1]); err != nil || fi.Size() > 64<<20 || fi.Size() < 63<<20 {
				return fmt.Errorf("the saved output %s: %v, %d bytes", m[1], err, sizeOf(fi))
			}
			return nil
		},
		notes: func(ps []*process) string {
			d := median(ps, func(p *process) time.Duration { return medianOf(p.slowGaps) })
			return fmt.Sprintf("the command step: %s (%.0f MB/s through dev to disk)", ms(d), float64(size)/(1<<20)/d.Seconds())
		},
	}
}

func sizeOf(fi os.FileInfo) int64 {
	if fi == nil {
		return -1
	}
	return fi.Size()
}

// bigTree is the shared tree of the LIST_DIRECTORY scenario.
type bigTree struct {
	dir     string
	visible int // entries a listing must count
}

// bigTreeScenario lists a git work tree of 100,000 files under a 600-line
// .gitignore, with 30,000 more files in ignored directories that must not
// be entered.
func bigTreeScenario() scenario {
	const summary = "Listed the tree."
	return scenario{
		name:   "big-tree",
		title:  "LIST_DIRECTORY, 100,000 files",
		target: "< 1 s, ignored directories not entered",
		prepare: func(b *bench) (any, error) {
			return makeBigTree(filepath.Join(b.tmp, "tree"))
		},
		setup: func(w *world) ([]string, error) {
			w.dir = w.shared.(*bigTree).dir // read-only: dev only lists it
			w.script(
				instant(reply("See what is there.", "", call("LIST_DIRECTORY", "."))),
				instant(reply("Done.", "", call("DONE", summary))),
			)
			return []string{"--no-audit", "-p", "list the project"}, nil
		},
		check: func(w *world, p *process) error {
			if err := checkRun(w, p, 2, summary); err != nil {
				return err
			}
			res := lastUser(p.requests[1])
			if strings.Contains(res, "build/") || strings.Contains(res, "cache7") {
				return fmt.Errorf("the listing shows ignored directories:\n%s", tail(res, 600))
			}
			m := regexp.MustCompile(`… (\d+) more \(not shown`).FindStringSubmatch(res)
			shown := strings.Count(res, "── ") // one per entry line
			if m == nil {
				return fmt.Errorf("the listing does not count what it left out:\n%s", tail(res, 600))
			}
			var more int
			fmt.Sscan(m[1], &more)
			if want := w.shared.(*bigTree).visible; more+shown != want {
				return fmt.Errorf("the listing counted %d entries, want %d", more+shown, want)
			}
			return nil
		},
		notes: func(ps []*process) string {
			d := median(ps, func(p *process) time.Duration { return p.gaps[0] })
			return "the listing step: " + ms(d)
		},
	}
}

func makeBigTree(dir string) (*bigTree, error) {
	var ignore bytes.Buffer
	for i := range 200 {
		fmt.Fprintf(&ignore, "*.tmp%d\n/build%d/\n**/cache%d/\n", i, i, i)
	}
	ignore.WriteString("/build/\n*.log\n")
	files := map[string]int{}
	t := &bigTree{dir: dir, visible: 1} // .gitignore
	for i := range 100 {
		t.visible++ // pkgNN/
		for j := range 10 {
			files[fmt.Sprintf("pkg%02d/mod%d", i, j)] = 100
			t.visible += 1 + 100
		}
		files[fmt.Sprintf("pkg%02d/cache7", i)] = 100 // ignored: **/cache7/
	}
	for i := range 100 {
		files[fmt.Sprintf("build/out%02d", i)] = 200 // ignored: /build/
	}
	if err := os.MkdirAll(filepath.Join(dir, ".git"), 0o755); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, ".gitignore"), ignore.Bytes(), 0o644); err != nil {
		return nil, err
	}
	for sub, n := range files {
		p := filepath.Join(dir, sub)
		if err := os.MkdirAll(p, 0o755); err != nil {
			return nil, err
		}
		for k := range n {
			if err := os.WriteFile(filepath.Join(p, fmt.Sprintf("file%03d.go", k)), nil, 0o644); err != nil {
				return nil, err
			}
		}
	}
	return t, nil
}
