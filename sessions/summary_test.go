package sessions

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

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
			Status: Complete, TotalTokens: 1000 * (i + 1), Profile: "local",
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
		want = append(want, Summary{ID: x.ID, CreatedAt: x.CreatedAt, UpdatedAt: x.UpdatedAt, WorkingDirectory: x.WorkingDirectory,
			OriginalPrompt: x.OriginalPrompt, Model: x.Model, Status: x.Status, TotalTokens: x.TotalTokens, Profile: x.Profile, Cost: x.Cost})
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
	want := Summary{ID: full.ID, CreatedAt: full.CreatedAt, UpdatedAt: full.UpdatedAt, WorkingDirectory: full.WorkingDirectory,
		OriginalPrompt: full.OriginalPrompt, Model: full.Model, Status: full.Status, TotalTokens: full.TotalTokens,
		Profile: full.Profile, Cost: full.Cost}
	got, err := decodeSummary(data)
	if err != nil {
		t.Fatalf("decodeSummary(%q): %v; encoding/json reads it", data, err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("decodeSummary(%q) =\n%+v\nwant\n%+v", data, got, want)
	}
}
