package ui

import (
	"fmt"
	"io"
	"text/tabwriter"
	"time"

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

// timeLayout writes the times of a raw transcript.
const timeLayout = time.RFC3339
