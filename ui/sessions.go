package ui

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/devagent/dev/sessions"
	"github.com/devagent/dev/textfmt"
)

// SessionTable writes sessions as a table in f's width, newest first as
// given. current, when set, is marked with a star: the list is then
// interactive mode's /sessions, the sessions of one directory, and the
// directory column is left out. The cost column shows when a session has
// one. In a narrow width the id keeps a prefix (which dev takes for the
// id), the directory its end; tokens and cost are left out when even that
// does not fit.
func SessionTable(w io.Writer, list []*sessions.Session, current string, f Fit) error {
	withCost := slices.ContainsFunc(list, func(s *sessions.Session) bool { return s.Cost != nil })
	var t Table
	if current != "" {
		t.Columns = append(t.Columns, Column{})
	}
	// An id cut to 7 characters is still one dev takes (6 or more).
	idMin := 7 + textWidth(f.ellipsis())
	t.Columns = append(t.Columns, Column{Header: "ID", Cut: CutEnd, Min: idMin, Yields: true}, Column{Header: "UPDATED"}, Column{Header: "STATUS"},
		Column{Header: "TOKENS", Right: true, Optional: true})
	if withCost {
		t.Columns = append(t.Columns, Column{Header: "COST", Right: true, Optional: true})
	}
	if current == "" {
		t.Columns = append(t.Columns, Column{Header: "DIRECTORY", Cut: CutStart, Min: 9})
	}
	t.Columns = append(t.Columns, Column{Header: "PROMPT", Cut: CutEnd, Min: 8})
	for _, x := range list {
		var row []string
		if current != "" {
			mark := ""
			if x.ID == current {
				mark = "*"
			}
			row = append(row, mark)
		}
		row = append(row, x.ID, x.UpdatedAt.Local().Format("2006-01-02 15:04"), string(x.Status), textfmt.Thousands(int64(x.TotalTokens)))
		if withCost {
			row = append(row, Dollars(x.Cost))
		}
		if current == "" {
			row = append(row, x.WorkingDirectory)
		}
		t.Rows = append(t.Rows, append(row, textfmt.Excerpt(x.OriginalPrompt, 50)))
	}
	return t.Write(w, f)
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
