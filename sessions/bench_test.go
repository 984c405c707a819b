package sessions

import (
	"fmt"
	"github.com/devagent/dev/parser"
	"strings"
	"testing"
	"time"

	"github.com/devagent/dev/checkpoints"
	"github.com/devagent/dev/llm"
)

// bigSession is a session late in a long run: 300 messages of about 2 KB,
// with the characters tool results are full of.
func bigSession(id string) *Session {
	sess := &Session{ID: id, WorkingDirectory: "/home/ann/project", Model: "devstral-small-2507", Status: Active}
	line := "<tool_result tool=\"READ_FILE\" path=\"main.go\">\tfmt.Println(\"héllo\") // a & b\n"
	content := strings.Repeat(line, 2048/len(line)+1)[:2048]
	for i := range 300 {
		role := llm.RoleUser
		if i%2 == 1 {
			role = llm.RoleAssistant
		}
		sess.History = append(sess.History, llm.Message{Role: role, Content: content})
	}
	for i := range 20 {
		sess.TaskList = append(sess.TaskList, parser.Task{Status: "pending", Text: fmt.Sprintf("task %d", i)})
	}
	return sess
}

func BenchmarkSave(b *testing.B) {
	s := NewStore(b.TempDir(), nil)
	sess := bigSession(someID)
	data, err := encode(sess)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if err := s.Save(sess); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEncodeLong is the encoding of a save late in a 300-step run:
// 300 messages, 300 requests and 150 checkpoints, the last save's
// encoding at hand (what Save pays before writing).
func BenchmarkEncodeLong(b *testing.B) {
	sess := bigSession(someID)
	for i := range 300 {
		sess.Requests = append(sess.Requests, Request{Timestamp: time.Now().UTC(), Model: "m", Purpose: PurposeWorker, PromptTokens: 1000 + i})
		if i%2 == 0 {
			sess.Checkpoints = append(sess.Checkpoints, checkpoints.Checkpoint{Number: i / 2, Time: time.Now().UTC(), Reason: checkpoints.AfterTool,
				Step: i, Tool: "COMMAND", Input: "go test ./...", Tree: checkpoints.ID(strings.Repeat("ab", 32)), State: checkpoints.ID(strings.Repeat("cd", 32))})
		}
	}
	var last encodedLists
	if _, err := last.encode(sess); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := last.encode(sess); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEncode(b *testing.B) {
	sess := bigSession(someID)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := encode(sess); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkList lists 200 sessions of 40 messages each.
func BenchmarkList(b *testing.B) {
	s := NewStore(b.TempDir(), nil)
	for i := range 200 {
		sess := bigSession(fmt.Sprintf("%08d-0000-4000-8000-000000000000", i))
		sess.History = sess.History[:40]
		if err := s.Save(sess); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		list, err := s.List()
		if err != nil || len(list) != 200 {
			b.Fatal(len(list), err)
		}
	}
}

// BenchmarkPruneNothingOld is the retention check every dev run starts
// with, in a store of 100 recent sessions of 300 messages (60 MB): nothing
// is old enough to remove.
func BenchmarkPruneNothingOld(b *testing.B) {
	s := NewStore(b.TempDir(), nil)
	for i := range 100 {
		if err := s.Save(bigSession(fmt.Sprintf("%08d-0000-4000-8000-000000000000", i))); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		removed, err := s.Prune(30 * 24 * time.Hour)
		if err != nil || removed != 0 {
			b.Fatal(removed, err)
		}
	}
}

// manySessions saves n sessions of 60 messages of about 2 KB (120 KB each)
// with 30 request records.
func manySessions(b *testing.B, n int) *Store {
	s := NewStore(b.TempDir(), nil)
	for i := range n {
		sess := bigSession(fmt.Sprintf("%08d-0000-4000-8000-000000000000", i))
		sess.History = sess.History[:60]
		sess.OriginalPrompt, sess.Prompts, sess.LastPrompt = "a task", 1, "a task" // as dev saves them
		for range 30 {
			sess.Requests = append(sess.Requests, Request{Timestamp: time.Now(), Model: "m", Purpose: PurposeWorker, PromptTokens: 9000, CompletionTokens: 300})
		}
		if err := s.Save(sess); err != nil {
			b.Fatal(err)
		}
	}
	return s
}

// BenchmarkSummary reads one session's summary; BenchmarkLoad the whole
// session, for comparison.
func BenchmarkSummary(b *testing.B) {
	s := manySessions(b, 1)
	id := "00000000-0000-4000-8000-000000000000"
	for b.Loop() {
		if s.summary(id) == nil {
			b.Fatal("no summary")
		}
	}
}

func BenchmarkLoad(b *testing.B) {
	s := manySessions(b, 1)
	id := "00000000-0000-4000-8000-000000000000"
	for b.Loop() {
		if _, err := s.Load(id); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkIndex lists 1,000 sessions (120 MB) with an index that read
// them once: the session browser's list.
func BenchmarkIndex(b *testing.B) {
	s := manySessions(b, 1000)
	x := s.Index()
	if _, err := x.List(); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		list, err := x.List()
		if err != nil || len(list) != 1000 {
			b.Fatal(len(list), err)
		}
	}
}

// BenchmarkIndexCold is the first List of an index over 1,000 sessions.
func BenchmarkIndexCold(b *testing.B) {
	s := manySessions(b, 1000)
	for b.Loop() {
		list, err := s.Index().List()
		if err != nil || len(list) != 1000 {
			b.Fatal(len(list), err)
		}
	}
}
