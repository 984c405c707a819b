package repl

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/devagent/dev/app"
	"github.com/devagent/dev/checkpoints"
	"github.com/devagent/dev/textfmt"
	"github.com/devagent/dev/ui"
)

// The commands of checkpoints (SPEC §12) and profiles (SPEC §14).

type (
	// timeliner: /checkpoints, /diff, /undo, /rewind.
	timeliner interface {
		// Timeline is the session's checkpoints; nil when they are off.
		Timeline() *app.Timeline
	}
	// profileSwitcher: /profile.
	profileSwitcher interface {
		// Profile is the active profile ("" for none) and all of them.
		Profile() (name string, names []string)
		SetProfile(name string) error
		Model() string
	}
)

func timelineCommands(r *REPL, tl timeliner) []Command {
	return []Command{
		{Name: "/checkpoints", Args: "[all]", Help: "the checkpoints of this session where something changed (all: every one)",
			Run: func(arg string) (string, error) { return "", r.checkpoints(tl, arg) }},
		{Name: "/diff", Help: "what the last request changed in the directory",
			Run: func(string) (string, error) { return "", r.diff(tl) }},
		{Name: "/undo", Help: "undo the last request: rewind to the checkpoint before it (asks first)",
			Run: func(string) (string, error) { return "", r.undo(tl) }},
		{Name: "/rewind", Args: "N", Help: "rewind the directory and the conversation to checkpoint N (asks first)",
			Run: func(arg string) (string, error) { return "", r.rewind(tl, arg) }},
	}
}

// errNoCheckpoints: checkpoints are off for this session.
var errNoCheckpoints = errors.New("checkpoints are off for this session (checkpoints: false, or they could not work here)")

// timeline is the session's timeline as it is now: /new and /resume
// change the session, and with it the timeline.
func timeline(tl timeliner) (*app.Timeline, error) {
	t := tl.Timeline()
	if t == nil {
		return nil, errNoCheckpoints
	}
	return t, nil
}

// checkpoints lists the session's checkpoints: the first, and those where
// something changed since the one before; with "all", every one.
func (r *REPL) checkpoints(tl timeliner, arg string) error {
	if arg != "" && arg != "all" {
		return fmt.Errorf("/checkpoints takes all or nothing, not %q", arg)
	}
	t, err := timeline(tl)
	if err != nil {
		return err
	}
	list, err := t.List(context.Background())
	if err != nil {
		return err
	}
	if len(list) == 0 {
		r.say("no checkpoints yet: the first is taken when a request starts")
		return nil
	}
	shown := list
	if arg != "all" {
		shown = changed(list)
	}
	if err := ui.Checkpoints(r.streams.Err, shown, r.streams.ErrFit()); err != nil {
		return err
	}
	if n := len(list) - len(shown); n > 0 {
		r.say("%s where nothing changed left out (/checkpoints all lists every one)", textfmt.Count(n, "checkpoint"))
	}
	return nil
}

// changed are the checkpoints of list where something changed since the
// one before, and the first: the state everything started from.
func changed(list []checkpoints.Entry) []checkpoints.Entry {
	var out []checkpoints.Entry
	for i, e := range list {
		if i == 0 || len(e.Changes) > 0 {
			out = append(out, e)
		}
	}
	return out
}

func (r *REPL) diff(tl timeliner) error {
	t, err := timeline(tl)
	if err != nil {
		return err
	}
	from, ok := t.LastRequest()
	if !ok {
		r.say("no request yet")
		return nil
	}
	diffs, err := t.Diff(context.Background(), &from, nil)
	if err != nil {
		return err
	}
	if len(diffs) == 0 {
		r.say("the last request changed nothing in the directory")
		return nil
	}
	return ui.Diffs(r.streams.Err, diffs, ui.DiffStyle{Color: r.streams.Color, Terminal: true})
}

func (r *REPL) undo(tl timeliner) error {
	t, err := timeline(tl)
	if err != nil {
		return err
	}
	n, ok := t.LastRequest()
	if !ok {
		r.say("nothing to undo: no request yet")
		return nil
	}
	return r.rewindTo(t, n)
}

func (r *REPL) rewind(tl timeliner, arg string) error {
	n, err := app.ParseNumber(arg)
	if err != nil {
		return fmt.Errorf("usage: /rewind N, the number of a checkpoint (/checkpoints lists them), not %q", arg)
	}
	t, err := timeline(tl)
	if err != nil {
		return err
	}
	return r.rewindTo(t, n)
}

// rewindTo shows what a rewind to n changes, asks, and does it.
func (r *REPL) rewindTo(t *app.Timeline, n int) error {
	ctx := context.Background()
	plan, err := t.Plan(ctx, n)
	if errors.Is(err, checkpoints.ErrNoCheckpoint) {
		return errors.New(err.Error() + " (/checkpoints lists them)")
	}
	if err != nil {
		return err
	}
	ui.RewindPlan(r.streams.Err, plan, false, "/rewind")
	answer, err := r.question("Rewind? [y/N]")
	if err != nil || !strings.HasPrefix(strings.ToLower(strings.TrimSpace(answer)), "y") {
		r.say("nothing changed")
		return nil
	}
	rw, err := t.Rewind(ctx, n, false)
	if err != nil {
		return err
	}
	ui.Rewound(r.streams.Err, rw, "/rewind")
	return nil
}

func (r *REPL) profile(p profileSwitcher, arg string) error {
	name, names := p.Profile()
	if arg == "" {
		switch {
		case len(names) == 0:
			r.say("no profiles in config.json (see Profiles in docs/configuration.md)")
		case name == "":
			r.say("no profile active; the profiles are: %s", strings.Join(names, ", "))
		default:
			r.say("profile %s (model %s); the profiles are: %s", name, p.Model(), strings.Join(names, ", "))
		}
		return nil
	}
	if err := p.SetProfile(arg); err != nil {
		return err
	}
	r.say("profile %s: model %s from the next request", arg, p.Model())
	return nil
}
