package repl

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/devagent/dev/sessions"
	"github.com/devagent/dev/ui"
)

// PickSession shows sessions numbered, newest first as given (the first
// ten), and asks at the answer› prompt for the number of the one to
// resume: /resume without an id, and dev --resume --pick. It returns the
// id picked, or "" after saying that nothing is resumed and why: an empty
// answer, one that is not a number of the list, the end of the input; on
// Ctrl+C it says so too and returns context.Canceled.
func (r *REPL) PickSession(list []sessions.Summary) (id string, err error) {
	list = list[:min(len(list), sessionsShown)]
	if err := ui.SessionTable(r.streams.Err, list, ui.SessionList{OneDir: true, Numbered: true, Now: r.opts.Now()}, r.streams.ErrFit()); err != nil {
		return "", err
	}
	which := "1"
	if len(list) > 1 {
		which = fmt.Sprintf("1 to %d", len(list))
	}
	answer, err := r.question(fmt.Sprintf("Resume which session? Type its number (%s), or press Enter for none.", which))
	answer = strings.TrimSpace(answer)
	n, bad := strconv.Atoi(strings.TrimPrefix(answer, "#"))
	switch {
	case errors.Is(err, errCtrlC):
		r.say("dev: nothing resumed (Ctrl+C)")
		return "", context.Canceled
	case err == io.EOF:
		r.say("\ndev: nothing resumed: the input ended")
		return "", nil
	case err != nil:
		return "", err
	case answer == "":
		r.say("dev: nothing resumed: no number was typed")
		return "", nil
	case bad != nil || n < 1 || n > len(list):
		r.say("dev: nothing resumed: %q is not a number from %s", answer, which)
		return "", nil
	}
	return list[n-1].ID, nil
}
