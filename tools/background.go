package tools

import (
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/devagent/dev/bgproc"
	"github.com/devagent/dev/capture"
	"github.com/devagent/dev/textfmt"
)

// What the three background-process tools share: reading an id from the
// input and describing a process for the model.

var procIDPattern = regexp.MustCompile(bgproc.IDPrefix + `[a-z0-9]{6}`)

// procID reads a process id from a tool input: the first proc_xxxxxx in it
// (quotes, backticks and case do not matter), else the input itself, so
// that an unknown id is named back as given.
func procID(input string) string {
	if id := procIDPattern.FindString(strings.ToLower(input)); id != "" {
		return id
	}
	return textfmt.Summary(strings.Trim(strings.TrimSpace(input), "\"'`"), 40)
}

// readProcID reads tool's input: the id of a background process (procID);
// none is an error for the model.
func readProcID(tool Tool) func(string) (string, error) {
	return func(input string) (string, error) {
		if strings.TrimSpace(input) == "" {
			return "", fmt.Errorf("%s needs the id of a background process, e.g.:\n%s\nLIST_BACKGROUND_PROCESSES lists them", tool.Name(), tool.Doc().Example)
		}
		return procID(input), nil
	}
}

// unknownProc is the error for an id when no manager runs.
func unknownProc(id string) error { return &bgproc.UnknownIDError{ID: id} }

// procName is "proc_ab12cd (npm run dev)".
func procName(i bgproc.Info) string {
	return fmt.Sprintf("%s (%s)", i.ID, textfmt.Summary(i.Command, 60))
}

// procState is "running for 12s", "exited with code 1 after 3s", …
func procState(i bgproc.Info) string {
	d := runtimeText(i.Runtime)
	switch {
	case i.Status == bgproc.Running:
		return "running for " + d
	case i.Status == bgproc.Killed:
		return "killed after " + d
	case i.ExitCode >= 0:
		return fmt.Sprintf("exited with code %d after %s", i.ExitCode, d)
	default:
		return fmt.Sprintf("ended (%s) after %s", i.State, d)
	}
}

// runtimeText rounds a runtime for reading: 350ms, 12s, 3m4s.
func runtimeText(d time.Duration) string {
	if d < time.Second {
		return d.Round(10 * time.Millisecond).String()
	}
	return d.Round(time.Second).String()
}

// newOutputText renders the output of a report under a label line, or says
// there is none.
func newOutputText(r bgproc.Report, label, none string) string {
	var b strings.Builder
	if len(r.Output) == 0 && r.Dropped == 0 {
		b.WriteString(none)
	} else {
		b.WriteString(label + "\n")
		data := r.Output
		if r.Dropped > 0 {
			fmt.Fprintf(&b, "[… %s dropped: only the last %d KB of output are kept …]\n", textfmt.Size(r.Dropped), bgproc.BufferSize>>10)
			// The oldest line kept is likely cut: start at the next one.
			if i := strings.IndexByte(string(data), '\n'); i >= 0 && i < len(data)-1 {
				data = data[i+1:]
			}
		}
		b.WriteString(capture.Clean(string(data)))
	}
	if r.OutputLost {
		b.WriteString("\nNote: it exited while a process it started still held its output open; what that process prints is not captured.")
	}
	return b.String()
}
