package sessions

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"github.com/devagent/dev/parser"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/devagent/dev/checkpoints"
	"github.com/devagent/dev/llm"
	"github.com/google/uuid"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

var (
	t0     = time.Date(2025, 3, 14, 15, 9, 26, 535000000, time.UTC)
	paris  = time.FixedZone("CET", 3600)
	someID = "0b0f4d5e-7a1c-4f3e-9b2a-1c2d3e4f5a6b"
)

func TestValidID(t *testing.T) {
	t.Parallel()
	tests := map[string]bool{
		"0b0f4d5e-7a1c-4f3e-9b2a-1c2d3e4f5a6b":          true,
		"00000000-0000-0000-0000-000000000000":          true,
		"0B0F4D5E-7A1C-4F3E-9B2A-1C2D3E4F5A6B":          false,
		"{0b0f4d5e-7a1c-4f3e-9b2a-1c2d3e4f5a6b}":        false,
		"urn:uuid:0b0f4d5e-7a1c-4f3e-9b2a-1c2d3e4f5a6b": false,
		"0b0f4d5e7a1c4f3e9b2a1c2d3e4f5a6b":              false,
		"0b0f4d5e-7a1c-4f3e-9b2a-1c2d3e4f5a6":           false,
		"0b0f4d5e-7a1c-4f3e-9b2a-1c2d3e4f5a6g":          false,
		"../../../../../../../../../../../etc/passwd":   false,
		"..": false,
		"":   false,
	}
	for id, want := range tests {
		if got := ValidID(id); got != want {
			t.Errorf("ValidID(%q) = %v, want %v", id, got, want)
		}
	}
}

func TestNew(t *testing.T) {
	t.Parallel()
	s := NewStore(t.TempDir(), func() time.Time { return t0.In(paris) })
	sess, err := s.New("", "/work/project", "fix the tests", "qwen3")
	if err != nil {
		t.Fatal(err)
	}
	u, err := uuid.Parse(sess.ID)
	if err != nil || u.Version() != 4 || u.Variant() != uuid.RFC4122 || !ValidID(sess.ID) {
		t.Errorf("generated id %q: %v, version %v; want a lowercase UUID v4", sess.ID, err, u.Version())
	}
	want := &Session{
		ID: sess.ID, CreatedAt: t0, UpdatedAt: t0,
		WorkingDirectory: filepath.Join(string(filepath.Separator)+"work", "project"),
		OriginalPrompt:   "fix the tests", Model: "qwen3", Status: Active,
		TaskList: []parser.Task{}, History: []llm.Message{}, Compressions: []Compression{}, Audits: []Audit{}, Requests: []Request{},
		Checkpoints: []checkpoints.Checkpoint{},
	}
	if runtime.GOOS == "windows" {
		want.WorkingDirectory, _ = filepath.Abs(want.WorkingDirectory)
	}
	if !reflect.DeepEqual(sess, want) || sess.CreatedAt.Location() != time.UTC {
		t.Errorf("New =\n%+v\nwant\n%+v", sess, want)
	}

	other, err := s.New("", "/w", "", "m")
	if err != nil || other.ID == sess.ID {
		t.Errorf("second New id = %q, %v; want a fresh id", other.ID, err)
	}

	given, err := s.New(someID, "rel", "", "m")
	if err != nil || given.ID != someID {
		t.Fatalf("New with id = %+v, %v", given, err)
	}
	if abs, _ := filepath.Abs("rel"); given.WorkingDirectory != abs {
		t.Errorf("working directory %q, want it absolute: %q", given.WorkingDirectory, abs)
	}

	for _, bad := range []string{strings.ToUpper(someID), "my-session", "../x"} {
		if _, err := s.New(bad, "/w", "", "m"); !errors.Is(err, ErrBadID) {
			t.Errorf("New(%q) error = %v, want ErrBadID", bad, err)
		}
	}
}

// fullSession exercises every field, with times outside UTC and text that
// JSON would escape as HTML by default.
func fullSession() *Session {
	return &Session{
		ID:               someID,
		CreatedAt:        t0.Add(-time.Hour).In(paris),
		WorkingDirectory: "/home/ann/project",
		OriginalPrompt:   "make `go test` pass & commit", Prompts: 1, LastPrompt: "make `go test` pass & commit",
		Model:    "devstral-small-2507",
		Status:   Complete,
		TaskList: []parser.Task{{Status: "complete", Text: "read the failing test"}, {Status: "in-progress", Text: "fix it"}, {Status: "pending", Text: "commit"}},
		History: []llm.Message{
			{Role: llm.RoleUser, Content: "<user_request>make `go test` pass & commit</user_request>"},
			{Role: llm.RoleAssistant, Content: "# Agent Response\n\n## Thoughts\nRun the tests.\n\n## Tool Choice\nCOMMAND\n\n## Tool Input\ngo test ./...\n"},
			{Role: llm.RoleUser, Content: "<tool_result tool=\"COMMAND\">exit 0\n\"ok\" \u00e9\u2713</tool_result>"},
		},
		TotalTokens:      12345,
		Compressions:     []Compression{{Timestamp: t0.Add(-30 * time.Minute).In(paris), TokensBefore: 110000, TokensAfter: 9000}},
		CompressionCount: 1,
		Audits:           []Audit{{Timestamp: t0.Add(-time.Minute), Steps: 4, Verdict: "PASS", Feedback: "Overall: PASS"}},
		Profile:          "local",
		Requests: []Request{
			{Timestamp: t0.Add(-59 * time.Minute).In(paris), Model: "devstral-small-2507", Purpose: PurposeWorker, PromptTokens: 5000,
				CompletionTokens: 120, CachedTokens: &cached, FirstByteMs: 850, DurationMs: 2400},
			{Timestamp: t0.Add(-58 * time.Minute), Model: "devstral-small-2507", Purpose: PurposeWorker, PromptTokens: 5200,
				CompletionTokens: 3000, FirstByteMs: 120, DurationMs: 9100, EarlyStop: true, FormatError: true, Estimated: true},
		},
		Cost: &cost,
		Checkpoints: []checkpoints.Checkpoint{
			{Number: 0, Time: t0.Add(-time.Hour).In(paris), Reason: checkpoints.BeforeRequest,
				Tree: "5df6e0e2761359d30a8275058e299fcc0381534545f55cf43e41983f5d4c9456", State: "c0ffee254729296a45a3885639ac7ca4ab3d1e79ff9e2d5b8b2f55f3d9e7a0a1"},
			{Number: 1, Time: t0.Add(-59 * time.Minute), Reason: checkpoints.AfterTool, Step: 1, Tool: "COMMAND", Input: "go test ./...",
				Tree: "9a271f2a916b0b6ee6cecb2426f0b3206ef074578be55d9bc94f6f3fe3432d92", State: "d1e2f3a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2"},
		},
	}
}

var cached, cost = 4800, 0.0123

func TestSaveFileFormat(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := NewStore(dir, func() time.Time { return t0.In(paris) })
	sess := fullSession()
	callerCopy := fullSession()
	if err := s.Save(sess); err != nil {
		t.Fatal(err)
	}
	if !sess.UpdatedAt.Equal(t0) || sess.UpdatedAt.Location() != time.UTC {
		t.Errorf("UpdatedAt = %v, want %v in UTC", sess.UpdatedAt, t0)
	}
	callerCopy.UpdatedAt = sess.UpdatedAt
	if !reflect.DeepEqual(sess, callerCopy) {
		t.Errorf("Save changed more than UpdatedAt:\n%+v", sess)
	}

	data, err := os.ReadFile(filepath.Join(dir, someID+".json"))
	if err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "session.golden.json")
	if *update {
		if err := os.WriteFile(golden, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(data, want) {
		t.Errorf("session file differs from %s:\n%s", golden, data)
	}

	// The field names are the contract of SPEC §8.
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil {
		t.Fatal(err)
	}
	var names []string
	for k := range fields {
		names = append(names, k)
	}
	slices.Sort(names)
	wantNames := []string{"audits", "checkpoints", "compressionCount", "compressions", "cost", "createdAt", "history", "id", "lastPrompt", "model", "originalPrompt", "profile", "prompts", "requests", "status", "taskList", "totalTokens", "updatedAt", "workingDirectory"}
	if !slices.Equal(names, wantNames) {
		t.Errorf("fields = %q, want %q", names, wantNames)
	}
	for _, k := range []string{"createdAt", "updatedAt"} {
		var s string
		_ = json.Unmarshal(fields[k], &s)
		if ts, err := time.Parse(time.RFC3339, s); err != nil || !strings.HasSuffix(s, "Z") {
			t.Errorf("%s = %q (%v, %v), want RFC 3339 in UTC", k, s, ts, err)
		}
	}
	if !bytes.Contains(data, []byte("<tool_result")) {
		t.Error("HTML characters are escaped in the file")
	}

	back, err := s.Load(someID)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, inUTC(sess)) {
		t.Errorf("Load after Save =\n%+v\nwant\n%+v", back, inUTC(sess))
	}
}

func inUTC(sess *Session) *Session {
	c := *sess
	c.CreatedAt, c.UpdatedAt = c.CreatedAt.UTC(), c.UpdatedAt.UTC()
	c.Compressions = slices.Clone(c.Compressions)
	for i := range c.Compressions {
		c.Compressions[i].Timestamp = c.Compressions[i].Timestamp.UTC()
	}
	c.Audits = slices.Clone(c.Audits)
	for i := range c.Audits {
		c.Audits[i].Timestamp = c.Audits[i].Timestamp.UTC()
	}
	c.Requests = slices.Clone(c.Requests)
	for i := range c.Requests {
		c.Requests[i].Timestamp = c.Requests[i].Timestamp.UTC()
	}
	c.Checkpoints = slices.Clone(c.Checkpoints)
	for i := range c.Checkpoints {
		c.Checkpoints[i].Time = c.Checkpoints[i].Time.UTC()
	}
	return &c
}

func TestSaveWritesEmptyListsNotNull(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := NewStore(dir, func() time.Time { return t0 })
	if err := s.Save(&Session{ID: someID, Status: Active}); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, someID+".json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"taskList":[]`, `"history":[]`, `"compressions":[]`, `"audits":[]`, `"createdAt":"2025-03-14T15:09:26.535Z"`} {
		if !bytes.Contains(data, []byte(want)) {
			t.Errorf("file lacks %s:\n%s", want, data)
		}
	}
	if bytes.Contains(data, []byte("null")) {
		t.Errorf("file contains null:\n%s", data)
	}
}

func TestSaveCreatesPrivateFiles(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "home", "sessions")
	s := NewStore(dir, nil)
	sess, err := s.New("", "/w", "p", "m")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("NewStore or New created %s (%v); it is created on first write", dir, err)
	}
	for range 3 {
		if err := s.Save(sess); err != nil {
			t.Fatal(err)
		}
	}
	if runtime.GOOS != "windows" {
		assertMode(t, dir, 0o700|os.ModeDir)
		assertMode(t, filepath.Join(dir, sess.ID+".json"), 0o600)
	}
	assertFiles(t, dir, sess.ID+".json")
}

func assertMode(t *testing.T, path string, want os.FileMode) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode() != want {
		t.Errorf("mode of %s = %v, want %v", path, fi.Mode(), want)
	}
}

// assertFiles checks the exact set of names in dir.
func assertFiles(t *testing.T, dir string, want ...string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	got := []string{}
	for _, e := range entries {
		got = append(got, e.Name())
	}
	slices.Sort(want)
	if want == nil {
		want = []string{}
	}
	if !slices.Equal(got, want) {
		t.Errorf("files in %s = %q, want %q", dir, got, want)
	}
}

func TestSaveRejects(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := NewStore(dir, nil)
	if err := s.Save(&Session{ID: "../escape"}); !errors.Is(err, ErrBadID) {
		t.Errorf("Save with a bad id: %v, want ErrBadID", err)
	}
	if err := s.Save(nil); err == nil {
		t.Error("Save(nil) succeeded")
	}
	// Times past year 9999 cannot be written as RFC 3339: the save fails
	// and the previous file stays as it was.
	if err := s.Save(&Session{ID: someID, Model: "old"}); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(filepath.Join(dir, someID+".json"))
	future := NewStore(dir, func() time.Time { return time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC) })
	if err := future.Save(&Session{ID: someID, Model: "new"}); err == nil {
		t.Error("Save with an unencodable time succeeded")
	}
	after, _ := os.ReadFile(filepath.Join(dir, someID+".json"))
	if !bytes.Equal(before, after) {
		t.Error("a failed Save changed the file")
	}
	assertFiles(t, dir, someID+".json")
}

// TestSaveSurvivesCrashes kills a process in the middle of saving, again and
// again: the file must always hold one complete version.
func TestSaveSurvivesCrashes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := NewStore(dir, nil)
	v0, v1 := version(someID, 0), version(someID, 1)
	for round := range 20 {
		c := startChild(t, "save-loop", dir, someID, "")
		// Let it save a varying number of times, so the kill lands at
		// varying points of a save.
		for range 1 + round%7*3 {
			c.expect(t, "saved")
		}
		c.kill(t)
		sess, err := s.Load(someID)
		if err != nil {
			t.Fatalf("round %d: after a crash: %v", round, err)
		}
		want := v0
		if sess.Model == "v1" {
			want = v1
		}
		if !reflect.DeepEqual(sess.History, want.History) {
			t.Fatalf("round %d: history of %q does not match its version", round, sess.Model)
		}
	}
	list, err := s.List()
	if err != nil || len(list) != 1 || list[0].ID != someID {
		t.Errorf("List after crashes = %v, %v; want the one session (temporary files ignored)", list, err)
	}
}

func TestLoadErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := NewStore(dir, nil)
	for _, id := range []string{"", "../sessions/" + someID, strings.ToUpper(someID), someID + ".json"} {
		if _, err := s.Load(id); !errors.Is(err, ErrBadID) {
			t.Errorf("Load(%q) error = %v, want ErrBadID", id, err)
		}
	}
	_, err := s.Load(someID)
	if !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), someID) {
		t.Errorf("Load of a missing session: %v, want ErrNotFound naming the id", err)
	}

	tests := map[string]string{
		"truncated":     `{"id":"` + someID + `","history":[{"role":"us`,
		"empty":         ``,
		"wrong type":    `{"id":"` + someID + `","history":"none"}`,
		"other id":      `{"id":"11111111-2222-4333-8444-555555555555"}`,
		"not an object": `[]`,
	}
	for name, content := range tests {
		path := filepath.Join(dir, someID+".json")
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := s.Load(someID)
		if err == nil || errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: Load error = %v, want an error naming %s", name, err, path)
		}
	}
}

func TestLoadFillsNullLists(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	content := `{"id":"` + someID + `","status":"failed","history":null}`
	if err := os.WriteFile(filepath.Join(dir, someID+".json"), []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	sess, err := NewStore(dir, nil).Load(someID)
	if err != nil {
		t.Fatal(err)
	}
	if sess.History == nil || sess.TaskList == nil || sess.Compressions == nil || sess.Audits == nil || sess.Status != Failed {
		t.Errorf("Load = %+v, want empty (not nil) lists", sess)
	}
}

func TestList(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	clk := newClock(t0)
	s := NewStore(dir, clk.now)
	if list, err := s.List(); err != nil || len(list) != 0 {
		t.Fatalf("List of a store never written = %v, %v", list, err)
	}
	// Saved out of order; two at the same instant are ordered by id.
	offsets := map[string]time.Duration{
		"33333333-3333-4333-8333-333333333333": 3 * time.Hour,
		"11111111-1111-4111-8111-111111111111": 1 * time.Hour,
		"44444444-4444-4444-8444-444444444444": 5 * time.Hour,
		"22222222-2222-4222-8222-222222222222": 5 * time.Hour,
	}
	for id, d := range offsets {
		clk.set(t0.Add(d))
		if err := s.Save(&Session{ID: id}); err != nil {
			t.Fatal(err)
		}
	}
	// Junk the list must skip.
	junk := map[string]string{
		"55555555-5555-4555-8555-555555555555.json":                       "{corrupt",
		"directory-map.json":                                              "{}",
		"notes.json":                                                      `{"id":"x"}`,
		"." + someID + ".json.tmp-123":                                    `{"id":"` + someID + `"}`,
		"66666666-6666-4666-8666-666666666666.lock":                       "",
		"66666666-6666-4666-8666-666666666666.json.orig":                  "{}",
		strings.ToUpper("77777777-7777-4777-8777-77777777777a") + ".json": `{"id":"77777777-7777-4777-8777-77777777777a"}`,
	}
	for name, content := range junk {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "88888888-8888-4888-8888-888888888888.json"), 0o700); err != nil {
		t.Fatal(err)
	}

	list, err := s.List()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, sess := range list {
		got = append(got, sess.ID)
	}
	want := []string{
		"22222222-2222-4222-8222-222222222222",
		"44444444-4444-4444-8444-444444444444",
		"33333333-3333-4333-8333-333333333333",
		"11111111-1111-4111-8111-111111111111",
	}
	if !slices.Equal(got, want) {
		t.Errorf("List = %q\nwant %q", got, want)
	}
}

func TestDir(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if got, want := NewStore(dir, nil).Dir(someID), filepath.Join(dir, someID); got != want {
		t.Errorf("Dir = %q, want %q", got, want)
	}
}

// Saving reuses the messages encoded by the save before; the file is
// always what encoding the whole session gives.
func TestSaveEncodesOnce(t *testing.T) {
	t.Parallel()
	s := NewStore(t.TempDir(), nil)
	sess, err := s.New(someID, "/w", "fix <it> & more", "m")
	if err != nil {
		t.Fatal(err)
	}
	other, err := s.New("", "/w", "another", "m")
	if err != nil {
		t.Fatal(err)
	}
	check := func(what string, sess *Session) {
		t.Helper()
		if err := s.Save(sess); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(s.path(sess.ID))
		if err != nil {
			t.Fatal(err)
		}
		want, err := encode(sess)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: the file holds\n%s\nwant\n%s", what, got, want)
		}
	}
	add := func(role, content string) {
		sess.History = append(sess.History, llm.Message{Role: role, Content: content})
	}
	check("empty", sess)
	for i := range 20 {
		add(llm.RoleUser, fmt.Sprintf("<tool_result tool=\"READ_FILE\" ok=\"true\">line %d & \"quotes\" \xff\u2028</tool_result>", i))
		check(fmt.Sprintf("step %d", i), sess)
		add(llm.RoleAssistant, fmt.Sprintf("# Agent Response\n\n## Thoughts\nstep %d", i))
		sess.TaskList = append(sess.TaskList, parser.Task{Status: "pending", Text: fmt.Sprintf("task %d", i)})
	}
	check("grown", sess)
	// Requests and checkpoints grow too, with times in any zone.
	local := time.FixedZone("here", 2*3600)
	for i := range 5 {
		sess.Requests = append(sess.Requests, Request{Timestamp: time.Date(2025, 1, 2, 3, 4, i, 0, local), Model: "m <&>", Purpose: PurposeWorker, PromptTokens: i})
		sess.Checkpoints = append(sess.Checkpoints, checkpoints.Checkpoint{Number: i, Time: time.Date(2025, 1, 2, 3, 4, i, 0, local),
			Reason: checkpoints.AfterTool, Tool: "COMMAND", Input: `echo "<x>"`, Tree: "t"})
		check(fmt.Sprintf("request and checkpoint %d", i), sess)
	}
	sess.Checkpoints[4].Input = "changed in place"
	check("a checkpoint changed in place", sess)
	// Failed attempts removed and the slots reused in place, as the loop does.
	sess.History = sess.History[:30]
	add(llm.RoleAssistant, "a new reply in an old slot")
	add(llm.RoleUser, "a new result")
	check("rewritten in place", sess)
	check("another session in between", other)
	sess.History = []llm.Message{{Role: llm.RoleUser, Content: "[CONTEXT SUMMARY]\n\nwork so far"}}
	sess.Compressions = append(sess.Compressions, Compression{Timestamp: time.Now(), TokensBefore: 900, TokensAfter: 100})
	check("compressed", sess)
	sess.History = nil
	check("no history", sess)
}
