package web

import (
	"bytes"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/devagent/dev/mention"
	"github.com/devagent/dev/sessions"
	"github.com/devagent/dev/textfmt"
	"github.com/devagent/dev/ui"
	"github.com/devagent/dev/usage"
)

var funcs = template.FuncMap{
	"thousands": func(n int) string { return textfmt.Thousands(int64(n)) },
	"dollars":   ui.Dollars,
	"seconds":   func(ms int64) string { return shortSeconds(float64(ms)) },
	"duration":  func(d time.Duration) string { return shortSeconds(float64(d.Milliseconds())) },
	"percent":   func(f float64) string { return fmt.Sprintf("%.0f%%", f*100) },
	"f":         func(v float64) string { return fmt.Sprintf("%.1f", v) },
	"pct":       func(v float64) string { return fmt.Sprintf("%.3f%%", v) },
	"plural":    textfmt.Plural,
	"when":      func(t time.Time) string { return t.Local().Format("2006-01-02 15:04") },
	"clock":     func(t time.Time) string { return t.Local().Format("15:04:05") },
	"deref":     func(p *int) int { return *p },
	"minus":     func(a, b float64) float64 { return a - b },
}

// filter is what the list shows: sessions of a directory, of a status,
// whose prompt, id, model, profile or directory hold every word of Text
// (in any case). Empty fields filter nothing.
type filter struct {
	Text, Dir, Status string
}

func filterOf(q url.Values) filter {
	return filter{Text: strings.TrimSpace(q.Get("q")), Dir: q.Get("dir"), Status: q.Get("status")}
}

func (f filter) apply(all []sessions.Summary) []sessions.Summary {
	words := strings.Fields(strings.ToLower(f.Text))
	var out []sessions.Summary
	for _, s := range all {
		if f.Dir != "" && s.WorkingDirectory != f.Dir || f.Status != "" && string(s.Status) != f.Status {
			continue
		}
		if len(words) > 0 {
			hay := strings.ToLower(strings.Join([]string{s.OriginalPrompt, s.LastPrompt, s.ID, s.Model, s.Profile, s.WorkingDirectory}, "\n"))
			if !allIn(words, hay) {
				continue
			}
		}
		out = append(out, s)
	}
	return out
}

func allIn(words []string, s string) bool {
	for _, w := range words {
		if !strings.Contains(s, w) {
			return false
		}
	}
	return true
}

// listRows is how many sessions the list shows unless asked for all:
// the newest matter most, a filter finds the others, and the page stays
// quick to load (BenchmarkList).
const listRows = 200

type listPage struct {
	Filter   filter
	Rows     []listRow
	Matched  int // sessions the filter matched; Rows may hold fewer
	All      string
	Total    int
	Dirs     []dirOption
	Statuses []string
}

// listRow is a session as the list shows it (SPEC §17, sessions told
// apart): its first request and its last as typed (Last is "" when it
// made one), its number of requests, and when it was last used.
type listRow struct {
	sessions.Summary
	First, Last string
	Used        string // "3h ago"
}

func rowsOf(list []sessions.Summary, now time.Time) []listRow {
	rows := make([]listRow, len(list))
	for i, s := range list {
		rows[i] = listRow{Summary: s, First: typed(s.OriginalPrompt), Used: ui.AgoShort(now.Sub(s.UpdatedAt))}
		if s.Prompts > 1 {
			rows[i].Last = typed(s.LastPrompt)
		}
	}
	return rows
}

// typed is a stored request as the user typed it: without the files its
// @ mentions attached.
func typed(request string) string {
	text, _ := mention.Split(request)
	return strings.TrimSpace(text)
}

type dirOption struct {
	Dir   string
	Count int
}

func directories(all []sessions.Summary) []dirOption {
	count := map[string]int{}
	for _, s := range all {
		count[s.WorkingDirectory]++
	}
	out := make([]dirOption, 0, len(count))
	for d, n := range count {
		out = append(out, dirOption{d, n})
	}
	slices.SortFunc(out, func(a, b dirOption) int { return strings.Compare(a.Dir, b.Dir) })
	return out
}

// list is the page of sessions; ?fragment=1 answers only the list, for
// the page's live filter.
func (s *Server) list(w http.ResponseWriter, r *http.Request) {
	all, err := s.opts.Sessions.List()
	if err != nil {
		s.fail(w, http.StatusInternalServerError, err)
		return
	}
	q := r.URL.Query()
	f := filterOf(q)
	rows := f.apply(all)
	page := listPage{Filter: f, Matched: len(rows), Total: len(all), Dirs: directories(all),
		Statuses: []string{string(sessions.Active), string(sessions.Complete), string(sessions.Failed), string(sessions.Interrupted)}}
	if q.Get("all") != "1" && len(rows) > listRows {
		rows = rows[:listRows]
		q.Set("all", "1")
		q.Del("fragment")
		page.All = "/?" + q.Encode()
	}
	page.Rows = rowsOf(rows, s.now())
	name := "list.html"
	if r.URL.Query().Get("fragment") == "1" {
		name = "rows"
	}
	s.render(w, name, page)
}

type sessionPage struct {
	S     *sessions.Session
	Title string
	// First is the first request as typed, and Attached the files its @
	// mentions attached, each a line that opens on its content.
	First    string
	Attached []entry
	Entries  []entry
	Chart    *chart
	Requests []requestRow
	Models   []usage.Model
	In, Out  int
	Diffs    []diffView
	// DiffsNote says why there are no diffs, or that getting them failed.
	DiffsNote string
}

type requestRow struct {
	N int
	sessions.Request
	Notes string
}

func (s *Server) session(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if !sessions.ValidID(id) {
		s.fail(w, http.StatusNotFound, fmt.Errorf("no session %q", id))
		return
	}
	sess, err := s.opts.Store.Load(id)
	if errors.Is(err, sessions.ErrNotFound) {
		s.fail(w, http.StatusNotFound, err)
		return
	}
	if err != nil {
		s.fail(w, http.StatusInternalServerError, err)
		return
	}
	first, files := mention.Split(sess.OriginalPrompt)
	page := sessionPage{S: sess, Title: textfmt.Excerpt(first, 80), First: strings.TrimSpace(first), Entries: entriesOf(sess), Chart: newChart(sess.Requests)}
	for _, f := range files {
		page.Attached = append(page.Attached, attachedLine(f))
	}
	if page.Title == "" {
		page.Title = "Session " + sess.ID
	}
	for i, q := range sess.Requests {
		var notes []string
		if q.FormatError {
			notes = append(notes, "format error")
		}
		if q.EarlyStop {
			notes = append(notes, "early stop")
		}
		if q.Estimated {
			notes = append(notes, "estimated")
		}
		page.Requests = append(page.Requests, requestRow{N: i + 1, Request: q, Notes: strings.Join(notes, ", ")})
	}
	page.Models = usage.Stats([]*sessions.Session{sess}, time.Time{}, nil)
	page.In, page.Out = usage.Tokens(sess)
	switch {
	case s.opts.Diffs == nil:
		page.DiffsNote = "This dev does not give the diffs of steps."
	default:
		steps, err := s.opts.Diffs.Steps(r.Context(), sess)
		steps, undone := liveSteps(sess, steps)
		page.Diffs = viewDiffs(steps)
		switch {
		case err != nil:
			page.DiffsNote = "The diffs could not be read: " + err.Error()
		case undone > 0:
			page.DiffsNote = fmt.Sprintf("The changes of %s were undone by a rewind: they are not shown.", textfmt.Plural(undone, "step"))
		case len(steps) == 0:
			page.DiffsNote = "No step of this session changed a file (or it has no checkpoints)."
		}
	}
	s.render(w, "session.html", page)
}

// render executes a page into memory first, so that a failure answers a
// clean error instead of half a page.
func (s *Server) render(w http.ResponseWriter, name string, data any) {
	var b bytes.Buffer
	if err := s.pages.ExecuteTemplate(&b, name, data); err != nil {
		s.fail(w, http.StatusInternalServerError, err)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Write(b.Bytes())
}

func (s *Server) fail(w http.ResponseWriter, code int, err error) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(code)
	_ = s.pages.ExecuteTemplate(w, "error.html", struct {
		Code    int
		Message string
	}{code, err.Error()})
}
