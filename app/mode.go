package app

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/devagent/dev/audit"
	"github.com/devagent/dev/config"
	"github.com/devagent/dev/guard"
	"github.com/devagent/dev/prompts"
	"github.com/devagent/dev/tools"
)

// How much dev may do, switched between requests (SPEC §17): the approval
// mode, plan mode among them, and /init's run, which may write AGENTS.md
// and nothing else.

// readingTools run in plan mode as they are: they read, or change nothing
// (the task list, a question, the end of the work). COMMAND runs as the
// auditor's, limited to read-only commands.
var readingTools = []string{tools.ReadFile, tools.ListDirectory, tools.ReadBackground, tools.ListBackground,
	tools.UpdateTaskList, tools.AskUser, tools.Done, tools.ToolHelp}

// agentsFile is the file /init writes, in the working directory.
const agentsFile = "AGENTS.md"

// Approval is the approval mode in force: config.ApprovalAuto, Edits,
// Ask or Plan.
func (a *App) Approval() string { return string(a.approvals.Mode) }

// SetApproval switches the approval mode for the next requests.
func (a *App) SetApproval(mode string) error {
	if !slices.Contains(config.ApprovalModes, mode) {
		return fmt.Errorf("unknown approval mode %q: use one of %s", mode, strings.Join(config.ApprovalModes, ", "))
	}
	a.approvals.Mode = guard.Mode(mode)
	a.applyMode()
	return nil
}

// Init works on /init's request: the model reads the project and writes
// or improves its AGENTS.md. It may read and run read-only commands, and
// write AGENTS.md only, each change shown as a diff and asked about before
// it is written; every other tool is refused.
func (a *App) Init(ctx context.Context) Result {
	a.initRun = true
	a.applyMode()
	defer func() {
		a.initRun = false
		a.applyMode()
	}()
	return a.Run(ctx, prompts.Init())
}

// applyMode fits the loop to the mode: in plan mode and for /init only the
// tools that read run, and a plan is not audited (nothing changed). The
// tools keep their documentation, so the system prompt and the reply
// grammar stay as they were, and with them the server's prompt cache.
func (a *App) applyMode() {
	l := a.loop
	l.Tools, l.Plan, l.PlanCommands, l.Auditor = a.tools, false, nil, nil
	if a.auditor != nil {
		l.Auditor = a.auditor
	}
	switch {
	case a.initRun:
		l.Tools = a.readOnly(func(name string) string {
			return name + " is not available to /init, which writes AGENTS.md and changes nothing else. " +
				"Read with READ_FILE, LIST_DIRECTORY and read-only commands, then write AGENTS.md."
		}, tools.WriteFile, tools.FindAndReplace)
	case a.approvals.Mode == guard.Plan:
		l.Tools = a.readOnly(func(name string) string {
			return name + " is not available: the session is in plan mode, where nothing changes. " +
				"Read with READ_FILE, LIST_DIRECTORY and read-only commands, then give the plan with DONE."
		})
		l.Plan, l.PlanCommands = true, a.cfg.AuditCommands
		l.Auditor = nil
	}
}

// readOnly is the worker's tools of which only those that read run, and
// also those named; COMMAND runs the auditor's read-only commands. why
// says why a tool was refused.
func (a *App) readOnly(why func(name string) string, also ...string) tools.Restricted {
	command := audit.ReadOnlyCommand(a.cfg.AuditCommands)
	return tools.Restricted{
		Tools: a.tools,
		Allow: func(t tools.Tool) (tools.Tool, bool) {
			switch name := t.Name(); {
			case name == tools.Command:
				return command, true
			case slices.Contains(readingTools, name), slices.Contains(also, name):
				return t, true
			}
			return nil, false
		},
		Why: why,
	}
}

// initApproval is what approval /init's run needs for act: its commands
// are read-only and run unasked; of the files, AGENTS.md alone may change,
// each change shown and asked about.
func (a *App) initApproval(act tools.Action) (need bool, refused string) {
	if act.Command != "" {
		return false, ""
	}
	if filepath.Clean(act.Abs) != filepath.Join(a.sess.WorkingDirectory, agentsFile) {
		return false, fmt.Sprintf("/init writes %s only, not %s.", agentsFile, act.Path)
	}
	return true, ""
}
