package web

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"
)

func fixtures() memStore {
	m := memStore{}
	rich, bad := richSession(), hostileSession()
	m[rich.ID], m[bad.ID] = rich, bad
	for i := range 6 {
		s := plainSession(i)
		m[s.ID] = s
	}
	return m
}

func TestTokenGuardsEveryPath(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, fixtures(), nil)
	for _, path := range []string{"/", "/?fragment=1", "/s/" + richID, "/assets/style.css", "/assets/app.js", "/nothing"} {
		for name, mod := range map[string]func(*http.Request){
			"no token":     func(*http.Request) {},
			"wrong cookie": func(r *http.Request) { r.AddCookie(&http.Cookie{Name: s.cookie, Value: "test-tokeN"}) },
			"wrong query":  func(r *http.Request) { r.URL.RawQuery = "token=test-toke" },
			"other cookie": func(r *http.Request) { r.AddCookie(&http.Cookie{Name: "dev_sessions_x", Value: "test-token"}) },
		} {
			req := httptest.NewRequest(http.MethodGet, "http://127.0.0.1:8000"+path, nil)
			req.RemoteAddr = "127.0.0.1:50000"
			mod(req)
			w := httptest.NewRecorder()
			s.Handler().ServeHTTP(w, req)
			if w.Code != http.StatusForbidden {
				t.Errorf("%s %s: status %d, want 403", name, path, w.Code)
			}
			if strings.Contains(w.Body.String(), "Fix the failing") {
				t.Errorf("%s %s: the 403 shows session content", name, path)
			}
		}
	}
}

// The URL's token is exchanged for a cookie, and the address bar loses it.
func TestTokenBecomesCookie(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, fixtures(), nil)
	req := httptest.NewRequest(http.MethodGet, "http://127.0.0.1:8000/s/"+richID+"?token=test-token&x=1", nil)
	req.RemoteAddr = "127.0.0.1:50000"
	w := httptest.NewRecorder()
	s.Handler().ServeHTTP(w, req)
	if w.Code != http.StatusSeeOther || w.Header().Get("Location") != "/s/"+richID+"?x=1" {
		t.Fatalf("status %d, Location %q; want 303 to the same page without the token", w.Code, w.Header().Get("Location"))
	}
	cookies := w.Result().Cookies()
	if len(cookies) != 1 || cookies[0].Name != s.cookie || cookies[0].Value != "test-token" || !cookies[0].HttpOnly || cookies[0].SameSite != http.SameSiteStrictMode {
		t.Fatalf("cookies = %+v", cookies)
	}
	if got := get(t, s, "/s/"+richID); got.Code != http.StatusOK {
		t.Errorf("with the cookie: status %d, want 200", got.Code)
	}
}

func TestOnlyLoopback(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, fixtures(), nil)
	for _, tt := range []struct{ host, remote string }{
		{"evil.example:8000", "127.0.0.1:5000"}, // DNS rebinding
		{"127.0.0.1:8000", "192.0.2.7:5000"},
		{"0.0.0.0:8000", "127.0.0.1:5000"},
	} {
		req := httptest.NewRequest(http.MethodGet, "http://"+tt.host+"/", nil)
		req.RemoteAddr = tt.remote
		req.AddCookie(&http.Cookie{Name: s.cookie, Value: s.Token()})
		w := httptest.NewRecorder()
		s.Handler().ServeHTTP(w, req)
		if w.Code != http.StatusForbidden {
			t.Errorf("Host %s from %s: status %d, want 403", tt.host, tt.remote, w.Code)
		}
	}
	for _, addr := range []string{"0.0.0.0:0", ":0", "localhost:0", "[::1]:0", "192.168.1.2:0", "nonsense"} {
		if ln, err := Listen(addr); err == nil {
			ln.Close()
			t.Errorf("Listen(%q) succeeded", addr)
		}
	}
	ln, err := Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if !ln.Addr().(*net.TCPAddr).IP.IsLoopback() {
		t.Errorf("listening on %v", ln.Addr())
	}
}

func TestRandomToken(t *testing.T) {
	t.Parallel()
	a, err := New(Options{Sessions: memStore{}, Store: memStore{}})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := New(Options{Sessions: memStore{}, Store: memStore{}})
	if len(a.Token()) < 40 || a.Token() == b.Token() || a.cookie == b.cookie {
		t.Errorf("tokens %q and %q, cookies %q and %q: want two long random tokens with their own cookies", a.Token(), b.Token(), a.cookie, b.cookie)
	}
	u, err := url.Parse(a.URL(&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 4242}))
	if err != nil || u.Host != "127.0.0.1:4242" || u.Query().Get("token") != a.Token() {
		t.Errorf("URL = %v (%v)", u, err)
	}
}

// Everything a session holds reaches the page as text, never as markup.
func TestHostileContentIsEscaped(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, fixtures(), fakeDiffs{})
	for _, path := range []string{"/", "/?q=hostile", "/?fragment=1", "/s/" + hostileID} {
		w := get(t, s, path)
		if w.Code != http.StatusOK {
			t.Fatalf("%s: status %d", path, w.Code)
		}
		body := w.Body.String()
		for _, raw := range []string{"<script>window", "<img src=x", `"'></pre>`} {
			if strings.Contains(body, raw) {
				t.Errorf("%s: the page holds %q unescaped", path, raw)
			}
		}
		if !strings.Contains(body, "&lt;script&gt;window.__pwned=1&lt;/script&gt;") {
			t.Errorf("%s: the hostile text is not shown escaped", path)
		}
	}
	// The session page shows it in each place: prompt, history, results,
	// audit, requests, diffs.
	body := get(t, s, "/s/"+hostileID).Body.String()
	if n := strings.Count(body, "&lt;script&gt;window.__pwned=1&lt;/script&gt;"); n < 10 {
		t.Errorf("the hostile text shows %d times on the session page, want it everywhere (10 or more)", n)
	}
}

func TestSecurityHeaders(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, fixtures(), nil)
	w := get(t, s, "/")
	csp := w.Header().Get("Content-Security-Policy")
	if !strings.Contains(csp, "default-src 'none'") || !strings.Contains(csp, "script-src 'self'") || strings.Contains(csp, "unsafe") {
		t.Errorf("Content-Security-Policy = %q", csp)
	}
	if w.Header().Get("X-Content-Type-Options") != "nosniff" {
		t.Error("no nosniff")
	}
}

func TestAssetsEmbedded(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, fixtures(), nil)
	for path, typ := range map[string]string{"/assets/style.css": "text/css", "/assets/app.js": "text/javascript", "/assets/icon.svg": "image/svg+xml"} {
		w := get(t, s, path)
		if w.Code != http.StatusOK || !strings.HasPrefix(w.Header().Get("Content-Type"), typ) || w.Body.Len() == 0 {
			t.Errorf("%s: status %d, type %q, %d bytes", path, w.Code, w.Header().Get("Content-Type"), w.Body.Len())
		}
	}
	// Nothing the page loads comes from elsewhere.
	for _, path := range []string{"/", "/s/" + richID} {
		body := get(t, s, path).Body.String()
		for _, m := range regexp.MustCompile(`(?:src|href)="([^"#]*)"`).FindAllStringSubmatch(body, -1) {
			if !strings.HasPrefix(m[1], "/") {
				t.Errorf("%s loads %q", path, m[1])
			}
		}
	}
}

var rowID = regexp.MustCompile(`href="/s/([0-9a-f-]{36})"`)

func listed(t *testing.T, s *Server, query string) []string {
	t.Helper()
	w := get(t, s, "/?"+query)
	if w.Code != http.StatusOK {
		t.Fatalf("?%s: status %d", query, w.Code)
	}
	var ids []string
	for _, m := range rowID.FindAllStringSubmatch(w.Body.String(), -1) {
		ids = append(ids, m[1])
	}
	return ids
}

func TestListFilters(t *testing.T) {
	t.Parallel()
	m := fixtures()
	s := newTestServer(t, m, nil)
	all := listed(t, s, "")
	if len(all) != len(m) {
		t.Fatalf("the list shows %d sessions, want %d", len(all), len(m))
	}
	for i := 1; i < len(all); i++ {
		if m[all[i-1]].UpdatedAt.Before(m[all[i]].UpdatedAt) {
			t.Errorf("not newest first: %s before %s", all[i-1], all[i])
		}
	}
	tests := []struct {
		query string
		want  func(id string) bool
	}{
		{"status=failed", func(id string) bool { return m[id].Status == "failed" }},
		{"dir=%2Fhome%2Fann%2Fparser", func(id string) bool { return m[id].WorkingDirectory == "/home/ann/parser" }},
		{"q=FIX+build", func(id string) bool { return strings.Contains(m[id].OriginalPrompt, "Fix the build") }},
		{"q=devstral", func(id string) bool { return m[id].Model == "devstral-small" }},
		{"q=" + richID[:8], func(id string) bool { return id == richID }},
		{"q=build&status=failed", func(id string) bool {
			return strings.Contains(m[id].OriginalPrompt, "build") && m[id].Status == "failed"
		}},
		{"q=no+such+words", func(string) bool { return false }},
	}
	for _, tt := range tests {
		got := listed(t, s, tt.query)
		var want []string
		for _, id := range all {
			if tt.want(id) {
				want = append(want, id)
			}
		}
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("?%s lists %v, want %v", tt.query, got, want)
		}
	}
	// The live filter's fragment is the list alone.
	w := get(t, s, "/?fragment=1&status=interrupted")
	if strings.Contains(w.Body.String(), "<html") || !strings.Contains(w.Body.String(), `data-shown="2"`) {
		t.Errorf("fragment = %s", w.Body.String())
	}
}

// Sessions are told apart (SPEC §17): each row shows the first request
// and the last as typed (no attached file), the number of requests and
// when the session was last used; the filter finds words of the last
// request too.
func TestListTellsSessionsApart(t *testing.T) {
	t.Parallel()
	m := fixtures()
	phone := phoneSession()
	m[phone.ID] = phone
	s, err := New(Options{Sessions: m, Store: m, Token: "test-token", Now: func() time.Time { return t0.Add(10 * time.Hour) }})
	if err != nil {
		t.Fatal(err)
	}
	body := get(t, s, "/").Body.String()
	row := body[strings.Index(body, "/s/"+phoneID):]
	row = row[:strings.Index(row, "</li>")]
	for _, want := range []string{`<span class="prompt">Fix the division in @src/calc.py</span>`,
		`<span class="last"><span class="label">last:</span> And the guide: @docs/guide.md</span>`,
		`used 1h ago</span>`, `<span class="requests">2 requests</span>`} {
		if !strings.Contains(row, want) {
			t.Errorf("the row lacks %q:\n%s", want, row)
		}
	}
	if strings.Contains(row, "def add") || strings.Contains(row, "&lt;file") {
		t.Errorf("the row shows the attached file:\n%s", row)
	}
	if n := strings.Count(body, `<span class="last">`); n != 2 { // the phone's and the rich session's
		t.Errorf("%d rows show a last request, want the 2 sessions of more than one", n)
	}
	if got := listed(t, s, "q=guide"); len(got) != 1 || got[0] != phoneID {
		t.Errorf("?q=guide lists %v, want the session whose last request says it", got)
	}
}

// The session page shows the first request as typed, each file it
// attached a line that opens on its content, as the terminal shows it.
func TestSessionPageAttachments(t *testing.T) {
	t.Parallel()
	m := memStore{phoneID: phoneSession()}
	body := get(t, newTestServer(t, m, nil), "/s/"+phoneID).Body.String()
	for _, want := range []string{`<h1 class="title">Fix the division in @src/calc.py</h1>`,
		`<pre class="request">Fix the division in @src/calc.py</pre>
<details class="line dim"><summary>attached src/calc.py (16 lines)</summary><pre>def add(a, b):`,
		`<div class="box-title">Request 2</div><pre>And the guide: @docs/guide.md</pre></div>
<details class="line dim"><summary>attached docs/guide.md (3 lines)</summary><pre># Guide`} {
		if !strings.Contains(body, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if n := strings.Count(body, "&lt;file path="); n != 0 {
		t.Errorf("the page shows %d attachments as stored", n)
	}
}

func TestSessionPage(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, fixtures(), fakeDiffs{})
	w := get(t, s, "/s/"+richID)
	if w.Code != http.StatusOK {
		t.Fatalf("status %d: %s", w.Code, w.Body.String())
	}
	body := w.Body.String()
	for _, want := range []string{
		"Fix the failing parser test",    // the request
		"Tool: FIND_AND_REPLACE_IN_FILE", // a tool
		"Result: failed",                 // a failed result
		"audit failed (3 steps): The tests were not run after the edit.",
		"audit passed (2 steps)",
		"compressed the conversation: 30,000 → 1,200 tokens",
		"You have run COMMAND with the same input 3 times",                              // a warning
		`<div class="box-title">Request</div><pre>Now add a test for empty input</pre>`, // a later request
		"interrupted after 1 step",
		`class="bar compress"`, `class="bar audit"`, // the chart
		`<span class="add">&#43;	return err</span>`, // a diff, coloured (+ escaped)
		`<span class="del">-	return nil</span>`,
		"Binary files a/logo.png and b/logo.png differ",
		"format error", // the usage table
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the session page lacks %q", want)
		}
	}
	if n := strings.Count(body, `<g class="bar `); n != 18 {
		t.Errorf("the chart has %d bars, want one per request (9) in each of its two panels", n)
	}
}

func TestSessionPageErrors(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, fixtures(), fakeDiffs{err: errors.New("checkpoints unreadable")})
	if w := get(t, s, "/s/11111111-1111-4111-8111-111111111111"); w.Code != http.StatusNotFound {
		t.Errorf("unknown session: status %d, want 404", w.Code)
	}
	if w := get(t, s, "/s/..%2F..%2Fetc%2Fpasswd"); w.Code != http.StatusNotFound {
		t.Errorf("bad id: status %d, want 404", w.Code)
	}
	w := get(t, s, "/s/"+richID)
	if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), "The diffs could not be read: checkpoints unreadable") {
		t.Errorf("a Diffs error: status %d, page without the reason", w.Code)
	}
	s = newTestServer(t, fixtures(), nil)
	if w := get(t, s, "/s/"+richID); !strings.Contains(w.Body.String(), "does not give the diffs") {
		t.Error("without Diffs the page does not say so")
	}
}

// Serve answers until its context ends, then returns nil.
func TestServe(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, fixtures(), nil)
	ln, err := Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- s.Serve(ctx, ln) }()
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Get(s.URL(ln.Addr()))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Errorf("GET the printed URL: %d, want 303", resp.StatusCode)
	}
	cancel()
	if err := <-served; err != nil {
		t.Errorf("Serve = %v, want nil after the context ends", err)
	}
}

// The list shows the newest matches, and a link to all of them that keeps
// the filter.
func TestListShowsTheNewest(t *testing.T) {
	t.Parallel()
	m := memStore{}
	for i := range listRows + 50 {
		s := plainSession(i)
		m[s.ID] = s
	}
	s := newTestServer(t, m, nil)
	if got := listed(t, s, ""); len(got) != listRows || got[0] != plainSession(listRows+49).ID {
		t.Errorf("the list shows %d sessions starting with %v, want the newest %d", len(got), got[:1], listRows)
	}
	body := get(t, s, "/?q=the").Body.String() // in every request
	if !strings.Contains(body, `<a href="/?all=1&amp;q=the">Show all 250</a>`) {
		t.Errorf("no link to all the sessions: %s", body[strings.Index(body, `<p class="count"`):][:200])
	}
	if got := listed(t, s, "all=1&q=the"); len(got) != listRows+50 {
		t.Errorf("?all=1 shows %d sessions, want %d", len(got), listRows+50)
	}
	if got := listed(t, s, "status=failed"); len(got) != 50 || strings.Contains(get(t, s, "/?status=failed").Body.String(), "Show all") {
		t.Errorf("a filter matching 50 shows %d and a link to more", len(got))
	}
}
