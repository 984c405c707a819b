package tools

import "github.com/devagent/dev/history"

// Held is r as the history holds it (history.Results, history.Shell): the
// tool, whether it succeeded, the wrapper's attributes and the output.
func (r Result) Held() history.ToolResult {
	return history.ToolResult{Tool: r.Tool, OK: r.OK, Attrs: r.Attrs, Output: r.Output}
}

// Held is each of results as the history holds it.
func Held(results []Result) []history.ToolResult {
	out := make([]history.ToolResult, len(results))
	for i, r := range results {
		out[i] = r.Held()
	}
	return out
}

// FromHistory is a result read back from the history: what it holds, and
// Done for an accepted DONE. The rest (files, command, summary) is not
// kept.
func FromHistory(h history.ToolResult) Result {
	return Result{Tool: h.Tool, OK: h.OK, Attrs: h.Attrs, Output: h.Output, Done: h.Tool == Done && h.OK}
}
