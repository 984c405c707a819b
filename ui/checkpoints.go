package ui

import (
	"fmt"
	"io"
	"strings"

	"github.com/devagent/dev/checkpoints"
	"github.com/devagent/dev/textfmt"
)

// Checkpoints writes one line per checkpoint, in f's width: its number,
// time, what led to it, and the files added, modified and deleted since
// the one before; what led to it and the files give way to a narrow width.
func Checkpoints(w io.Writer, list []checkpoints.Entry, f Fit) error {
	t := Table{Columns: []Column{{Right: true}, {}, {Cut: CutEnd, Min: 6}, {Cut: CutEnd, Min: 6}}}
	for _, e := range list {
		what := "before request"
		switch e.Reason {
		case checkpoints.AfterTool:
			what = fmt.Sprintf("step %d %s %s", e.Step, e.Tool, textfmt.Clip(e.Input, 50))
		case checkpoints.BeforeRewind:
			what = "before rewind"
		}
		t.Rows = append(t.Rows, []string{fmt.Sprintf("%3d", e.Number), e.Time.Local().Format("2006-01-02 15:04:05"), what, changeList(e.Changes)})
	}
	return t.Write(w, f)
}

// changeList is "(+a.go ~b.go -c.go)", or "" for no change.
func changeList(changes []checkpoints.Change) string {
	if len(changes) == 0 {
		return ""
	}
	marks := map[checkpoints.ChangeKind]string{checkpoints.Added: "+", checkpoints.Modified: "~", checkpoints.Deleted: "-"}
	var parts []string
	for i, c := range changes {
		if i == 8 {
			parts = append(parts, fmt.Sprintf("… %d more", len(changes)-8))
			break
		}
		parts = append(parts, marks[c.Change]+c.Path)
	}
	return "(" + strings.Join(parts, " ") + ")"
}

// Diffs writes the diffs of a comparison, one file after the other.
func Diffs(w io.Writer, diffs []checkpoints.FileDiff, st DiffStyle) error {
	for _, d := range diffs {
		if err := WriteDiff(w, d.Diff, st); err != nil {
			return err
		}
	}
	return nil
}

// RewindPlan lists what a rewind will change, in words that say what
// happens to each file, the changes it undoes that were not this
// session's, and those of other sessions running in the same directory;
// rewind is the command that rewinds, as the user types it where they are
// ("dev rewind", or "/rewind" inside interactive mode).
func RewindPlan(w io.Writer, p checkpoints.Plan, filesOnly bool, rewind string) {
	fmt.Fprintf(w, "Rewind to checkpoint %d (%s):\n", p.Target.Number, p.Target.Time.Local().Format("2006-01-02 15:04:05"))
	if len(p.Restore.Changes) == 0 {
		fmt.Fprintln(w, "  the files are as they were then")
	}
	restored := map[string]string{}
	for _, c := range p.Restore.Changes {
		restored[c.Path] = RewindVerb(c.Change)
		fmt.Fprintf(w, "  %-8s %s\n", restored[c.Path], c.Path)
	}
	if len(p.Foreign) > 0 {
		fmt.Fprintf(w, "Changed since the last checkpoint by something other than dev (undone too):\n")
		for _, c := range p.Foreign {
			fmt.Fprintf(w, "  %-8s %s\n", c.Change, c.Path)
		}
	}
	for _, o := range p.Others {
		fmt.Fprintf(w, "Changed by session %s, which a dev is running in this directory now (undone too):\n", o.Session)
		for _, path := range o.Paths {
			fmt.Fprintf(w, "  %-8s %s\n", restored[path], path)
		}
	}
	for _, c := range p.Restore.Left {
		fmt.Fprintf(w, "  left as it is: %s (ignored, too large or not a file now)\n", c.Path)
	}
	for _, c := range p.Restore.Lost {
		fmt.Fprintf(w, "  cannot restore: %s (its content then was never stored: something changed it before dev read it)\n", c.Path)
	}
	if filesOnly {
		fmt.Fprintln(w, "The session's history stays as it is (--files-only).")
	} else {
		fmt.Fprintln(w, "The session's history, task list and audits go back to that point too.")
	}
	if b := p.Before.Checkpoint; b.Tree != "" {
		if p.Before.New {
			fmt.Fprintf(w, "Before any file changes, the present is kept as checkpoint %d (%s %d undoes this).\n", b.Number, rewind, b.Number)
		} else {
			fmt.Fprintf(w, "Checkpoint %d holds the present (%s %d undoes this).\n", b.Number, rewind, b.Number)
		}
	}
}

// RewindVerb says what a rewind does to a file, given its change from the
// present to the checkpoint: one that the checkpoint lacks was created
// since and is deleted; one the present lacks was deleted since and is
// recreated; one that differs is restored.
func RewindVerb(toCheckpoint checkpoints.ChangeKind) string {
	switch toCheckpoint {
	case checkpoints.Deleted:
		return "delete"
	case checkpoints.Added:
		return "recreate"
	default:
		return "restore"
	}
}

// Rewound says what a rewind did; rewind is the command that rewinds, as
// the user types it where they are ("dev rewind", or "/rewind" inside
// interactive mode).
func Rewound(w io.Writer, r checkpoints.Rewound, rewind string) {
	s := fmt.Sprintf("rewound to checkpoint %d: %s", r.Target.Number, textfmt.Plural(len(r.Restore.Changes), "file"))
	if r.Before.New {
		s += fmt.Sprintf("; the state before is checkpoint %d (%s %d undoes this)", r.Before.Checkpoint.Number, rewind, r.Before.Checkpoint.Number)
	}
	fmt.Fprintln(w, s)
}
