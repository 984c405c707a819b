package tools

import (
	"context"

	"github.com/devagent/dev/textfmt"
)

// Restricted is a set of tools of which only some run (plan mode and
// /init, SPEC §17). Every tool keeps its name, its documentation and its
// input check (a tool that runs in another's place reads the input as
// that one does), so that a reply parses as it would with the whole set
// and the model's prompt and grammar need not change; running one that
// is not allowed is refused, nothing done, with Why.
type Restricted struct {
	Tools *Registry
	// Allow says what runs in place of a tool of Tools: the tool itself,
	// a narrower one (a read-only COMMAND), or nothing (false): refused.
	Allow func(t Tool) (Tool, bool)
	// Why says why a tool was refused: what the model may do instead.
	Why func(name string) string
}

// Names implements Set.
func (r Restricted) Names() []string { return r.Tools.Names() }

// Lookup implements Set: the tool named, or what runs in its place.
func (r Restricted) Lookup(name string) (Tool, bool) {
	t, ok := r.Tools.Lookup(name)
	if !ok {
		return nil, false
	}
	run, allowed := r.Allow(t)
	switch {
	case !allowed:
		return refusedTool{Tool: t, why: r.Why(name)}, true
	case run != t:
		return insteadTool{Tool: t, run: run}, true
	}
	return t, true
}

// insteadTool is a tool whose runs are another's: that one reads the
// input, as the tool would (plan mode's COMMAND reads it as COMMAND).
type insteadTool struct {
	Tool
	run Tool
}

func (t insteadTool) Check(input string) (Checked, error) {
	return t.run.Check(input)
}

// refusedTool is a tool that does not run.
type refusedTool struct {
	Tool
	why string
}

// Check reads the input with the tool's own check, so that a malformed
// input is told as it would be, and binds the refusal.
func (t refusedTool) Check(input string) (Checked, error) {
	if _, err := t.Tool.Check(input); err != nil {
		return nil, err
	}
	return Bind(input, AsWritten, t.refuse)
}

func (t refusedTool) refuse(_ context.Context, _ *Env, input string) Result {
	return Result{Tool: t.Name(), Summary: textfmt.FirstLine(input)}.refuse(t.why)
}
