package web

import (
	"strings"
	"testing"
	"time"
)

// An answer is rendered as markdown: emphasis, code, lists, headings,
// links and pipe tables become HTML; raw HTML and script links the model
// wrote are text, escaped, never markup.
func TestAnswersRenderedAsMarkdown(t *testing.T) {
	t.Parallel()
	got := string(answerHTML("## Result\n\nAdded **Greet** in `greet.go`:\n\n- one\n- [docs](https://go.dev/doc)\n\n" +
		"| check | result |\n|---|---|\n| tests | **PASS** |\n\n" +
		"<script>window.__pwned=1</script>\n\nInline <b onclick=\"x()\">bold</b> and [bad](javascript:alert(1)).\n\n```go\nif a < b {}\n```"))
	for _, want := range []string{
		"<h2>Result</h2>", "<strong>Greet</strong>", "<code>greet.go</code>", "<li>one</li>", `<a href="https://go.dev/doc">docs</a>`,
		"<th>check</th>", "<td><strong>PASS</strong></td>",
		"&lt;script&gt;window.__pwned=1&lt;/script&gt;", "&lt;b onclick=&#34;x()&#34;&gt;bold&lt;/b&gt;",
		"<pre><code class=\"language-go\">if a &lt; b {}",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("lacks %q:\n%s", want, got)
		}
	}
	for _, bad := range []string{"<script", "<b onclick", "javascript:", "raw HTML omitted"} {
		if strings.Contains(got, bad) {
			t.Errorf("holds %q:\n%s", bad, got)
		}
	}
}

// The session page shows a DONE's summary rendered, and a script in it
// escaped.
func TestSessionPageRendersTheAnswer(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, fixtures(), fakeDiffs{})
	body := get(t, s, "/s/"+richID).Body.String()
	for _, want := range []string{`<div class="box answer"><div class="box-title">DONE</div><div class="markdown"><p>Fixed the parser: errors are <strong>returned</strong> now.</p>`,
		"<td><code>return err</code></td>"} {
		if !strings.Contains(body, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	body = get(t, s, "/s/"+hostileID).Body.String()
	if !strings.Contains(body, `<div class="markdown"><p>&lt;script&gt;window.__pwned=1&lt;/script&gt;`) || strings.Contains(body, "javascript:") {
		t.Errorf("the hostile answer is not escaped:\n%s", body[strings.Index(body, `class="box answer"`):])
	}
}

// After /undo, the session page says what the rewind undid, where it
// was; numbers the requests as the transcript holds them now; and lists
// no diff of the undone request. A command the user ran shows with the
// command.
func TestRewindsShownAsSuch(t *testing.T) {
	t.Parallel()
	got := text(entriesOf(rewoundSession()))
	when := time.Date(2026, 3, 14, 15, 20, 26, 0, time.UTC).Local().Format("2006-01-02 15:04")
	want := []string{
		"[request] Request 1: write a.txt",
		"[answer] DONE: <p>Wrote <code>a.txt</code>.</p>",
		"[shell] Command the user ran (!), for the model to know: ls -l",
		"[result ok] Result: Command succeeded (exit code 0).",
		"[line warn] ↶ rewound to checkpoint 2 (" + when + "): the request that followed was undone, with its changes to the files",
		"[request] Request 2: write c.txt",
		"[answer] DONE: <p>Wrote <code>c.txt</code>.</p>",
	}
	at := -1
	for _, w := range want {
		i := strings.Index(got, w)
		if i <= at {
			t.Fatalf("%q missing or out of order:\n%s", w, got)
		}
		at = i
	}

	m := memStore{rewoundID: rewoundSession()}
	body := get(t, newTestServer(t, m, fakeDiffs{}), "/s/"+rewoundID).Body.String()
	for _, want := range []string{"request 1 · step 1 · WRITE_FILE a.txt", "request 2 · step 1 · WRITE_FILE c.txt",
		"The changes of 1 step were undone by a rewind: they are not shown.", "<pre>$ ls -l</pre>", "↶ rewound to checkpoint 2"} {
		if !strings.Contains(body, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if strings.Contains(body, "b.txt") || strings.Contains(body, "request 3") {
		t.Errorf("the page lists the undone request's change, or numbers requests as before the rewind")
	}
}
