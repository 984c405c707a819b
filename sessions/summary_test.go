package sessions

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/devagent/dev/history"
	"github.com/devagent/dev/llm"
)

// The index lists what Store.List lists, in the same order, with the same
// facts.
func TestIndexMatchesList(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	clk := newClock(t0)
	s := NewStore(dir, clk.now)
	cost := 0.25
	for i, id := range []string{
		"33333333-3333-4333-8333-333333333333",
		"11111111-1111-4111-8111-111111111111",
		"22222222-2222-4222-8222-222222222222",
	} {
		clk.set(t0.Add(time.Duration(i%2) * time.Hour))
		sess := &Session{ID: id, WorkingDirectory: "/w/" + id[:1], OriginalPrompt: "fix <b>it</b> " + id[:1], Model: "qwen3",
			Prompts: i + 1, LastPrompt: "then " + id[:1], Status: Complete, TotalTokens: 1000 * (i + 1), Profile: "local",
			History: []llm.Message{{Role: "user", Content: `"totalTokens": 9, "id": "x"`}}}
		if i == 1 {
			sess.Cost = &cost
		}
		if err := s.Save(sess); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "55555555-5555-4555-8555-555555555555.json"), []byte("{corrupt"), 0o600); err != nil {
		t.Fatal(err)
	}
	// A file holding another session than its name says is skipped, as
	// Load refuses it.
	if err := os.WriteFile(filepath.Join(dir, "66666666-6666-4666-8666-666666666666.json"), []byte(`{"id":"`+someID+`"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	full, err := s.List()
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.Index().List()
	if err != nil {
		t.Fatal(err)
	}
	var want []Summary
	for _, x := range full {
		want = append(want, x.Summary())
	}
	if len(want) != 3 || !reflect.DeepEqual(got, want) {
		t.Errorf("Index().List() =\n%+v\nwant (from List)\n%+v", got, want)
	}
}

// A second List sees sessions added, changed and removed since the first.
func TestIndexFollowsChanges(t *testing.T) {
	t.Parallel()
	s := NewStore(t.TempDir(), nil)
	a := &Session{ID: "11111111-1111-4111-8111-111111111111", Status: Active}
	b := &Session{ID: "22222222-2222-4222-8222-222222222222", Status: Active}
	for _, sess := range []*Session{a, b} {
		if err := s.Save(sess); err != nil {
			t.Fatal(err)
		}
	}
	x := s.Index()
	if list, err := x.List(); err != nil || len(list) != 2 {
		t.Fatalf("first List = %v, %v", list, err)
	}
	a.Status = Complete
	if err := s.Save(a); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(s.path(b.ID)); err != nil {
		t.Fatal(err)
	}
	c := &Session{ID: "33333333-3333-4333-8333-333333333333", Status: Failed}
	if err := s.Save(c); err != nil {
		t.Fatal(err)
	}
	list, err := x.List()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Status{}
	for _, sum := range list {
		got[sum.ID] = sum.Status
	}
	want := map[string]Status{a.ID: Complete, c.ID: Failed}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("after the changes List = %v, want %v", got, want)
	}
}

// An unchanged file (same size and modification time) is not read again:
// what makes listing cheap in a long-running process.
func TestIndexReadsOnlyChangedFiles(t *testing.T) {
	t.Parallel()
	s := NewStore(t.TempDir(), func() time.Time { return t0 }) // updatedAt keeps its length
	sess := &Session{ID: someID, OriginalPrompt: "first", Status: Active}
	if err := s.Save(sess); err != nil {
		t.Fatal(err)
	}
	x := s.Index()
	if _, err := x.List(); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(s.path(someID))
	if err != nil {
		t.Fatal(err)
	}
	sess.OriginalPrompt = "other" // same length: same size
	if err := s.Save(sess); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(s.path(someID), fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	list, err := x.List()
	if err != nil || len(list) != 1 {
		t.Fatal(list, err)
	}
	if list[0].OriginalPrompt != "first" {
		t.Errorf("the unchanged-looking file was read again: prompt %q", list[0].OriginalPrompt)
	}
	if list, _ := s.Index().List(); list[0].OriginalPrompt != "other" {
		t.Errorf("a new index reads %q, want other", list[0].OriginalPrompt)
	}
}

// decodeSummary reads what encoding/json reads from any session file it
// accepts, whatever the strings it skips hold.
func TestDecodeSummary(t *testing.T) {
	t.Parallel()
	for _, data := range summarySeeds {
		checkSummary(t, []byte(data))
	}
}

// Truncated and malformed files are refused, as Load refuses them.
func TestDecodeSummaryRejects(t *testing.T) {
	t.Parallel()
	for _, data := range []string{
		``, `[]`, `{`, `{"id":"a"`, `{"id":"a",}`, `{"id" "a"}`, `{"history":[{"content":"\"}]}`,
		`{"history":[{"content":"x"}]`, `{"id":"a" "b":1}`, `{"id":}`, `{"a":"\\\"}`,
	} {
		if _, err := decodeSummary([]byte(data)); err == nil {
			t.Errorf("decodeSummary(%q) succeeded", data)
		}
	}
}

var summarySeeds = []string{
	`{}`,
	` { "id" : "a" , "status":"complete" } `,
	`{"id":"a","history":[{"role":"user","content":"\"totalTokens\": 5, \\\"id\\\": \"b\\\\\""}],"totalTokens":7,"cost":0.5}`,
	`{"id":"a","taskList":[{"status":"pending","text":"]}{["}],"requests":[{"cachedTokens":null}],"model":"m\u00e9","cost":null}`,
	`{"id":"x","history":[],"totalTokens":1,"totalTokens":2,"profile":"p\\"}`,
	`{"id":"a","history":[{"role":"user","content":"<user_request>one</user_request>"},{"role":"user","content":"<user_request>two</user_request>"}]}`,
	`{"id":"a","prompts":5,"lastPrompt":"five","history":[{"role":"user","content":"<user_request>one</user_request>"}]}`,
	`{"createdAt":"2025-03-14T15:09:26Z","updatedAt":"2025-03-14T16:09:26.5Z","workingDirectory":"C:\\w","originalPrompt":"<b>&amp;</b>\n"}`,
}

func FuzzDecodeSummary(f *testing.F) {
	for _, s := range summarySeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(checkSummary)
}

func checkSummary(t *testing.T, data []byte) {
	var full Session
	if json.Unmarshal(data, &full) != nil || !bytes.HasPrefix(bytes.TrimLeft(data, " \t\r\n"), []byte("{")) {
		return
	}
	fillPrompts(&full) // as Load does
	want := full.Summary()
	got, err := decodeSummary(data)
	if err != nil {
		t.Fatalf("decodeSummary(%q): %v; encoding/json reads it", data, err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("decodeSummary(%q) =\n%+v\nwant\n%+v", data, got, want)
	}
}

// Summaries lists what Entries lists, in the same order, each session as
// its summary: the unreadable files with why, and a session saved as
// active that no dev holds as interrupted, as Load says.
func TestSummariesMatchEntries(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	clk := newClock(t0)
	s := NewStore(dir, clk.now)
	held := "44444444-4444-4444-8444-444444444444"
	for i, sess := range []*Session{
		{ID: "11111111-1111-4111-8111-111111111111", Status: Complete, OriginalPrompt: "first", Prompts: 3, LastPrompt: "third",
			History: []llm.Message{history.Request("third")}},
		{ID: "22222222-2222-4222-8222-222222222222", Status: Active, OriginalPrompt: "died"},
		{ID: "33333333-3333-4333-8333-333333333333", Status: Failed},
		{ID: held, Status: Active, OriginalPrompt: "running"},
	} {
		clk.set(t0.Add(time.Duration(i) * time.Minute))
		if err := s.Save(sess); err != nil {
			t.Fatal(err)
		}
	}
	release, err := s.Lock(held)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	// One file is no JSON, another holds a status no session has.
	if err := os.WriteFile(filepath.Join(dir, "55555555-5555-4555-8555-555555555555.json"), []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	bad := `{"id":"66666666-6666-4666-8666-666666666666","status":"sleeping","history":[]}`
	if err := os.WriteFile(filepath.Join(dir, "66666666-6666-4666-8666-666666666666.json"), []byte(bad), 0o600); err != nil {
		t.Fatal(err)
	}

	entries, err := s.Entries()
	if err != nil {
		t.Fatal(err)
	}
	list, err := s.Summaries()
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != len(entries) || len(list) != 6 {
		t.Fatalf("%d summaries, %d entries, want 6", len(list), len(entries))
	}
	for i, e := range entries {
		l := list[i]
		switch {
		case l.ID != e.ID || l.Path != e.Path:
			t.Errorf("summary %d is %s, entry %s", i, l.ID, e.ID)
		case e.Err != nil:
			if l.Err == nil || l.Err.Error() != e.Err.Error() || !l.ModTime.Equal(e.ModTime) {
				t.Errorf("%s: summary error %v, entry error %v", l.ID, l.Err, e.Err)
			}
		case l.Err != nil || !reflect.DeepEqual(l.Summary, e.Session.Summary()):
			t.Errorf("%s: summary %+v (%v), want %+v", l.ID, l.Summary, l.Err, e.Session.Summary())
		}
	}
	statuses := map[string]Status{}
	for _, l := range list {
		statuses[l.ID[:1]] = l.Status
	}
	if statuses["2"] != Interrupted || statuses["4"] != Active || list[len(list)-1].Prompts != 3 || list[len(list)-1].LastPrompt != "third" {
		t.Errorf("statuses %v, the oldest %+v", statuses, list[len(list)-1].Summary)
	}
}

// A session file of a version that did not keep prompts and lastPrompt
// has them from its history, read whole (Load) or for its summary: its
// requests, and those a compression's summary names.
func TestPromptsOfEarlierFiles(t *testing.T) {
	t.Parallel()
	compressed := history.Compressed{Summary: "Read the code.", Original: "fix the parser", Current: "now the lexer"}.Message()
	for _, c := range []struct {
		name    string
		history []llm.Message
		n       int
		last    string
	}{
		{"none", nil, 0, ""},
		{"a command only", []llm.Message{history.Shell("ls", history.ToolResult{Tool: "COMMAND", OK: true, Output: "a"})}, 0, ""},
		{"two requests", []llm.Message{history.Request("one"), {Role: llm.RoleAssistant, Content: "x"}, history.Request("two")}, 2, "two"},
		{"compressed", []llm.Message{compressed, {Role: llm.RoleAssistant, Content: "x"}, history.Request("and the tests")}, 3, "and the tests"},
		{"compressed mid-request", []llm.Message{compressed}, 2, "now the lexer"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := NewStore(t.TempDir(), nil)
			if err := s.Save(&Session{ID: someID, Status: Complete, History: c.history}); err != nil {
				t.Fatal(err)
			}
			// As an earlier version wrote it: without the two fields.
			data, err := os.ReadFile(s.path(someID))
			if err != nil {
				t.Fatal(err)
			}
			old := bytes.Replace(data, []byte(`"prompts":0,"lastPrompt":"",`), nil, 1)
			if bytes.Equal(old, data) {
				t.Fatalf("no prompts field in %s", data)
			}
			if err := os.WriteFile(s.path(someID), old, 0o600); err != nil {
				t.Fatal(err)
			}
			sess, err := s.Load(someID)
			if err != nil {
				t.Fatal(err)
			}
			list, err := s.Summaries()
			if err != nil || len(list) != 1 {
				t.Fatal(list, err)
			}
			for what, got := range map[string]Summary{"Load": sess.Summary(), "Summaries": list[0].Summary} {
				if got.Prompts != c.n || got.LastPrompt != c.last {
					t.Errorf("%s: %d prompts, the last %q; want %d, %q", what, got.Prompts, got.LastPrompt, c.n, c.last)
				}
			}
		})
	}
}

// A file as dev writes it is read to its lists only: the summary of a
// long session whose end is not even there is its whole file's. A file
// of an earlier version (the facts after the history), or of a session
// without requests, is read whole.
func TestSummaryReadsTheHead(t *testing.T) {
	t.Parallel()
	s := NewStore(t.TempDir(), nil)
	cost := 0.5
	sess := bigSession(someID)
	sess.OriginalPrompt, sess.Prompts, sess.LastPrompt, sess.TotalTokens, sess.Profile, sess.Cost = "fix it", 4, "and the docs", 12345, "local", &cost
	if err := s.Save(sess); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(s.path(someID))
	if err != nil || len(data) < 10*listHead {
		t.Fatalf("%d bytes, %v", len(data), err)
	}
	whole, err := decodeSummary(data)
	if err != nil || !reflect.DeepEqual(whole, sess.Summary()) {
		t.Fatalf("decodeSummary = %+v, %v", whole, err)
	}
	if head, ok := decodeHead(data[:listHead]); !ok || !reflect.DeepEqual(head, whole) {
		t.Errorf("decodeHead = %+v, %v; want %+v", head, ok, whole)
	}
	// Cut after its head: the list still reads it.
	if err := os.WriteFile(s.path(someID), data[:2*listHead], 0o600); err != nil {
		t.Fatal(err)
	}
	if got := s.summary(someID); got == nil || !reflect.DeepEqual(*got, whole) {
		t.Errorf("summary of the file cut after its head = %+v", got)
	}

	for what, file := range map[string]string{
		"earlier":         `{"id":"` + someID + `","prompts":2,"history":[],"totalTokens":5}`,
		"no request":      `{"id":"` + someID + `","prompts":0,"totalTokens":5,"history":[{"role":"user","content":"<user_request>x</user_request>"}]}`,
		"no prompts kept": `{"id":"` + someID + `","totalTokens":5,"history":[]}`,
	} {
		if _, ok := decodeHead([]byte(file)); ok {
			t.Errorf("%s: decodeHead read %s", what, file)
		}
	}
}
