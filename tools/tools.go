// Package tools implements the protocol's tools, one file each: its doc,
// its input (the raw text of a `## Tool Input` section, read once by its
// Check into the type its run takes), its run and the Result for the
// model. Tools never print; failures the model can fix are results with OK
// false, not Go errors. How a command runs is bgproc's (Foreground), and
// what it prints, as kept for the model and on disk, is capture's; the
// tools decide whether it may run (SPEC §13) and what the model is told.
package tools

import (
	"context"
	"time"

	"github.com/devagent/dev/bgproc"
	"github.com/devagent/dev/capture"
	"github.com/devagent/dev/guard"
	"github.com/devagent/dev/parser"
)

// Env is what tools need from the run.
type Env struct {
	Dir            string        // working directory; relative paths resolve here
	Interactive    bool          // ASK_USER may ask (false under -p)
	CommandTimeout time.Duration // foreground limit of COMMAND
	// OutputDir receives the full output of commands whose output was cut
	// (the session's directory). Created on first use.
	OutputDir string
	// Spills is the session's account of that saved output: it masks
	// secrets in the files as they are written and keeps the files under
	// SessionSpillMax in all. Nil: the files are written as printed, each
	// capped alone.
	Spills *capture.Spills
	// Ask puts a question to the user (interactive mode only).
	Ask func(ctx context.Context, question string) (string, error)
	// Background takes over commands still running after CommandTimeout and
	// serves the background-process tools. Nil (e.g. for the audit): such
	// commands are stopped, and no background process exists.
	Background Background
	// Deny holds the denied-command rules (config denyCommands,
	// denyBuiltinCommands): a command breaking one is never started. Nil
	// means the builtin list (guard.Builtin).
	Deny *guard.Deny
	// WritableRoots are the directories besides Dir that WRITE_FILE and
	// FIND_AND_REPLACE_IN_FILE may write (config writableRoots), absolute.
	WritableRoots []string
	// Sandbox, when set, confines every command the tools start and all
	// its descendants (config sandbox: workspace).
	Sandbox bgproc.Sandbox
	// Approve is asked before a command starts or a file changes (approval
	// modes); nil approves everything. Refused actions are not done.
	Approve func(ctx context.Context, a Action) Verdict
	// Groups marks and records every command as it starts (a
	// *reaper.Reaper), so that none outlives dev, not even when dev is
	// killed. Nil: neither.
	Groups bgproc.Groups
	// Live, when set, receives what a foreground command prints as it
	// prints it (stdout and stderr, in order), until the command ends or
	// moves to the background: the terminal shows it while it runs. It is
	// called from the goroutine reading the command's output, so it must
	// not block; the bytes are only valid during the call.
	Live func(p []byte)
}

// Background keeps processes running past their foreground command (a
// *bgproc.Manager).
type Background interface {
	Adopt(p *bgproc.Process, command string, seen int64) (bgproc.Info, error)
	Read(id string) (bgproc.Report, error)
	List() []bgproc.Info
	Kill(id string) (bgproc.Report, error)
	Grace() time.Duration
}

// Doc documents a tool for the system prompt.
type Doc struct {
	Name        string
	Description string // markdown, a few lines, limits stated from the code's constants
	Example     string // an example `## Tool Input` body
	// Brief, when set, is all the system prompt says of the tool, on one
	// line after its name (MCP tools: the first sentence of the
	// description); TOOL_HELP gives the rest on demand.
	Brief string
	// Schema is the JSON schema of the input, for tools whose input is a
	// JSON object (MCP tools); TOOL_HELP shows it.
	Schema string
	// Input is the input's shape in a reply the server shapes (SPEC §18);
	// the zero value is free text.
	Input parser.InputShape
	// Reach is what the tool may change in the working directory.
	Reach Reach
}

// Reach is what a tool may change in the working directory: it tells the
// checkpoint after the tool where to look (SPEC §12).
type Reach int

const (
	// ReachAnything: a command, a custom or MCP tool may change any file;
	// the zero value, so that a tool that says nothing is looked after.
	ReachAnything Reach = iota
	// ReachNothing: the tool only reads (no checkpoint looks after it).
	ReachNothing
	// ReachItsFiles: the tool changes only the files its Result names.
	ReachItsFiles
)

// Tool is one protocol tool.
type Tool interface {
	Name() string
	Doc() Doc
	// Check reads the input (the raw text of its `## Tool Input`
	// section) before anything runs, and returns it as the tool's run
	// takes it, bound to that run: the input is read once, here. Its
	// error (e.g. WRITE_FILE without a code block) is written for the
	// model.
	Check(input string) (Checked, error)
}

// Checked is a tool's input as its Check read it, bound to the tool's
// run: all the calls of a reply are checked before any runs.
type Checked interface {
	Run(ctx context.Context, env *Env) Result
}

// Bind reads input with read and binds what it read to run: what a
// tool's Check returns, so that run takes the typed input and never the
// text. A read that fails is the error for the model.
func Bind[In any](input string, read func(string) (In, error), run func(context.Context, *Env, In) Result) (Checked, error) {
	in, err := read(input)
	if err != nil {
		return nil, err
	}
	return bound[In]{in: in, run: run}, nil
}

type bound[In any] struct {
	in  In
	run func(context.Context, *Env, In) Result
}

func (b bound[In]) Run(ctx context.Context, env *Env) Result { return b.run(ctx, env, b.in) }

// AsWritten reads an input as the model wrote it: for a tool that takes
// any text (a custom tool's stdin) or none.
func AsWritten(input string) (string, error) { return input, nil }

// Result is the outcome of one tool call.
type Result struct {
	Tool    string
	Summary string // one line describing the input, for display (a path, a command)
	OK      bool
	Output  string      // text for the model, without the wrapper
	Attrs   [][2]string // extra wrapper attributes, e.g. {"path", "a.go"}
	// Evidence for the audit.
	Files    []string // paths written or edited, relative to Env.Dir when inside it
	Command  string   // COMMAND: the command run
	ExitCode int      // COMMAND: exit code (-1 when it did not exit)
	Done     bool     // DONE: the worker says the work is finished
}
