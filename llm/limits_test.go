package llm

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"
)

// TestSSEFilter: go-openai's reader gets data lines, and the other lines
// within a budget; comments and blank lines never; whatever the reads.
func TestSSEFilter(t *testing.T) {
	t.Parallel()
	bigOther := "event: " + strings.Repeat("e", maxOtherBytes) + "\n"
	cases := []struct {
		name, in, want string
		oversized      bool
	}{
		{"data and done", "data: {}\n\ndata: [DONE]\n\n", "data: {}\ndata: [DONE]\n", false},
		{"comments dropped", ": ping\n:\ndata: {}\n: keep-alive\n", "data: {}\n", false},
		{"fields kept", "event: error\nid: 4\nretry: 10\ndata: {}\n", "event: error\nid: 4\nretry: 10\ndata: {}\n", false},
		{"crlf", "data: {}\r\n\r\n: c\r\n", "data: {}\r\n", false},
		{"indented data", "  data: {}\n", "  data: {}\n", false},
		{"short lines", "da\nd\n", "da\nd\n", false},
		{"no final newline", "data: {}", "data: {}", false},
		{"other lines are bounded", bigOther + "id: 5\ndata: {}\n", bigOther[:maxOtherBytes] + "\ndata: {}\n", false},
		// What passes of the long line depends on the reads; go-openai
		// drops the partial line at EOF.
		{"long data line", "data: {}\ndata: " + strings.Repeat("x", maxDataLine) + "\ndata: {}\n", "data: {}\n", true},
	}
	for _, tc := range cases {
		for _, split := range []bool{false, true} {
			if split && tc.oversized {
				continue // 16 MB one byte at a time is slow
			}
			var r io.Reader = strings.NewReader(tc.in)
			if split {
				r = iotest.OneByteReader(r)
			}
			d := &callDoer{}
			body := &watchedBody{rc: io.NopCloser(r), d: d, sse: true}
			var got bytes.Buffer
			if _, err := io.Copy(&got, body); err != nil {
				t.Fatal(err)
			}
			if tc.oversized && strings.HasPrefix(got.String(), tc.want) && got.Len() <= len(tc.want)+maxDataLine {
				got.Truncate(len(tc.want))
			}
			if got.String() != tc.want || d.oversized != tc.oversized {
				t.Errorf("%s (one byte a read: %v): got %.80q (oversized %v), want %.80q (%v)", tc.name, split, got.String(), d.oversized, tc.want, tc.oversized)
			}
		}
	}
}

// TestReplyCutAtMaxReplyBytes: a reply past MaxReplyBytes is cut there, on
// a character boundary, and ends for length, whatever arrives after.
func TestReplyCutAtMaxReplyBytes(t *testing.T) {
	t.Parallel()
	piece := strings.Repeat("é", 32<<10) // two bytes a character
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		startSSE(w)
		writeSSE(w, `data: {"choices":[{"index":0,"delta":{"reasoning_content":"why"}}]}`+"\n\n")
		for range (MaxReplyBytes/len(piece))*2 + 1 {
			if r.Context().Err() != nil {
				return // dev went away, as it should
			}
			writeSSE(w, chunkJSON(piece+"a", ""))
		}
		writeSSE(w, chunkJSON("", "stop"))
	})
	var streamed int
	reply, err := New(Config{BaseURL: srv.URL}).Stream(context.Background(), hi, func(d Delta) { streamed += len(d.Content) + len(d.Reasoning) })
	if err != nil {
		t.Fatal(err)
	}
	total := len(reply.Content) + len(reply.Reasoning)
	if total > MaxReplyBytes || total < MaxReplyBytes-1 || streamed != total {
		t.Errorf("reply of %d bytes (%d streamed), want %d", total, streamed, MaxReplyBytes)
	}
	if reply.FinishReason != "length" || !reply.Cut || reply.Reasoning != "why" {
		t.Errorf("finish %q cut %v reasoning %q", reply.FinishReason, reply.Cut, reply.Reasoning)
	}
	if !strings.HasSuffix(reply.Content, "é") && !strings.HasSuffix(reply.Content, "a") {
		t.Errorf("cut inside a character: %q", reply.Content[len(reply.Content)-4:])
	}
}

// TestHugeSSELine: a server that sends one data line of 200 MB costs a
// bounded amount of memory (it cost 836 MB), and the reply ends there, cut.
// Not parallel: it counts the bytes the process allocates.
func TestHugeSSELine(t *testing.T) {
	chunk := bytes.Repeat([]byte("x"), 1<<20)
	for _, tc := range []struct {
		name        string
		contentType string
		start       string
	}{
		{"stream", "text/event-stream", chunkJSON("Hello. ", "") + `data: {"choices":[{"index":0,"delta":{"content":"`},
		{"json", "application/json", `{"choices":[{"index":0,"message":{"content":"`},
	} {
		srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", tc.contentType)
			io.WriteString(w, tc.start)
			for range 200 {
				if _, err := w.Write(chunk); err != nil {
					return
				}
			}
			io.WriteString(w, `"}}]}`+"\n\n")
		})
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		reply, err := New(Config{BaseURL: srv.URL}).Stream(context.Background(), hi, nil)
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if !reply.Cut || reply.FinishReason != "length" {
			t.Errorf("%s: reply not cut: finish %q, %d bytes", tc.name, reply.FinishReason, len(reply.Content))
		}
		if tc.name == "stream" && reply.Content != "Hello. " {
			t.Errorf("%s: content before the long line lost: %.40q", tc.name, reply.Content)
		}
		mb := (after.TotalAlloc - before.TotalAlloc) >> 20
		t.Logf("%s: %d MB allocated", tc.name, mb)
		if mb > 100 {
			t.Errorf("%s: reading a 200 MB line allocated %d MB", tc.name, mb)
		}
	}
}
