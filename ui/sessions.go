package ui

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/devagent/dev/parser"
	"github.com/devagent/dev/sessions"
	"github.com/devagent/dev/textfmt"
)

// SessionTable writes sessions as an aligned table, newest first as given;
// current, when set, is marked with a star.
func SessionTable(w io.Writer, list []*sessions.Session, current string) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tUPDATED\tSTATUS\tDIRECTORY\tPROMPT")
	for _, x := range list {
		id := x.ID
		if id == current {
			id += " *"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", id, x.UpdatedAt.Local().Format("2006-01-02 15:04"),
			x.Status, x.WorkingDirectory, textfmt.Excerpt(x.OriginalPrompt, 50))
	}
	return tw.Flush()
}

// Transcript writes a session as a readable document: its facts, its task
// list, then every message of its history.
func Transcript(w io.Writer, sess *sessions.Session) {
	fmt.Fprintf(w, "# Session %s\n\n", sess.ID)
	fmt.Fprintf(w, "- Directory: %s\n- Model: %s\n- Status: %s\n- Created: %s\n- Updated: %s\n- Tokens: %d\n\n",
		sess.WorkingDirectory, sess.Model, sess.Status,
		sess.CreatedAt.Format(time.RFC3339), sess.UpdatedAt.Format(time.RFC3339), sess.TotalTokens)
	if len(sess.TaskList) > 0 {
		fmt.Fprintln(w, "## Task list")
		fmt.Fprintln(w, parser.TaskLines(sess.TaskList))
		fmt.Fprintln(w)
	}
	for i, m := range sess.History {
		fmt.Fprintf(w, "## %d. %s\n\n%s\n\n", i+1, m.Role, strings.TrimSpace(m.Content))
	}
}
