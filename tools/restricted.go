package tools

import (
	"context"

	"github.com/devagent/dev/textfmt"
)

// Restricted is a set of tools of which only some run (plan mode and
// /init, SPEC §17). Every tool keeps its name, its documentation and its
// input check, so that a reply parses as it would with the whole set and
// the model's prompt and grammar need not change; running one that is not
// allowed is refused, nothing done, with Why.
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

// insteadTool is a tool whose runs are another's.
type insteadTool struct {
	Tool
	run Tool
}

func (t insteadTool) Run(ctx context.Context, env *Env, input string) Result {
	return t.run.Run(ctx, env, input)
}

// refusedTool is a tool that does not run.
type refusedTool struct {
	Tool
	why string
}

func (t refusedTool) Run(_ context.Context, _ *Env, input string) Result {
	return Result{Tool: t.Name(), Summary: textfmt.FirstLine(input)}.refuse(t.why)
}
