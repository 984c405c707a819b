package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/devagent/dev/bgproc"
	"github.com/devagent/dev/parser"
)

// KillBackground is the tool's name, as the protocol spells it.
const KillBackground = "KILL_BACKGROUND_PROCESS"

// KillBackgroundTool stops a background process and its process group.
type KillBackgroundTool struct{}

// Name implements Tool.
func (KillBackgroundTool) Name() string { return KillBackground }

// Doc implements Tool.
func (KillBackgroundTool) Doc() Doc {
	return describe(KillBackground, "kill_background_process", parser.InputLine, ReachAnything, struct{ GraceS int }{int(killGrace.Seconds())})
}

// Check implements Tool.
func (t KillBackgroundTool) Check(input string) (Checked, error) {
	return Bind(input, readProcID(t), t.run)
}

func (KillBackgroundTool) run(_ context.Context, env *Env, id string) Result {
	res := Result{Tool: KillBackground, Summary: id}
	if env.Background == nil {
		return res.fail(unknownProc(id).Error())
	}
	r, err := env.Background.Kill(id)
	if err != nil {
		return res.fail(err.Error())
	}
	res.OK = true
	var what string
	switch {
	case !r.WasRunning && r.Status == bgproc.Killed:
		what = fmt.Sprintf("%s was already stopped (%s); nothing to do.", procName(r.Info), procState(r.Info))
	case !r.WasRunning:
		what = fmt.Sprintf("%s had already %s; nothing to stop.", procName(r.Info), procState(r.Info))
	case r.Forced:
		what = fmt.Sprintf("%s was killed after %s: %s.", procName(r.Info), runtimeText(r.Runtime), forcedHow(env.Background.Grace()))
	default:
		what = fmt.Sprintf("%s stopped on TERM after %s, with its whole process group.", procName(r.Info), runtimeText(r.Runtime))
	}
	res.Output = strings.TrimSpace(what + " " + newOutputText(r, "Output since the last read:", ""))
	return res
}
