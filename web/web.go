// Package web serves the session browser (SPEC §16): a read-only web page
// listing the sessions and showing one, with its transcript as the
// terminal showed it, its usage per request, a chart of tokens and time
// per request, and the diff of each step. It listens on 127.0.0.1 only,
// a random token guards every request, and every asset is embedded: it
// works offline and needs no build step.
package web

import (
	"context"
	"crypto/rand"
	"embed"
	"encoding/base64"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"time"

	"github.com/devagent/dev/sessions"
)

// Lister lists the sessions' summaries, newest first (a *sessions.Index).
type Lister interface {
	List() ([]sessions.Summary, error)
}

// Loader reads one session whole (a *sessions.Store).
type Loader interface {
	Load(id string) (*sessions.Session, error)
}

// Options configure a Server.
type Options struct {
	Sessions Lister
	Store    Loader
	// Diffs gives the diffs of a session's steps; nil: the page says that
	// none are available.
	Diffs Diffs
	// Token is the secret every request must carry; "" makes a random one.
	Token string
	// Now is the clock the list says "3h ago" by; nil is time.Now.
	Now func() time.Time
}

// Server is the session browser's HTTP handler and what it needs.
type Server struct {
	opts    Options
	token   string
	cookie  string // the cookie's name, unique per token
	pages   *template.Template
	handler http.Handler
}

//go:embed templates/*.html
var templateFiles embed.FS

//go:embed assets
var assetFiles embed.FS

// New returns a server; it fails only when no random token can be made.
func New(opts Options) (*Server, error) {
	s := &Server{opts: opts, token: opts.Token}
	if s.token == "" {
		var b [32]byte
		if _, err := rand.Read(b[:]); err != nil {
			return nil, fmt.Errorf("making the access token: %w", err)
		}
		s.token = base64.RawURLEncoding.EncodeToString(b[:])
	}
	s.cookie = cookieName(s.token)
	s.pages = template.Must(template.New("").Funcs(funcs).ParseFS(templateFiles, "templates/*.html"))
	assets, _ := fs.Sub(assetFiles, "assets") // a constant path of the embedded tree
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", s.list)
	mux.HandleFunc("GET /s/{id}", s.session)
	mux.Handle("GET /assets/", http.StripPrefix("/assets/", http.FileServerFS(assets)))
	s.handler = s.guard(mux)
	return s, nil
}

func (s *Server) now() time.Time {
	if s.opts.Now == nil {
		return time.Now()
	}
	return s.opts.Now()
}

// Token is the secret of the URL.
func (s *Server) Token() string { return s.token }

// Handler serves the pages to requests that carry the token.
func (s *Server) Handler() http.Handler { return s.handler }

// URL is the address to open: the listener's, with the token.
func (s *Server) URL(addr net.Addr) string {
	return (&url.URL{Scheme: "http", Host: addr.String(), Path: "/", RawQuery: url.Values{tokenParam: {s.token}}.Encode()}).String()
}

// ErrNotLoopback: the browser listens on 127.0.0.1 only.
var ErrNotLoopback = errors.New("the session browser listens on 127.0.0.1 only")

// Listen opens the browser's listener at addr, which must be 127.0.0.1
// with a port (0: a free one).
func Listen(addr string) (net.Listener, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("listening at %q: %w", addr, err)
	}
	if host != "127.0.0.1" {
		return nil, fmt.Errorf("%w, not %q", ErrNotLoopback, host)
	}
	ln, err := net.Listen("tcp4", addr)
	if err != nil {
		return nil, fmt.Errorf("listening at %s: %w", addr, err)
	}
	return ln, nil
}

// Serve answers on ln until ctx is done, then lets the requests being
// answered finish (for a few seconds at most) and returns nil.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	srv := &http.Server{Handler: s.handler, ReadHeaderTimeout: 10 * time.Second}
	failed := make(chan error, 1)
	go func() { failed <- srv.Serve(ln) }()
	select {
	case err := <-failed:
		return fmt.Errorf("serving the session browser: %w", err)
	case <-ctx.Done():
	}
	stop, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	if err := srv.Shutdown(stop); err != nil {
		srv.Close()
	}
	return nil
}
