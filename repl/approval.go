package repl

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/devagent/dev/app"
	"github.com/devagent/dev/config"
	"github.com/devagent/dev/prompts"
)

// How much dev may do (SPEC §17): /approval and Shift+Tab switch the
// approval mode, plan mode's plan is offered to be carried out, and /init
// writes AGENTS.md.

type (
	// approvalSwitcher: /approval, Shift+Tab, the prompt's mode.
	approvalSwitcher interface {
		Approval() string
		SetApproval(mode string) error
	}
	// initWriter: /init.
	initWriter interface {
		Init(ctx context.Context) app.Result
	}
)

// approval is the approval mode in force; "" when the app has none.
func (r *REPL) approval() string {
	if a, ok := r.app.(approvalSwitcher); ok {
		return a.Approval()
	}
	return ""
}

// nextApproval is Shift+Tab at the prompt: the next approval mode, in the
// order auto, edits, ask, plan. The prompt shows it.
func (r *REPL) nextApproval() {
	a, ok := r.app.(approvalSwitcher)
	if !ok {
		return
	}
	modes := config.ApprovalModes
	next := modes[(slices.Index(modes, a.Approval())+1)%len(modes)]
	_ = a.SetApproval(next) // one of the modes: it cannot fail
}

// approvalCommand is /approval [MODE]: shows the mode, or switches it for
// the next requests.
func (r *REPL) approvalCommand(a approvalSwitcher, arg string) error {
	if arg == "" {
		r.say("approval: %s (%s)", a.Approval(), approvalModes())
		return nil
	}
	if err := a.SetApproval(arg); err != nil {
		return fmt.Errorf("/approval takes %s, not %q", strings.Join(config.ApprovalModes, ", "), arg)
	}
	r.say("approval: %s for the next requests", a.Approval())
	return nil
}

// approvalModes says what each mode does, for /approval.
func approvalModes() string {
	return "auto asks nothing; edits asks before commands; ask before commands and file changes; " +
		"plan only reads and makes a plan. /approval MODE or Shift+Tab switches"
}

// carryOut offers to carry out the plan a request made in plan mode: yes
// switches to auto, edits to edits, and the plan goes back as the next
// request; anything else leaves the session in plan mode.
func (r *REPL) carryOut(plan string) {
	a, ok := r.app.(approvalSwitcher)
	if !ok {
		return
	}
	answer, err := r.question("Carry it out? [y]es, [e]dits (ask before commands), [n]o")
	mode := ""
	if err == nil {
		switch strings.ToLower(strings.TrimSpace(answer)) {
		case "y", "yes":
			mode = config.ApprovalAuto
		case "e", "edits":
			mode = config.ApprovalEdits
		}
	}
	if mode == "" {
		r.say("not carried out; still in plan mode (Shift+Tab or /approval switches)")
		return
	}
	if err := a.SetApproval(mode); err != nil {
		r.say("dev: %v", err)
		return
	}
	r.say("approval: %s; carrying out the plan", mode)
	r.request(prompts.CarryOut(plan))
}

// initCommand is /init: the model writes or improves AGENTS.md.
func (r *REPL) initCommand(i initWriter) {
	r.work(func(ctx context.Context) { i.Init(ctx) })
}
