package mcp

import (
	"net/http"
)

// newHTTPTransport is a transport of one server's own, so that closing the
// server closes its connections (and the goroutines that serve them).
func newHTTPTransport() *http.Transport {
	return http.DefaultTransport.(*http.Transport).Clone()
}

// headerTransport adds the configured headers (e.g. Authorization) to every
// request to the server.
type headerTransport struct {
	headers map[string]string
	base    http.RoundTripper
}

func (t *headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if len(t.headers) == 0 {
		return t.base.RoundTrip(r)
	}
	r = r.Clone(r.Context())
	for k, v := range t.headers {
		r.Header.Set(k, v)
	}
	return t.base.RoundTrip(r)
}
