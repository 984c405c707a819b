package ui

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/devagent/dev/mention"
	"github.com/devagent/dev/sessions"
	"github.com/devagent/dev/textfmt"
)

// SessionList says how SessionTable shows a list of sessions.
type SessionList struct {
	// OneDir: the sessions of one directory (interactive mode's
	// /sessions, the pickers of /resume and dev --resume --pick): no
	// directory column, and no tokens or cost, which leave the requests
	// the room.
	OneDir bool
	// Current, when set, is the session open, marked with a star.
	Current string
	// Numbered: the rows are numbered from 1, for a number to pick one.
	Numbered bool
	// Now is when "last used" counts from.
	Now time.Time
}

// SessionTable writes sessions as a table in f's width, in the order
// given (newest first): each one's id, when it was last used, its status,
// how many requests it made, its first request and its last (when it made
// more than one), the requests as typed, without the files their @
// mentions attached. dev sessions list adds its tokens, its cost when a
// session has one, and its directory. In a narrow width the id keeps a
// prefix (which dev takes for the id), the directory its end, the
// requests their start; tokens and cost are left out when even that does
// not fit.
func SessionTable(w io.Writer, list []sessions.Summary, how SessionList, f Fit) error {
	withCost := !how.OneDir && slices.ContainsFunc(list, func(s sessions.Summary) bool { return s.Cost != nil })
	var t Table
	switch {
	case how.Numbered:
		t.Columns = append(t.Columns, Column{Header: "#", Right: true})
	case how.Current != "":
		t.Columns = append(t.Columns, Column{})
	}
	// An id cut to 7 characters is still one dev takes (6 or more).
	idMin := 7 + textWidth(f.ellipsis())
	// At 60 columns the status gives way, after tokens and cost.
	t.Columns = append(t.Columns, Column{Header: "ID", Cut: CutEnd, Min: idMin, Yields: true}, Column{Header: "LAST USED"},
		Column{Header: "STATUS", Optional: true}, Column{Header: "REQS", Right: true})
	if !how.OneDir {
		t.Columns = append(t.Columns, Column{Header: "TOKENS", Right: true, Optional: true})
		if withCost {
			t.Columns = append(t.Columns, Column{Header: "COST", Right: true, Optional: true})
		}
		t.Columns = append(t.Columns, Column{Header: "DIRECTORY", Cut: CutStart, Min: 9})
	}
	// The requests tell sessions apart: cost, tokens and then the status
	// give way before they are cut to fewer than 10 columns.
	t.Columns = append(t.Columns, Column{Header: "FIRST REQUEST", Cut: CutEnd, Min: 8, Want: 10},
		Column{Header: "LAST REQUEST", Cut: CutEnd, Min: 8, Want: 10})
	for i, x := range list {
		var row []string
		switch {
		case how.Numbered:
			row = append(row, strconv.Itoa(i+1))
		case how.Current != "":
			mark := ""
			if x.ID == how.Current {
				mark = "*"
			}
			row = append(row, mark)
		}
		used := ""
		if !x.UpdatedAt.IsZero() {
			used = AgoShort(how.Now.Sub(x.UpdatedAt))
		}
		row = append(row, x.ID, used, string(x.Status), strconv.Itoa(x.Prompts))
		if !how.OneDir {
			row = append(row, textfmt.Thousands(int64(x.TotalTokens)))
			if withCost {
				row = append(row, Dollars(x.Cost))
			}
			row = append(row, x.WorkingDirectory)
		}
		first, last := typed(x.OriginalPrompt), ""
		if x.Prompts > 1 {
			last = typed(x.LastPrompt)
		}
		t.Rows = append(t.Rows, append(row, first, last))
	}
	return t.Write(w, f)
}

// AgoShort says how long ago something was in a few columns (a table's,
// a phone's): "now", "5m ago", "3h ago", "2d ago"; ago says it in words.
func AgoShort(d time.Duration) string {
	switch {
	case d < time.Minute:
		return "now"
	case d < time.Hour:
		return strconv.Itoa(int(d/time.Minute)) + "m ago"
	case d < 48*time.Hour:
		return strconv.Itoa(int(d/time.Hour)) + "h ago"
	}
	return strconv.Itoa(int(d/(24*time.Hour))) + "d ago"
}

// typed is a stored request as the user typed it, on one line and cut to
// what a table can show: without the files its @ mentions attached.
func typed(request string) string {
	text, _ := mention.Split(request)
	return textfmt.Excerpt(text, 60)
}

// Dollars writes a cost in USD, "-" when unknown.
func Dollars(c *float64) string {
	switch {
	case c == nil:
		return "-"
	case *c < 0.01:
		return fmt.Sprintf("$%.4f", *c)
	}
	return fmt.Sprintf("$%.2f", *c)
}

// UsageSummary writes what a session's model requests took: per purpose,
// requests, tokens in and out (cached, estimated), time to first byte and
// duration, early stops, in f's width; then the cost when known.
func UsageSummary(w io.Writer, sess *sessions.Session, f Fit) error {
	fmt.Fprintln(w, "## Usage")
	fmt.Fprintln(w)
	if len(sess.Requests) == 0 {
		_, err := fmt.Fprintf(w, "No requests recorded (%s tokens in all).\n", textfmt.Thousands(int64(sess.TotalTokens)))
		return err
	}
	type total struct {
		requests, in, out, cached, estimated, early, formatErrors int
		firstByte, duration                                       int64
	}
	byPurpose := map[string]*total{}
	var order []string
	for _, r := range sess.Requests {
		t, ok := byPurpose[r.Purpose]
		if !ok {
			t = &total{}
			byPurpose[r.Purpose] = t
			order = append(order, r.Purpose)
		}
		t.requests++
		t.in += r.PromptTokens
		t.out += r.CompletionTokens
		if r.CachedTokens != nil {
			t.cached += *r.CachedTokens
		}
		if r.Estimated {
			t.estimated++
		}
		if r.EarlyStop {
			t.early++
		}
		if r.FormatError {
			t.formatErrors++
		}
		t.firstByte += r.FirstByteMs
		t.duration += r.DurationMs
	}
	num := func(h string) Column { return Column{Header: h, Right: true} }
	table := Table{Columns: []Column{{Header: "PURPOSE"}, num("REQUESTS"), num("TOKENS IN"), num("CACHED"), num("TOKENS OUT"),
		num("FIRST BYTE (AVG)"), num("TIME"), {Header: "NOTES", Cut: CutEnd}}}
	for _, p := range order {
		t := byPurpose[p]
		var notes []string
		if t.formatErrors > 0 {
			notes = append(notes, textfmt.Plural(t.formatErrors, "format error"))
		}
		if t.early > 0 {
			notes = append(notes, textfmt.Plural(t.early, "early stop"))
		}
		if t.estimated > 0 {
			notes = append(notes, fmt.Sprintf("%d estimated", t.estimated))
		}
		table.Rows = append(table.Rows, []string{p, strconv.Itoa(t.requests), textfmt.Thousands(int64(t.in)), textfmt.Thousands(int64(t.cached)),
			textfmt.Thousands(int64(t.out)), seconds(t.firstByte / int64(t.requests)), seconds(t.duration), strings.Join(notes, ", ")})
	}
	if err := table.Write(w, f); err != nil {
		return err
	}
	if sess.Cost != nil {
		_, err := fmt.Fprintf(w, "\nCost: %s\n", Dollars(sess.Cost))
		return err
	}
	return nil
}

// seconds writes milliseconds as seconds with one decimal.
func seconds(ms int64) string { return fmt.Sprintf("%.1f s", float64(ms)/1000) }

// timeLayout writes the times of a raw transcript.
const timeLayout = time.RFC3339
