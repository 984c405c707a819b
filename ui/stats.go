package ui

import (
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/devagent/dev/textfmt"
	"github.com/devagent/dev/usage"
)

// Stats writes dev stats: one line per model, most used first.
func Stats(w io.Writer, rows []usage.Model, days int) {
	fmt.Fprintf(w, "Models over the last %s:\n\n", textfmt.Plural(days, "day"))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "MODEL\tSESSIONS\tREQUESTS\tTOKENS IN\tTOKENS OUT\tCOST\tWELL-FORMED\tCONSTRAINED\tUNCONSTRAINED\tFORMAT ERRORS\tAUDITS PASSED\tAUDITS FAILED\tEARLY STOPS\tFIRST BYTE (MEDIAN)")
	for _, m := range rows {
		in := textfmt.Thousands(int64(m.PromptTokens))
		if m.Estimated > 0 {
			in = "~" + in
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t%d\t%d\t%d\t%.1f s\n", m.Model, m.Sessions, m.Requests, in,
			textfmt.Thousands(int64(m.CompletionTokens)), Dollars(m.Cost), percent(m.WellFormed(), m.Replies),
			percent(m.WellFormedConstrained(), m.Constrained), percent(m.WellFormedUnconstrained(), m.Unconstrained()), m.FormatErrors,
			m.AuditsPassed, m.AuditsFailed, m.EarlyStops, m.MedianFirstByte.Seconds())
	}
	_ = tw.Flush()
	fmt.Fprintln(w, "\nWELL-FORMED: replies parsed on the first try, of all worker and audit replies; CONSTRAINED and UNCONSTRAINED: the same of the"+
		" replies whose request carried the reply grammar (constrain) and of the others. ~: some counts are estimates (the server gave no usage).")
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
		// The same split by whether the request carried the grammar.
		ConstrainedReplies      int     `json:"constrainedReplies"`
		ConstrainedWellFormed   float64 `json:"constrainedWellFormed"`
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
			m.Replies, m.WellFormed(), m.Constrained, m.WellFormedConstrained(), m.Unconstrained(), m.WellFormedUnconstrained(),
			m.FormatErrors, m.AuditsPassed, m.AuditsFailed, m.EarlyStops, m.MedianFirstByte.Milliseconds()})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
