package web

import (
	"net/http"
	"strings"
	"testing"

	"github.com/devagent/dev/sessions"
)

// BenchmarkList answers the list page over 1,000 sessions saved in a real
// store (about 70 KB each, 60 messages): as the browser asks for it again
// and again (warm: the index read the files once; the newest 200 shown),
// with all 1,000 rows, filtered as one types, and the first time (cold:
// every file read).
func BenchmarkList(b *testing.B) {
	store := sessions.NewStore(b.TempDir(), nil)
	for i := range 1000 {
		if err := store.Save(plainSession(i)); err != nil {
			b.Fatal(err)
		}
	}
	serve := func(b *testing.B, s *Server, target string, rows int) {
		w := get(b, s, target)
		if w.Code != http.StatusOK || strings.Count(w.Body.String(), `<li><a class="session"`) != rows {
			b.Fatalf("%s: status %d, %d rows, want %d", target, w.Code, strings.Count(w.Body.String(), `<li><a class="session"`), rows)
		}
		b.SetBytes(int64(w.Body.Len()))
	}
	newServer := func(b *testing.B) *Server {
		s, err := New(Options{Sessions: store.Index(), Store: store, Token: "test-token"})
		if err != nil {
			b.Fatal(err)
		}
		return s
	}
	b.Run("warm", func(b *testing.B) {
		s := newServer(b)
		serve(b, s, "/", listRows)
		for b.Loop() {
			serve(b, s, "/", listRows)
		}
	})
	b.Run("all", func(b *testing.B) {
		s := newServer(b)
		serve(b, s, "/?all=1", 1000)
		for b.Loop() {
			serve(b, s, "/?all=1", 1000)
		}
	})
	b.Run("filtered", func(b *testing.B) {
		s := newServer(b)
		serve(b, s, "/", listRows)
		for b.Loop() {
			serve(b, s, "/?fragment=1&status=failed&q=build", 50)
		}
	})
	b.Run("cold", func(b *testing.B) {
		for b.Loop() {
			serve(b, newServer(b), "/", listRows)
		}
	})
}

// BenchmarkSessionPage renders the page of a session of 300 steps.
func BenchmarkSessionPage(b *testing.B) {
	sess := plainSession(1)
	for len(sess.History) < 600 {
		sess.History = append(sess.History, sess.History[1:61]...)
	}
	for len(sess.Requests) < 300 {
		sess.Requests = append(sess.Requests, sess.Requests[0])
	}
	s := newTestServer(b, memStore{sess.ID: sess}, fakeDiffs{})
	for b.Loop() {
		w := get(b, s, "/s/"+sess.ID)
		if w.Code != http.StatusOK {
			b.Fatal(w.Code)
		}
		b.SetBytes(int64(w.Body.Len()))
	}
}
