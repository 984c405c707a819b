package repl

import (
	"context"
	"errors"
	"strings"

	"github.com/devagent/dev/app"
	"github.com/devagent/dev/checkpoints"
	"github.com/devagent/dev/ui"
)

// The commands of checkpoints (SPEC §12) and profiles (SPEC §14).

func timelineCommands(r *REPL) []Command {
	return []Command{
		{Name: "/checkpoints", Help: "the checkpoints of this session: what changed at each", Run: r.checkpoints},
		{Name: "/diff", Help: "what the last request changed in the directory", Run: r.diff},
		{Name: "/undo", Help: "undo the last request: rewind to the checkpoint before it (asks first)", Run: r.undo},
		{Name: "/rewind", Args: "N", Help: "rewind the directory and the conversation to checkpoint N (asks first)", Run: r.rewind},
		{Name: "/profile", Args: "[NAME]", Help: "show the model profile, or switch to NAME for the next requests", Run: r.profile},
	}
}

// errNoCheckpoints: checkpoints are off for this session.
var errNoCheckpoints = errors.New("checkpoints are off for this session (checkpoints: false, or they could not work here)")

func (r *REPL) timeline() (*app.Timeline, error) {
	t := r.app.Timeline()
	if t == nil {
		return nil, errNoCheckpoints
	}
	return t, nil
}

func (r *REPL) checkpoints(string) (string, error) {
	t, err := r.timeline()
	if err != nil {
		return "", err
	}
	list, err := t.List(context.Background())
	if err != nil {
		return "", err
	}
	if len(list) == 0 {
		r.say("no checkpoints yet: the first is taken when a request starts")
		return "", nil
	}
	ui.Checkpoints(r.streams.Err, list)
	return "", nil
}

func (r *REPL) diff(string) (string, error) {
	t, err := r.timeline()
	if err != nil {
		return "", err
	}
	from, ok := t.LastRequest()
	if !ok {
		r.say("no request yet")
		return "", nil
	}
	diffs, err := t.Diff(context.Background(), &from, nil)
	if err != nil {
		return "", err
	}
	if len(diffs) == 0 {
		r.say("the last request changed nothing in the directory")
		return "", nil
	}
	return "", ui.Diffs(r.streams.Err, diffs, ui.DiffStyle{Color: r.streams.Color, Terminal: true})
}

func (r *REPL) undo(string) (string, error) {
	t, err := r.timeline()
	if err != nil {
		return "", err
	}
	n, ok := t.LastRequest()
	if !ok {
		r.say("nothing to undo: no request yet")
		return "", nil
	}
	return "", r.rewindTo(t, n)
}

func (r *REPL) rewind(arg string) (string, error) {
	n, err := app.ParseNumber(arg)
	if err != nil {
		return "", errors.New("usage: /rewind N (/checkpoints lists the numbers): " + err.Error())
	}
	t, err := r.timeline()
	if err != nil {
		return "", err
	}
	return "", r.rewindTo(t, n)
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
	ui.RewindPlan(r.streams.Err, plan, false)
	answer, err := r.question("Rewind? [y/N]")
	if err != nil || !strings.HasPrefix(strings.ToLower(strings.TrimSpace(answer)), "y") {
		r.say("nothing changed")
		return nil
	}
	rw, err := t.Rewind(ctx, n, false)
	if err != nil {
		return err
	}
	ui.Rewound(r.streams.Err, rw, false)
	return nil
}

func (r *REPL) profile(arg string) (string, error) {
	name, names := r.app.Profile()
	if arg == "" {
		switch {
		case len(names) == 0:
			r.say("no profiles in config.json (see the README's Profiles)")
		case name == "":
			r.say("no profile active; the profiles are: %s", strings.Join(names, ", "))
		default:
			r.say("profile %s (model %s); the profiles are: %s", name, r.app.Model(), strings.Join(names, ", "))
		}
		return "", nil
	}
	if err := r.app.SetProfile(arg); err != nil {
		return "", err
	}
	r.say("profile %s: model %s from the next request", arg, r.app.Model())
	return "", nil
}
