package benchreport

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/devagent/dev/textfmt"
)

// Column is one column of the report's tables, the same on the terminal
// (ui fits it to the width) and in report.md.
type Column struct {
	Header string
	Number bool // right-aligned
	// Cut: a long cell may lose its end (names); Yields: only once the
	// other columns are whole (a session id, whose start is enough).
	Cut, Yields bool
	// Optional: left out of a terminal too narrow, the last first (all of
	// it is in report.md).
	Optional bool
}

// Legend says what the columns count.
const Legend = "DONE: tasks whose check passed, of the tasks run. WELL-FORMED: replies (worker and audit) parsed on the first try. " +
	"STEPS, TOKENS IN, TOKENS OUT and SERVER S are per task; SERVER S is the server's own time where it reports it " +
	"(llama.cpp), else the time dev waited for replies (marked ~). CACHE: prompt tokens the server's prompt cache served. " +
	"WALL: the model's tasks from the first start to the last end."

// ModelTable is the models' table: a row per model and constrain mode.
func (r Report) ModelTable() ([]Column, [][]string) {
	profiles := r.hasProfiles()
	cols := []Column{{Header: "MODEL", Cut: true}}
	if profiles {
		cols = append(cols, Column{Header: "PROFILE", Cut: true})
	}
	cols = append(cols, Column{Header: "CONSTRAIN"}, Column{Header: "DONE", Number: true}, Column{Header: "WELL-FORMED", Number: true},
		Column{Header: "FORMAT ERRORS", Number: true}, Column{Header: "STEPS", Number: true},
		Column{Header: "TOKENS IN", Number: true, Optional: true}, Column{Header: "TOKENS OUT", Number: true, Optional: true},
		Column{Header: "SERVER S", Number: true, Optional: true}, Column{Header: "CACHE", Number: true, Optional: true},
		Column{Header: "WALL", Number: true})
	timed := map[Key]bool{}
	for _, t := range r.Tasks {
		if t.ServerTimed {
			timed[t.Key()] = true
		}
	}
	var rows [][]string
	for _, m := range r.Models {
		row := []string{m.Model}
		if profiles {
			row = append(row, m.Profile)
		}
		server := fmt.Sprintf("%.1f", m.ServerSeconds)
		if !timed[m.Key()] {
			server = "~" + server
		}
		cache := "-"
		if m.CacheReuse != nil {
			cache = pct(*m.CacheReuse)
		}
		row = append(row, m.Constrain, fmt.Sprintf("%d/%d", m.Done, m.Tasks), pct(m.WellFormed), strconv.Itoa(m.FormatErrors),
			fmt.Sprintf("%.1f", m.Steps), textfmt.Thousands(int64(m.TokensIn)), textfmt.Thousands(int64(m.TokensOut)), server, cache,
			wall(m.WallSeconds))
		rows = append(rows, row)
	}
	return cols, rows
}

// TaskTable is the tasks' table: a row per task and run.
func (r Report) TaskTable() ([]Column, [][]string) {
	profiles := r.hasProfiles()
	cols := []Column{{Header: "MODEL", Cut: true}}
	if profiles {
		cols = append(cols, Column{Header: "PROFILE", Cut: true})
	}
	cols = append(cols, Column{Header: "CONSTRAIN"}, Column{Header: "TASK", Cut: true}, Column{Header: "RUN", Number: true},
		Column{Header: "DONE"}, Column{Header: "EXIT", Number: true}, Column{Header: "STEPS", Number: true},
		Column{Header: "WELL-FORMED", Number: true}, Column{Header: "SECONDS", Number: true},
		Column{Header: "SESSION", Cut: true, Yields: true, Optional: true})
	var rows [][]string
	for _, t := range r.Tasks {
		row := []string{t.Model}
		if profiles {
			row = append(row, t.Profile)
		}
		done := "yes"
		switch {
		case t.TimedOut:
			done = "timed out"
		case !t.Done:
			done = "no"
		}
		wellFormed := "-"
		if t.Replies > 0 {
			wellFormed = pct(t.WellFormed)
		}
		row = append(row, t.Constrain, t.Task, strconv.Itoa(t.Run), done, strconv.Itoa(t.ExitCode), strconv.Itoa(t.Steps),
			wellFormed, fmt.Sprintf("%.1f", t.Seconds), t.Session)
		rows = append(rows, row)
	}
	return cols, rows
}

func (r Report) hasProfiles() bool {
	for _, t := range r.Tasks {
		if t.Profile != "" {
			return true
		}
	}
	return false
}

func pct(p float64) string { return strconv.FormatFloat(p, 'f', -1, 64) + "%" }

// Markdown writes report.md: what was run, the models' table, the tasks'
// table, and what the columns count.
func Markdown(w io.Writer, r Report) {
	fmt.Fprintf(w, "# dev bench report\n\n")
	var facts []string
	if !r.Started.IsZero() {
		facts = append(facts, "started "+r.Started.UTC().Format("2006-01-02 15:04 UTC"))
	}
	if r.Version != "" {
		facts = append(facts, "dev "+r.Version)
	}
	if r.Suite != "" {
		facts = append(facts, "suite "+r.Suite)
	}
	if r.Shard != "" {
		facts = append(facts, "shard "+r.Shard)
	}
	if len(facts) > 0 {
		fmt.Fprintf(w, "%s.\n\n", capitalize(strings.Join(facts, ", ")))
	}
	if r.Interrupted {
		fmt.Fprintf(w, "The run was stopped before every task ran: this report holds the %s that finished.\n\n", textfmt.Count(len(r.Tasks), "task"))
	}
	fmt.Fprintf(w, "## Models\n\n")
	cols, rows := r.ModelTable()
	markdownTable(w, cols, rows)
	fmt.Fprintf(w, "\n%s\n\n## Tasks\n\n", Legend)
	cols, rows = r.TaskTable()
	markdownTable(w, cols, rows)
	failed := false
	for _, t := range r.Tasks {
		if !t.Done && (t.Error != "" || t.Check != "") {
			if !failed {
				fmt.Fprintf(w, "\n## Why tasks were not done\n\n")
				failed = true
			}
			why := t.Error
			if why == "" {
				why = "the check failed: " + strings.TrimSpace(t.Check)
			}
			row := t.Model
			if t.Profile != "" {
				row += " (" + t.Profile + ")" // the same model on two servers: two profiles
			}
			fmt.Fprintf(w, "- %s, %s, %s run %d: %s\n", row, t.Constrain, t.Task, t.Run, oneLine(why))
		}
	}
	fmt.Fprintf(w, "\nEach session is in this directory's sessions/: `DEV_AGENT_HOME=<this directory> dev sessions show <session>` shows one.\n")
}

func markdownTable(w io.Writer, cols []Column, rows [][]string) {
	var head, rule strings.Builder
	for _, c := range cols {
		head.WriteString("| " + strings.ToLower(c.Header) + " ")
		if c.Number {
			rule.WriteString("|--:")
		} else {
			rule.WriteString("|---")
		}
	}
	fmt.Fprintf(w, "%s|\n%s|\n", head.String(), rule.String())
	for _, row := range rows {
		var b strings.Builder
		for _, cell := range row {
			b.WriteString("| " + strings.ReplaceAll(oneLine(cell), "|", `\|`) + " ")
		}
		fmt.Fprintf(w, "%s|\n", b.String())
	}
}

// oneLine is s on one line, cut to a few hundred characters.
func oneLine(s string) string { return textfmt.Excerpt(s, 300) }

// wall writes a wall time: tenths of a second under a minute, then
// minutes and seconds.
func wall(seconds float64) string {
	if seconds < 60 {
		return fmt.Sprintf("%.1fs", seconds)
	}
	return textfmt.Duration(time.Duration(seconds * float64(time.Second)))
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
