package web

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"net"
	"net/http"
	"net/url"
)

// The token arrives in the URL that dev prints (?token=…). The first
// request carrying it gets it back as a cookie and is redirected to the
// same address without it, so that the token leaves the address bar and
// the browser's history; every later request (links, assets, the list's
// live filter) carries the cookie. A request with neither gets 403.
const tokenParam = "token"

// cookieName is unique per token: cookies are shared by every port of a
// host, and two browsers served at once must not overwrite each other's.
func cookieName(token string) string {
	sum := sha256.Sum256([]byte("dev sessions serve " + token))
	return "dev_sessions_" + hex.EncodeToString(sum[:4])
}

// guard lets through the requests that carry the token, sent from this
// machine to a loopback name, and adds the headers of every answer.
func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		// Nothing but the page's own embedded files: no inline script,
		// no outside address, no framing.
		h.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Cache-Control", "no-store")
		// A page of another site whose name resolves to 127.0.0.1 (DNS
		// rebinding) has another Host.
		if !loopbackHost(r.Host) || !loopbackPeer(r.RemoteAddr) {
			forbid(w, "this server answers requests to 127.0.0.1 from this machine only")
			return
		}
		if given := r.URL.Query().Get(tokenParam); given != "" {
			if !s.validToken(given) {
				forbid(w, "the token is wrong: use the URL that dev sessions serve printed")
				return
			}
			http.SetCookie(w, &http.Cookie{Name: s.cookie, Value: s.token, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
			q := r.URL.Query()
			q.Del(tokenParam)
			to := url.URL{Path: r.URL.Path, RawQuery: q.Encode()}
			http.Redirect(w, r, to.String(), http.StatusSeeOther)
			return
		}
		if c, err := r.Cookie(s.cookie); err != nil || !s.validToken(c.Value) {
			forbid(w, "this page needs the token: open the URL that dev sessions serve printed")
			return
		}
		next.ServeHTTP(w, r)
	})
}

// validToken compares in constant time, so that the time of an answer
// tells nothing about the token.
func (s *Server) validToken(given string) bool {
	return subtle.ConstantTimeCompare([]byte(given), []byte(s.token)) == 1
}

func forbid(w http.ResponseWriter, why string) {
	http.Error(w, "403 forbidden: "+why, http.StatusForbidden)
}

func loopbackHost(hostport string) bool {
	host, _, err := net.SplitHostPort(hostport)
	if err != nil {
		host = hostport
	}
	return host == "127.0.0.1" || host == "localhost"
}

func loopbackPeer(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
