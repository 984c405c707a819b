package tools

import (
	"context"

	"github.com/devagent/dev/bgproc"
	"github.com/devagent/dev/parser"
)

// ReadBackground is the tool's name, as the protocol spells it.
const ReadBackground = "READ_BACKGROUND_PROCESS"

// ReadBackgroundTool reports a background process's state and new output.
type ReadBackgroundTool struct{}

// Name implements Tool.
func (ReadBackgroundTool) Name() string { return ReadBackground }

// Doc implements Tool.
func (ReadBackgroundTool) Doc() Doc {
	return describe(ReadBackground, "read_background_process", parser.InputLine, ReachNothing, struct{ BufferKB int }{bgproc.BufferSize >> 10})
}

// Check implements Tool.
func (t ReadBackgroundTool) Check(input string) (Checked, error) {
	return Bind(input, readProcID(t), t.run)
}

func (ReadBackgroundTool) run(_ context.Context, env *Env, id string) Result {
	res := Result{Tool: ReadBackground, Summary: id}
	if env.Background == nil {
		return res.fail(unknownProc(id).Error())
	}
	r, err := env.Background.Read(id)
	if err != nil {
		return res.fail(err.Error())
	}
	res.OK = true
	res.Output = procName(r.Info) + ": " + procState(r.Info) + ". " +
		newOutputText(r, "New output:", "No new output since the last read.")
	return res
}
