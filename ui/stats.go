package ui

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/devagent/dev/textfmt"
	"github.com/devagent/dev/usage"
)

// statsLegend says what the compliance columns count.
const statsLegend = "WELL-FORMED: replies parsed on the first try, of all worker and audit replies; GRAMMAR, JSON and UNCONSTRAINED: the same of the" +
	" replies the server shaped with the reply grammar, of those it shaped in the JSON form (constrain), and of the others. ~: some counts are estimates (the server gave no usage)."

// Stats writes dev stats: one row per model, most used first, in f's
// width (each model a record of lines when the columns do not fit), and
// what the compliance columns count, wrapped to the width.
func Stats(w io.Writer, rows []usage.Model, days int, f Fit) error {
	fmt.Fprintf(w, "Models over the last %s:\n\n", textfmt.Plural(days, "day"))
	num := func(h string) Column { return Column{Header: h, Right: true} }
	t := Table{Columns: []Column{{Header: "MODEL", Cut: CutEnd, Min: 12}, num("SESSIONS"), num("REQUESTS"), num("TOKENS IN"),
		num("TOKENS OUT"), num("COST"), num("WELL-FORMED"), num("GRAMMAR"), num("JSON"), num("UNCONSTRAINED"), num("FORMAT ERRORS"),
		num("AUDITS PASSED"), num("AUDITS FAILED"), num("EARLY STOPS"), num("FIRST BYTE (MEDIAN)")}}
	for _, m := range rows {
		in := textfmt.Thousands(int64(m.PromptTokens))
		if m.Estimated > 0 {
			in = "~" + in
		}
		t.Rows = append(t.Rows, []string{m.Model, strconv.Itoa(m.Sessions), strconv.Itoa(m.Requests), in,
			textfmt.Thousands(int64(m.CompletionTokens)), Dollars(m.Cost), percent(m.WellFormed(), m.Replies),
			percent(m.WellFormedGrammar(), m.Grammar), percent(m.WellFormedJSON(), m.JSON), percent(m.WellFormedUnconstrained(), m.Unconstrained()),
			strconv.Itoa(m.FormatErrors), strconv.Itoa(m.AuditsPassed), strconv.Itoa(m.AuditsFailed), strconv.Itoa(m.EarlyStops),
			fmt.Sprintf("%.1f s", m.MedianFirstByte.Seconds())})
	}
	if err := t.Write(w, f); err != nil {
		return err
	}
	legend := []string{statsLegend}
	if f.Width > 0 {
		legend = wrap(statsLegend, f.Width)
	}
	_, err := fmt.Fprintln(w, "\n"+strings.Join(legend, "\n"))
	return err
}

// percent writes a share of n replies, "-" when there were none.
func percent(share float64, n int) string {
	if n == 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f%%", 100*share)
}

// StatsJSON writes dev stats --json: one object with the period and a row
// per model.
func StatsJSON(w io.Writer, rows []usage.Model, days int) error {
	type row struct {
		Model             string   `json:"model"`
		Sessions          int      `json:"sessions"`
		Requests          int      `json:"requests"`
		PromptTokens      int      `json:"promptTokens"`
		CompletionTokens  int      `json:"completionTokens"`
		EstimatedRequests int      `json:"estimatedRequests"`
		Cost              *float64 `json:"cost,omitempty"`
		Replies           int      `json:"replies"`
		WellFormed        float64  `json:"wellFormed"`
		// The same split by whether the server shaped the reply, and by
		// the form of the shape.
		ConstrainedReplies      int     `json:"constrainedReplies"`
		ConstrainedWellFormed   float64 `json:"constrainedWellFormed"`
		GrammarReplies          int     `json:"grammarReplies"`
		GrammarWellFormed       float64 `json:"grammarWellFormed"`
		JSONReplies             int     `json:"jsonReplies"`
		JSONWellFormed          float64 `json:"jsonWellFormed"`
		UnconstrainedReplies    int     `json:"unconstrainedReplies"`
		UnconstrainedWellFormed float64 `json:"unconstrainedWellFormed"`
		FormatErrors            int     `json:"formatErrors"`
		AuditsPassed            int     `json:"auditsPassed"`
		AuditsFailed            int     `json:"auditsFailed"`
		EarlyStops              int     `json:"earlyStops"`
		MedianFirstByteMs       int64   `json:"medianFirstByteMs"`
	}
	out := struct {
		Days   int   `json:"days"`
		Models []row `json:"models"`
	}{Days: days, Models: []row{}}
	for _, m := range rows {
		out.Models = append(out.Models, row{m.Model, m.Sessions, m.Requests, m.PromptTokens, m.CompletionTokens, m.Estimated, m.Cost,
			m.Replies, m.WellFormed(), m.Constrained, m.WellFormedConstrained(), m.Grammar, m.WellFormedGrammar(), m.JSON, m.WellFormedJSON(),
			m.Unconstrained(), m.WellFormedUnconstrained(),
			m.FormatErrors, m.AuditsPassed, m.AuditsFailed, m.EarlyStops, m.MedianFirstByte.Milliseconds()})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
