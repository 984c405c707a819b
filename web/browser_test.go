package web

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/devagent/dev/sessions"
)

// The browser test drives Debian's chromium (apt-get install chromium)
// through the DevTools protocol. Without a browser it is skipped, unless
// DEV_BROWSER=required (CI sets it), which makes that a failure. With
// -update it writes the screenshots of docs/sessions.md to docs/.
var update = flag.Bool("update", false, "rewrite the golden files in testdata/ and the screenshots in docs/")

func findBrowser(t *testing.T) string {
	for _, name := range []string{os.Getenv("DEV_CHROMIUM"), "chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if name == "" {
			continue
		}
		if path, err := exec.LookPath(name); err == nil {
			return path
		}
	}
	const how = "no chromium found (apt-get install chromium, or DEV_CHROMIUM=/path/to/chrome)"
	if os.Getenv("DEV_BROWSER") == "required" {
		t.Fatal(how + "; DEV_BROWSER=required makes the browser test mandatory")
	}
	t.Skip(how + ": the browser test is skipped; DEV_BROWSER=required makes this a failure")
	return ""
}

// browserStore saves the sessions the browser shows into a real store:
// the rich session and some plain ones.
func browserStore(t *testing.T) *sessions.Store {
	store := sessions.NewStore(t.TempDir(), nil)
	all := []*sessions.Session{richSession()}
	for i := range 7 {
		all = append(all, plainSession(i))
	}
	for _, s := range all {
		saveAsIs(t, store, s)
	}
	return store
}

// saveAsIs saves a session keeping its UpdatedAt (Save sets it to now).
func saveAsIs(t *testing.T, store *sessions.Store, s *sessions.Session) {
	t.Helper()
	clock := sessions.NewStore(filepath.Dir(store.Dir(s.ID)), func() time.Time { return s.UpdatedAt })
	if err := clock.Save(s); err != nil {
		t.Fatal(err)
	}
}

func TestBrowser(t *testing.T) {
	browser := findBrowser(t)
	store := browserStore(t)
	// The clock the list's "used 3h ago" counts from: an hour after the
	// newest session.
	now := func() time.Time { return t0.Add(10 * time.Hour) }
	srv, err := New(Options{Sessions: store.Index(), Store: store, Diffs: fakeDiffs{}, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	serveCtx, stopServing := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- srv.Serve(serveCtx, ln) }()
	defer func() {
		stopServing()
		if err := <-served; err != nil {
			t.Error(err)
		}
	}()
	base := "http://" + ln.Addr().String()

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	// The flags this machine's Chromium needs: no sandbox as root, no GPU,
	// and no background connections (the network is closed).
	ctx, cancelAlloc := chromedp.NewExecAllocator(ctx, append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(browser), chromedp.NoSandbox, chromedp.DisableGPU, chromedp.UserDataDir(t.TempDir()),
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-component-update", true),
		chromedp.WindowSize(1280, 900))...)
	defer cancelAlloc()
	ctx, cancelTab := chromedp.NewContext(ctx)
	defer cancelTab()

	var mu sync.Mutex
	var problems []string
	if err := chromedp.Listen(ctx, func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch ev := ev.(type) {
		case *runtime.EventExceptionThrown:
			problems = append(problems, "script exception: "+ev.ExceptionDetails.Text)
		case *log.EventEntryAdded:
			// A violation of the page's own Content-Security-Policy would
			// mean an asset or a script it needs is blocked.
			if strings.Contains(ev.Entry.Text, "Content Security Policy") || ev.Entry.Level == log.EntryLevelError && ev.Entry.Source == log.EntrySourceJavascript {
				problems = append(problems, string(ev.Entry.Source)+": "+ev.Entry.Text)
			}
		}
	}); err != nil {
		t.Fatal(err)
	}
	do := func(what string, steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, steps...); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	eval := func(expr string) any {
		t.Helper()
		v, err := chromedp.Run(ctx, chromedp.Evaluate[any](expr))
		if err != nil {
			t.Fatalf("evaluating %s: %v", expr, err)
		}
		return v
	}
	text := func() string { return fmt.Sprint(eval(`document.body.innerText`)) }
	shot := func(name string, full bool) {
		if !*update {
			return
		}
		action := chromedp.CaptureScreenshot()
		if full {
			action = chromedp.FullScreenshot(100)
		}
		png, err := chromedp.Run(ctx, action)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join("..", "docs", name), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}

	// Without the token: 403 and nothing of the sessions.
	do("opening the page without the token", chromedp.Navigate(base+"/"))
	if body := text(); !strings.Contains(body, "403 forbidden") || strings.Contains(body, "parser") {
		t.Fatalf("without the token the page says %q", body)
	}
	do("opening a session without the token", chromedp.Navigate(base+"/s/"+richID))
	if body := text(); !strings.Contains(body, "403 forbidden") {
		t.Fatalf("a session without the token says %q", body)
	}

	// The printed URL: the list, newest first, and the token gone from
	// the address bar.
	do("opening the printed URL", chromedp.Navigate(srv.URL(ln.Addr())), chromedp.WaitVisible(chromedp.CSS(".sessions li")))
	if loc := fmt.Sprint(eval(`location.href`)); strings.Contains(loc, "token") {
		t.Errorf("the address bar keeps the token: %s", loc)
	}
	if n := eval(`document.querySelectorAll('.sessions li').length`); n != 8.0 {
		t.Errorf("the list shows %v sessions, want 8", n)
	}
	if first := fmt.Sprint(eval(`document.querySelector('.sessions a').getAttribute('href')`)); first != "/s/"+plainSession(6).ID {
		t.Errorf("the first row is %s, want the newest session", first)
	}
	shot("session-browser-list.png", true)

	// The live filter: status, then text; the server answers each change.
	shown := func(want int) {
		t.Helper()
		do(fmt.Sprintf("waiting for %d sessions", want), chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			_, err := chromedp.Poll[bool](fmt.Sprintf(`document.querySelectorAll('.sessions li').length === %d && document.querySelector('#list').getAttribute('aria-busy') === null`, want))(ctx, tg)
			return err
		}))
	}
	do("choosing a status", chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := chromedp.Evaluate[chromedp.Void](`(() => { const s = document.querySelector('select[name=status]'); s.value = 'failed'; s.dispatchEvent(new Event('change', {bubbles: true})); })()`)(ctx, tg)
		return err
	}))
	shown(1) // plain sessions 2 of 7 is the one failed
	if got := fmt.Sprint(eval(`document.querySelector('.sessions .status').textContent`)); got != "failed" {
		t.Errorf("filtered by status, the row says %q", got)
	}
	do("clearing the status", chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := chromedp.Evaluate[chromedp.Void](`(() => { const s = document.querySelector('select[name=status]'); s.value = ''; s.dispatchEvent(new Event('change', {bubbles: true})); })()`)(ctx, tg)
		return err
	}))
	shown(8)
	do("typing a search", chromedp.SendKeys(chromedp.CSS("input[name=q]"), "parser test"))
	shown(1)
	if loc := fmt.Sprint(eval(`location.search`)); !strings.Contains(loc, "q=parser+test") {
		t.Errorf("the address does not keep the filter: %s", loc)
	}

	// Open the session: its transcript, chart and diffs.
	do("opening the session", chromedp.Click(chromedp.CSS(".sessions a")), chromedp.WaitVisible(chromedp.CSS("#transcript .box.tool")))
	body := text()
	for _, want := range []string{"Fix the failing parser test", "Tool: FIND_AND_REPLACE_IN_FILE", "audit failed", "audit passed", "compressed the conversation", "Task List"} {
		if !strings.Contains(body, want) {
			t.Errorf("the session page does not show %q", want)
		}
	}
	// The answer is rendered: bold text and a table, in the page's style.
	answer := eval(`(() => { const a = document.querySelector('#transcript .box.answer');
		return [a.querySelector('strong').textContent, a.querySelector('table td code').textContent, getComputedStyle(a.querySelector('strong')).fontWeight].join('|'); })()`)
	if got := fmt.Sprint(answer); got != "returned|return err|700" {
		t.Errorf("the answer is not rendered as markdown: %q", got)
	}
	// The chart is drawn: each request's bar has marks with an area on
	// screen, filled by the page's style sheet (not the default black).
	bars := eval(`Array.from(document.querySelectorAll('.chart svg g.bar')).filter(g => Array.from(g.querySelectorAll('rect')).some(r => {
		const b = r.getBoundingClientRect(); const fill = getComputedStyle(r).fill;
		return b.width > 0 && b.height > 0 && fill !== 'none' && fill !== 'rgb(0, 0, 0)';
	})).length`)
	if bars != 18.0 {
		t.Errorf("the chart has %v drawn bars, want 18 (each request's, in both panels)", bars)
	}
	// The diff: added and removed lines, coloured.
	do("finding the diff", chromedp.WaitVisible(chromedp.CSS("#changes pre.diff span.add")))
	diff := eval(`(() => { const a = document.querySelector('#changes pre.diff span.add'), d = document.querySelector('#changes pre.diff span.del');
		return [a.textContent, d.textContent, getComputedStyle(a).backgroundColor, getComputedStyle(d).backgroundColor].join('|'); })()`)
	parts := strings.Split(fmt.Sprint(diff), "|")
	if len(parts) != 4 || !strings.HasPrefix(parts[0], "+") || !strings.HasPrefix(parts[1], "-") || parts[2] == parts[3] || strings.Contains(parts[2], "0, 0, 0, 0") {
		t.Errorf("the diff lines are %q: want + and - lines with their own backgrounds", parts)
	}
	shot("session-browser-session.png", false)
	if *update { // the chart and the first diff, for docs/sessions.md
		eval(`document.getElementById('usage').scrollIntoView()`)
		shot("session-browser-usage.png", false)
	}

	// A phone's screen, 390 px (SPEC §17): nothing leaves it. Wide
	// tables, long paths and code scroll or wrap inside their boxes, the
	// chart's labels stay 11 px or more, and an @ attachment shows as
	// "attached PATH (N lines)", its content closed.
	saveAsIs(t, store, phoneSession())
	do("narrowing the window", chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile, chromedp.EmulateScale(2)))
	for _, path := range []string{"/", "/s/" + richID, "/s/" + phoneID} {
		do("opening "+path+" on a phone", chromedp.Navigate(base+path), chromedp.WaitVisible(chromedp.CSS("main")))
		if w := eval(`document.documentElement.scrollWidth`); w != 390.0 {
			t.Errorf("%s on a phone is %v pixels wide, want 390", path, w)
		}
		// Every element inside the screen, but those inside a box that
		// scrolls or clips them.
		if out := fmt.Sprint(eval(`(() => {
			const clipped = e => { for (let p = e.parentElement; p; p = p.parentElement) {
				if (['auto', 'scroll', 'hidden', 'clip'].includes(getComputedStyle(p).overflowX)) return true; } return false; };
			return Array.from(document.querySelectorAll('body *')).filter(e => {
				const r = e.getBoundingClientRect();
				return r.width > 0 && (r.left < -0.5 || r.right > innerWidth + 0.5) && !clipped(e);
			}).map(e => e.tagName.toLowerCase() + '.' + e.className + ' ' + Math.round(e.getBoundingClientRect().right)).slice(0, 8).join(', ');
		})()`)); out != "" {
			t.Errorf("%s on a phone: off the screen: %s", path, out)
		}
		if path == "/" {
			shot("session-browser-phone.png", false)
		}
	}
	// On the phone session's page (the last opened): the answer's wide
	// table scrolls in its box, the chart's labels are readable.
	if got := fmt.Sprint(eval(`(() => { const t = document.querySelector('#transcript .box.answer table'), box = t.parentElement;
		return [t.getBoundingClientRect().width > innerWidth, getComputedStyle(box).overflowX, box.getBoundingClientRect().right <= innerWidth].join(' '); })()`)); got != "true auto true" {
		t.Errorf("the answer's table: wider than the screen, its box scrolls, the box on the screen: %s; want true auto true", got)
	}
	labels := eval(`Array.from(document.querySelectorAll('.chart text')).map(t => parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a)`)
	if ls, ok := labels.([]any); !ok || len(ls) < 8 {
		t.Errorf("the chart's labels: %v", labels)
	} else {
		for _, l := range ls {
			if px, _ := l.(float64); px < 11 {
				t.Errorf("a chart label is %.1f px on a phone, want 11 or more", px)
				break
			}
		}
	}
	attachedLines := eval(`Array.from(document.querySelectorAll('#transcript details.line')).filter(d => d.querySelector('summary').textContent.startsWith('attached ')).map(d => d.querySelector('summary').textContent + (d.open ? ' open' : ''))`)
	if got := fmt.Sprint(attachedLines); got != "[attached src/calc.py (16 lines) attached docs/guide.md (3 lines)]" {
		t.Errorf("the attachments show as %s, want each as the terminal shows it, closed", got)
	}
	if body := text(); strings.Contains(body, "def mean(xs)") || strings.Contains(body, "Divide with div.") {
		t.Errorf("the page shows an attached file's content unasked:\n%s", body)
	}
	if *update { // the answer's table, and the second request's attachment
		eval(`document.querySelector('#transcript .box.answer').scrollIntoView()`)
		shot("session-browser-phone-session.png", false)
	}
	do("opening an attachment", chromedp.Click(chromedp.CSS(`#transcript details.line summary`)))
	if body := text(); !strings.Contains(body, "def mean(xs)") {
		t.Error("an attachment opened does not show the file")
	}
	do("widening the window", chromedp.ResetViewport())

	// Hostile content shows as text and runs nothing.
	saveAsIs(t, store, hostileSession())
	do("opening the hostile session", chromedp.Navigate(base+"/s/"+hostileID), chromedp.WaitVisible(chromedp.CSS("#transcript")))
	if pwned := eval(`window.__pwned === undefined`); pwned != true {
		t.Error("the hostile session ran a script")
	}
	if !strings.Contains(text(), hostile[:40]) {
		t.Error("the hostile text is not shown as text")
	}
	if got := fmt.Sprint(eval(`document.querySelectorAll('#transcript .box.answer script, #transcript .box.answer [onclick], #transcript a[href^="javascript"]').length`)); got != "0" {
		t.Errorf("the hostile answer holds %s scripts, handlers or script links", got)
	}
	do("listing with the hostile session", chromedp.Navigate(base+"/"), chromedp.WaitVisible(chromedp.CSS(".sessions li")))
	if pwned := eval(`window.__pwned === undefined`); pwned != true {
		t.Error("the hostile session ran a script in the list")
	}

	// After /undo: the rewind said where it was, the requests numbered as
	// the history holds them, no diff of what was undone, the user's
	// command shown.
	saveAsIs(t, store, rewoundSession())
	do("opening the rewound session", chromedp.Navigate(base+"/s/"+rewoundID), chromedp.WaitVisible(chromedp.CSS("#changes")))
	body = text()
	for _, want := range []string{"↶ rewound to checkpoint 2", "Request 2", "$ ls -l", "request 2 · step 1 · WRITE_FILE c.txt", "were undone by a rewind"} {
		if !strings.Contains(body, want) {
			t.Errorf("the rewound session does not show %q", want)
		}
	}
	if strings.Contains(body, "b.txt") {
		t.Error("the rewound session shows the undone change")
	}

	// Each audit under the request whose DONE it checked; the undone
	// request's nowhere.
	saveAsIs(t, store, auditedSession())
	do("opening the audited session", chromedp.Navigate(base+"/s/"+auditedID), chromedp.WaitVisible(chromedp.CSS("#transcript")))
	audits := eval(`(() => { const out = []; let request = '';
		for (const e of document.querySelectorAll('#transcript .request-box .box-title, #transcript .line')) {
			if (e.classList.contains('box-title')) { request = e.textContent; out.push(request + ':'); continue; }
			if (e.textContent.includes('audit')) out[out.length - 1] += ' ' + e.querySelector('summary').textContent;
		}
		return out.join('|'); })()`)
	if got, want := fmt.Sprint(audits), "Request 1: ✓ audit passed (1 step)|Request 2:|Request 3:|Request 4: ✓ audit passed (2 steps)"; got != want {
		t.Errorf("the audited session shows its audits as %q, want %q", got, want)
	}

	mu.Lock()
	defer mu.Unlock()
	for _, p := range problems {
		t.Errorf("the browser reported %s", p)
	}
}
