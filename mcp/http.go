package mcp

import (
	"fmt"
	"mime"
	"net/http"
	"sync"
)

// newHTTPTransport is a transport of one server's own, so that closing the
// server closes its connections (and the goroutines that serve them).
func newHTTPTransport() *http.Transport {
	return http.DefaultTransport.(*http.Transport).Clone()
}

// headerTransport adds the configured headers (e.g. Authorization) to every
// request to the server, and keeps what was wrong with its last answer.
type headerTransport struct {
	headers map[string]string
	base    http.RoundTripper
	last    *answerCheck
}

func (t *headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if len(t.headers) != 0 {
		r = r.Clone(r.Context())
		for k, v := range t.headers {
			r.Header.Set(k, v)
		}
	}
	resp, err := t.base.RoundTrip(r)
	if err == nil {
		t.last.record(resp)
	}
	return resp, err
}

// answerCheck is what was wrong with the server's last HTTP answer, nil
// when it looked like MCP. A failed start names it: the SDK reports a page
// that is not MCP on the request's write, and its reader, seeing the
// connection closed, may report a bare EOF first.
type answerCheck struct {
	mu  sync.Mutex
	err error
}

func (c *answerCheck) record(resp *http.Response) {
	var err error
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	switch {
	case resp.StatusCode >= 400:
		err = &statusError{code: resp.StatusCode}
	case resp.StatusCode == http.StatusOK && ct != "" && ct != "application/json" && ct != "text/event-stream":
		err = fmt.Errorf("answered with content type %q, which is not MCP (is the URL the server's MCP endpoint?)", ct)
	}
	c.mu.Lock()
	c.err = err
	c.mu.Unlock()
}

func (c *answerCheck) get() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// statusError is an HTTP error status the server answered with.
type statusError struct{ code int }

func (e *statusError) Error() string {
	msg := fmt.Sprintf("answered HTTP %d %s", e.code, http.StatusText(e.code))
	if e.code == http.StatusUnauthorized || e.code == http.StatusForbidden {
		msg += " (check the token in its headers)"
	}
	return msg
}
