package checkpoints

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func msgs(ss ...string) [][]byte {
	out := make([][]byte, len(ss))
	for i, s := range ss {
		out[i] = []byte(s)
	}
	return out
}

// States come back exactly, whatever happened to the history between
// them: growth, a cut (a retried reply), a replacement (a compression),
// and chains longer than a state may be based on.
func TestStateRoundTrip(t *testing.T) {
	t.Parallel()
	s, err := Open(t.TempDir(), t.TempDir(), Options{})
	must(t, err)
	var saved []State
	var ids []hash
	var base hash
	add := func(st State) {
		t.Helper()
		id, err := s.saveState(base, st)
		must(t, err)
		saved, ids, base = append(saved, st), append(ids, id), id
	}
	history := msgs("system? no: the first request")
	for i := range 150 {
		switch {
		case i == 40: // compression: one summary replaces everything
			history = msgs("summary of 40 steps")
		case i == 90: // a failed reply dropped
			history = history[:len(history)-1]
		default:
			history = append(history, []byte(fmt.Sprintf("assistant %d", i)), []byte(fmt.Sprintf("tool result %d", i)))
		}
		h := make([][]byte, len(history))
		copy(h, history)
		add(State{Messages: h, Rest: []byte(fmt.Sprintf(`{"tasks":%d}`, i/10))})
	}
	// A new store, as a later dev process: nothing cached.
	cold, err := Open(s.dir, s.workDir, Options{})
	must(t, err)
	for i, id := range ids {
		got, err := cold.State(id.id())
		must(t, err)
		if !equalStates(got, saved[i]) {
			t.Fatalf("state %d came back as %d messages, rest %q; want %d, %q", i, len(got.Messages), got.Rest, len(saved[i].Messages), saved[i].Rest)
		}
	}
	// Equal states are one id, whatever their base.
	again, err := cold.saveState(hash{}, saved[100])
	must(t, err)
	if again != ids[100] {
		t.Errorf("an equal state got another id")
	}
}

func equalStates(a, b State) bool {
	if len(a.Messages) != len(b.Messages) || !bytes.Equal(a.Rest, b.Rest) {
		return false
	}
	for i := range a.Messages {
		if !bytes.Equal(a.Messages[i], b.Messages[i]) {
			return false
		}
	}
	return true
}

// A state costs what it adds: 300 states of a growing history store each
// message once.
func TestStateStoresMessagesOnce(t *testing.T) {
	t.Parallel()
	s, err := Open(t.TempDir(), t.TempDir(), Options{})
	must(t, err)
	var history [][]byte
	var base hash
	for i := range 300 {
		history = append(history, []byte(strings.Repeat(fmt.Sprintf("message %d ", i), 50)))
		id, err := s.saveState(base, State{Messages: history, Rest: []byte("{}")})
		must(t, err)
		base = id
	}
	size := dirSize(t, s.dir)
	// 300 messages of ~600 bytes deflate to well under 100 KB; a full
	// copy per state would be 300×150 messages.
	if size > 300<<10 {
		t.Errorf("300 states take %d KB", size>>10)
	}
}

func TestStateCorrupt(t *testing.T) {
	t.Parallel()
	s, err := Open(t.TempDir(), t.TempDir(), Options{})
	must(t, err)
	id, err := s.saveState(hash{}, State{Messages: msgs("a", "b"), Rest: []byte("r")})
	must(t, err)
	bad, err := s.saveState(hash{}, State{Messages: msgs("a", "c"), Rest: []byte("r")})
	must(t, err)
	// Put another state's bytes under id: what it holds no longer
	// matches the name.
	data, err := s.obj.read(bad)
	must(t, err)
	overwriteObject(t, s, id, data)
	if _, err := s.State(id.id()); err == nil || !strings.Contains(err.Error(), "corrupt") {
		t.Errorf("a swapped state: %v", err)
	}
	if _, err := s.State("zz"); err == nil {
		t.Error("a bad id was accepted")
	}
}

func dirSize(t testing.TB, dir string) int64 {
	t.Helper()
	var n int64
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		if !fi.IsDir() {
			n += fi.Size()
		}
		return nil
	})
	must(t, err)
	return n
}
