package llm

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"time"
)

// errStalled is the cancel cause when no byte arrived for IdleTimeout.
var errStalled = errors.New("no data received")

// maxBufferedBody bounds what is read into memory from an error response or
// a non-streamed JSON reply.
const maxBufferedBody = 4 << 20

// callDoer is the go-openai HTTPDoer of one call. It sees what go-openai
// hides: the status and headers, the raw body of an error response (with
// fields such as n_ctx that go-openai's APIError drops), SSE lines go-openai
// swallows (`error:` events), and whether `data: [DONE]` came. It also
// enforces the idle timeout: every byte read pushes the deadline back.
type callDoer struct {
	client *http.Client
	idle   time.Duration
	cancel context.CancelCauseFunc
	stream bool // a streaming call: buffer a JSON 200 instead of handing it to the SSE reader

	// requestBody, when set, is sent instead of the body go-openai built.
	requestBody []byte

	timer  *time.Timer
	sent   bool // Do was called: a failure is the server's or the network's, not go-openai's validation
	status int
	header http.Header
	body   []byte // error response body, or the JSON reply of a server that ignored stream:true
	lines  sseWatcher
	// oversized: a data line passed maxDataLine, and the stream was ended
	// there.
	oversized bool
	// alive is Request.Alive; aliveAt when it was last told.
	alive   func()
	aliveAt time.Time
}

func newCallDoer(client *http.Client, idle time.Duration, cancel context.CancelCauseFunc, stream bool) *callDoer {
	return &callDoer{client: client, idle: idle, cancel: cancel, stream: stream}
}

func (d *callDoer) Do(req *http.Request) (*http.Response, error) {
	d.sent = true
	if body := d.requestBody; body != nil {
		req.Body = io.NopCloser(bytes.NewReader(body))
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
		req.ContentLength = int64(len(body))
	}
	// A server may close a kept-alive connection just as dev sends on it
	// (llama-server and uvicorn close one idle for 5 s): the request then
	// meets EOF before any answer. Marked idempotent, it is sent again once
	// on a new connection by net/http itself; it never reached the model.
	// The key's empty value keeps the header off the wire.
	req.Header["X-Idempotency-Key"] = nil
	// The clock starts with the request: a server that never answers, not
	// even with headers, is as stalled as one that stops mid-stream.
	if d.idle > 0 {
		d.timer = time.AfterFunc(d.idle, func() { d.cancel(errStalled) })
	}
	resp, err := d.client.Do(req)
	if err != nil {
		return nil, err
	}
	d.status, d.header = resp.StatusCode, resp.Header
	body := &watchedBody{rc: resp.Body, d: d}
	ok := resp.StatusCode >= 200 && resp.StatusCode < 300
	if ok && !(d.stream && isJSON(resp.Header.Get("Content-Type"))) {
		body.sse = d.stream
		resp.Body = body
		return resp, nil
	}
	// Error bodies and non-streamed replies are small: read them whole here,
	// still under the idle timer, and keep the bytes for classification.
	limit := int64(maxBufferedBody)
	if ok {
		limit = maxDataLine // a whole reply
	}
	b, err := io.ReadAll(io.LimitReader(body, limit+1))
	_ = body.Close()
	if err != nil {
		return nil, fmt.Errorf("reading response body: %w", err)
	}
	if int64(len(b)) > limit {
		b = b[:limit]
		if ok {
			// A non-streamed reply too long to hold: cut, like a stream's
			// oversized line (its start cannot be decoded without its end).
			d.oversized = true
			resp.Body = http.NoBody
			return resp, nil
		}
	}
	if ok && !bytes.HasPrefix(bytes.TrimSpace(b), []byte("{")) {
		// SSE mislabelled as JSON: let the SSE reader have it after all.
		resp.Body = io.NopCloser(bytes.NewReader(b))
		return resp, nil
	}
	d.body = b
	if ok {
		// Hand go-openai's SSE reader nothing; Stream parses d.body instead.
		resp.Body = http.NoBody
	} else {
		resp.Body = io.NopCloser(bytes.NewReader(b))
	}
	return resp, nil
}

// stop releases the idle timer.
func (d *callDoer) stop() {
	if d.timer != nil {
		d.timer.Stop()
	}
}

func isJSON(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && mt == "application/json"
}

// watchedBody resets the idle timer on every read that returns bytes
// (keep-alive comments are progress too), feeds the SSE watcher, and hands
// go-openai's SSE reader only the lines it needs, each bounded (sseFilter):
// that reader keeps a whole line in memory, and every line that is not data
// for ever.
type watchedBody struct {
	rc      io.ReadCloser
	d       *callDoer
	sse     bool // filter for go-openai's SSE reader; otherwise pass every byte
	filter  sseFilter
	raw     []byte // read from rc
	out     []byte // filtered, for go-openai
	pending []byte // what of out go-openai has not read yet
	err     error  // from rc, returned once pending is empty
}

func (b *watchedBody) Read(p []byte) (int, error) {
	if !b.sse {
		n, err := b.rc.Read(p)
		b.saw(p[:n], err)
		return n, err
	}
	for len(b.pending) == 0 {
		if b.err != nil {
			return 0, b.err
		}
		if b.raw == nil {
			b.raw = make([]byte, 32<<10)
		}
		n, err := b.rc.Read(b.raw)
		b.saw(b.raw[:n], err)
		b.out = b.filter.write(b.out[:0], b.raw[:n])
		b.pending = b.out
		switch {
		case b.filter.oversized:
			// The rest of the line is not read: the reply ends here, cut
			// (Stream tells it from the doer). go-openai drops the partial
			// line it holds when it meets EOF.
			b.d.oversized = true
			b.err = io.EOF
		case err != nil:
			b.err = err
		}
	}
	n := copy(p, b.pending)
	b.pending = b.pending[n:]
	return n, nil
}

// saw notes bytes read from the server: progress for the idle timer, and
// lines for the watcher.
func (b *watchedBody) saw(p []byte, err error) {
	if len(p) > 0 {
		if b.d.timer != nil {
			b.d.timer.Reset(b.d.idle)
		}
		b.d.lines.write(p)
		if b.d.alive != nil {
			if now := time.Now(); now.Sub(b.d.aliveAt) >= aliveEvery {
				b.d.aliveAt = now
				b.d.alive()
			}
		}
	}
	if errors.Is(err, io.EOF) {
		b.d.lines.flush()
	}
}

func (b *watchedBody) Close() error {
	b.d.stop()
	return b.rc.Close()
}

// aliveEvery is how often at most Request.Alive is told.
const aliveEvery = time.Second

// Bounds of what go-openai's SSE reader is given.
const (
	// maxDataLine bounds one data line: room for a whole reply of
	// MaxReplyBytes in one chunk (proxies that fake streaming send that),
	// JSON escapes included. A longer line ends the reply there, cut.
	maxDataLine = 2*MaxReplyBytes + 64<<10
	// maxOtherBytes bounds the lines that are neither data nor comments
	// (event:, id:, error:, a page that is not SSE), all together: go-openai
	// keeps them to decode an error at the end. The watcher sees them all.
	maxOtherBytes = 64 << 10
)

// sseFilter passes the SSE lines go-openai's reader uses: data lines up to
// maxDataLine, other lines up to maxOtherBytes in all; comments (`: ping`)
// and blank lines, which it does not use, are dropped. Every line it passes
// ends with its newline, cut or not.
type sseFilter struct {
	head      []byte // the start of the current line, until it says what the line is
	kind      lineKind
	length    int  // bytes of the current line passed
	other     int  // bytes of other lines passed, in all
	oversized bool // a data line passed maxDataLine: the stream must end
}

type lineKind int

const (
	lineUnknown lineKind = iota // still in head
	lineData
	lineOther
	lineDropped
)

// maxHead bounds the bytes held to classify a line: "data:" after a few
// spaces or tabs.
const maxHead = 16

// write appends to dst what of p go-openai gets, and returns it.
func (f *sseFilter) write(dst, p []byte) []byte {
	for len(p) > 0 && !f.oversized {
		i := bytes.IndexByte(p, '\n')
		seg := p
		if i >= 0 {
			seg = p[:i]
		}
		if f.kind == lineUnknown {
			take := min(len(seg), maxHead-len(f.head))
			f.head = append(f.head, seg[:take]...)
			seg = seg[take:]
			f.classify(i >= 0 || len(f.head) == maxHead)
			if f.kind != lineUnknown {
				dst = f.pass(dst, f.head)
				f.head = f.head[:0]
			}
		}
		dst = f.pass(dst, seg)
		if i < 0 {
			break
		}
		if f.kind != lineDropped && f.kind != lineUnknown && !f.oversized {
			dst = append(dst, '\n')
		}
		f.kind, f.length, f.head = lineUnknown, 0, f.head[:0]
		p = p[i+1:]
	}
	return dst
}

// classify decides what the line in head is; final: head is all there is to
// go by (the line ended, or head is full).
func (f *sseFilter) classify(final bool) {
	l := bytes.TrimLeft(f.head, " \t\r")
	switch {
	case len(l) > 0 && l[0] == ':':
		f.kind = lineDropped // a comment
	case len(bytes.TrimSpace(l)) == 0 && final:
		f.kind = lineDropped // blank
	case bytes.HasPrefix(l, prefixData):
		f.kind = lineData
	case len(l) >= len(prefixData) || final || !bytes.HasPrefix(prefixData, l):
		f.kind = lineOther
	}
	if f.kind == lineOther && f.other >= maxOtherBytes {
		f.kind = lineDropped
	}
}

// pass appends seg of the current line to dst within the line's bound.
func (f *sseFilter) pass(dst, seg []byte) []byte {
	switch f.kind {
	case lineData:
		if f.length+len(seg) > maxDataLine {
			f.oversized = true
			return dst
		}
	case lineOther:
		seg = seg[:min(len(seg), max(maxOtherBytes-f.other, 0))]
		f.other += len(seg)
	default:
		return dst
	}
	f.length += len(seg)
	return append(dst, seg...)
}

// sseWatcher follows the SSE lines of a stream for what go-openai's reader
// drops: llama.cpp's non-standard `error: {...}` field, a data payload of an
// `event: error` event, `data: {"error":...}` (go-openai reports it, but
// loses it when comment lines came before it), and the `data: [DONE]` marker.
// It keeps only lines that can matter, so memory stays bounded whatever the
// stream size.
type sseWatcher struct {
	line     []byte // the current line, while it may still matter
	skip     bool   // the current line is known not to matter
	errEvent bool   // inside an `event: error` event
	errs     [][]byte
	done     bool
}

const maxWatchedLine = 64 << 10

func (w *sseWatcher) write(p []byte) {
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		seg := p
		if i >= 0 {
			seg = p[:i]
		}
		if !w.skip {
			if len(w.line)+len(seg) <= maxWatchedLine {
				w.line = append(w.line, seg...)
			}
			if !w.mayMatter(w.line) {
				w.skip, w.line = true, w.line[:0]
			}
		}
		if i < 0 {
			return
		}
		w.endLine()
		p = p[i+1:]
	}
}

// flush ends a last line that had no newline.
func (w *sseWatcher) flush() {
	if len(w.line) > 0 {
		w.endLine()
	}
}

func (w *sseWatcher) endLine() {
	line := bytes.TrimSpace(w.line)
	skipped := w.skip
	w.line, w.skip = w.line[:0], false
	if skipped {
		return
	}
	field, value, _ := bytes.Cut(line, []byte(":"))
	value = bytes.TrimSpace(value)
	switch string(field) {
	case "":
		if len(line) == 0 {
			w.errEvent = false // a blank line ends the event
		}
	case "error":
		w.keep(value)
	case "event":
		w.errEvent = string(value) == "error"
	case "data":
		switch {
		case string(value) == "[DONE]":
			w.done = true
		case w.errEvent || bytes.HasPrefix(value, []byte(`{"error"`)):
			w.keep(value)
		}
	}
}

func (w *sseWatcher) keep(payload []byte) {
	w.errs = append(w.errs, bytes.Clone(payload))
}

var (
	prefixError = []byte("error:")
	prefixEvent = []byte("event:")
	prefixData  = []byte("data:")
	dataError   = []byte(`{"error"`)
	dataDone    = []byte("[DONE]")
)

// mayMatter reports whether a line that starts with prefix can still turn
// out to be one the watcher keeps.
func (w *sseWatcher) mayMatter(prefix []byte) bool {
	l := bytes.TrimLeft(prefix, " \t")
	if len(l) == 0 {
		return true // blank so far; a blank line ends an event
	}
	if hasOrIsPrefix(l, prefixError) || hasOrIsPrefix(l, prefixEvent) {
		return true
	}
	if !hasOrIsPrefix(l, prefixData) {
		return false
	}
	if len(l) <= len(prefixData) || w.errEvent {
		return true
	}
	v := bytes.TrimLeft(l[len(prefixData):], " \t")
	return hasOrIsPrefix(v, dataError) || hasOrIsPrefix(v, dataDone)
}

// hasOrIsPrefix reports whether s starts with p, or is a start of p.
func hasOrIsPrefix(s, p []byte) bool {
	if len(s) < len(p) {
		return bytes.HasPrefix(p, s)
	}
	return bytes.HasPrefix(s, p)
}

// lastError is the last error payload the stream carried, or nil.
func (w *sseWatcher) lastError() []byte {
	if len(w.errs) == 0 {
		return nil
	}
	return w.errs[len(w.errs)-1]
}
