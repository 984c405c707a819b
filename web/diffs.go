package web

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/devagent/dev/checkpoints"
	"github.com/devagent/dev/sessions"
)

// Diffs gives the changes each step of a session made to its working
// directory (SPEC §12), from the session's checkpoints.
type Diffs interface {
	Steps(ctx context.Context, sess *sessions.Session) ([]StepDiff, error)
}

// StepDiff is what one step changed: the difference between the
// checkpoint taken after its tool and the checkpoint before it.
type StepDiff struct {
	Checkpoint int // the number of the checkpoint after the step
	Time       time.Time
	// Request is the 1-based number of the request in the session as the
	// transcript numbers it (the page sets it from the session's
	// checkpoints), Step the reply number within it (0 when unknown);
	// Tool and Input (a one-line summary) name the tool whose run changed
	// the files.
	Request int
	Step    int
	Tool    string
	Input   string
	Files   []FileDiff
}

// FileDiff is one file a step changed.
type FileDiff struct {
	Path   string
	Change string // added, modified or deleted
	// Patch is the unified diff, as git writes it ("diff --git" and mode
	// lines, then hunks); for a binary file, the line saying so.
	Patch  string
	Binary bool
}

// Lines of one file's diff shown on the page; a longer diff says how many
// more it has (dev diff shows it whole).
const maxPatchLines = 600

// diffView is a step's diff as the page shows it.
type diffView struct {
	Anchor string
	Title  string
	Time   string
	Files  []fileView
}

type fileView struct {
	Path, Change string
	Added        int
	Removed      int
	Lines        []diffLine
	Hidden       int // lines left out
	Binary       bool
}

// diffLine is a line of a unified diff with the class that colours it.
type diffLine struct {
	Class string // add, del, hunk, meta, or "" for context
	Text  string
}

// liveSteps are the steps whose changes no rewind undid, each numbered
// with its request as the transcript numbers it now: a rewind took the
// requests after its checkpoint out of the history. It says how many
// steps' changes were undone.
func liveSteps(sess *sessions.Session, steps []StepDiff) (live []StepDiff, undone int) {
	if len(sess.Checkpoints) == 0 {
		return steps, 0
	}
	filesUndone, requestsUndone := sess.Undone()
	for _, s := range steps {
		if filesUndone[s.Checkpoint] {
			undone++
			continue
		}
		s.Request = 0
		for _, c := range sess.Checkpoints {
			if c.Number < s.Checkpoint && c.Reason == checkpoints.BeforeRequest && !requestsUndone[c.Number] {
				s.Request++
			}
		}
		live = append(live, s)
	}
	return live, undone
}

func viewDiffs(steps []StepDiff) []diffView {
	out := make([]diffView, 0, len(steps))
	for _, s := range steps {
		v := diffView{Anchor: fmt.Sprintf("checkpoint-%d", s.Checkpoint), Title: stepTitle(s)}
		if !s.Time.IsZero() {
			v.Time = s.Time.Local().Format("2006-01-02 15:04:05")
		}
		for _, f := range s.Files {
			v.Files = append(v.Files, viewFile(f))
		}
		out = append(out, v)
	}
	return out
}

func stepTitle(s StepDiff) string {
	var parts []string
	if s.Request > 0 {
		parts = append(parts, fmt.Sprintf("request %d", s.Request))
	}
	if s.Step > 0 {
		parts = append(parts, fmt.Sprintf("step %d", s.Step))
	}
	tool := strings.TrimSpace(s.Tool + " " + s.Input)
	if tool == "" {
		tool = "changes"
	}
	parts = append(parts, tool)
	return strings.Join(parts, " · ")
}

func viewFile(f FileDiff) fileView {
	v := fileView{Path: f.Path, Change: f.Change, Binary: f.Binary}
	lines := strings.Split(strings.TrimRight(f.Patch, "\n"), "\n")
	if f.Patch == "" {
		lines = nil
	}
	inHunk := false
	for i, l := range lines {
		class := ""
		switch {
		case strings.HasPrefix(l, "@@"):
			class, inHunk = "hunk", true
		case !inHunk:
			class = "meta" // diff --git, mode lines, ---/+++, Binary files differ
		case strings.HasPrefix(l, "+"):
			class = "add"
			v.Added++
		case strings.HasPrefix(l, "-"):
			class = "del"
			v.Removed++
		case strings.HasPrefix(l, `\`):
			class = "meta" // \ No newline at end of file
		}
		if i < maxPatchLines {
			v.Lines = append(v.Lines, diffLine{Class: class, Text: l})
		} else {
			v.Hidden++
		}
	}
	return v
}
