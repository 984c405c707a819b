// Package repl is dev's interactive mode: the prompt (line editing, history
// per directory, Tab completion, bracketed paste, type-ahead), its slash
// commands, and each message run as a request until it is done. It reads
// what the user types; the run's progress and its answer are rendered from
// events by the renderers main chose.
package repl

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/devagent/dev/app"
	"github.com/devagent/dev/config"
	"github.com/devagent/dev/loop"
	"github.com/devagent/dev/parser"
	"github.com/devagent/dev/sessions"
	"github.com/devagent/dev/slashcmd"
	"github.com/devagent/dev/tools"
	"github.com/devagent/dev/ui"
)

// Interrupts gives each request a context that Ctrl+C cancels: main's one
// path from signals to contexts.
type Interrupts interface {
	// Work returns a context the next Ctrl+C cancels, and a function to
	// call when the work is done.
	Work(parent context.Context) (context.Context, func())
	// Ending reports that dev was asked to end (SIGTERM, stdout closed):
	// no request starts after this one.
	Ending() bool
}

// App is what a conversation needs of the application layer (an
// *app.App): to run requests and the user's !commands in a session. The
// slash commands ask for more, each group the little it needs (see
// commandsFor); an app without it has none of those commands.
type App interface {
	Run(ctx context.Context, request string) app.Result
	// Shell runs the user's !command; its output joins the conversation.
	Shell(ctx context.Context, command string) tools.Result
	Session() *sessions.Session
}

// Screen is what commands show through the terminal renderer (a
// *ui.Terminal).
type Screen interface {
	Last() (ui.LastResult, bool)
	Tasks(tasks []parser.Task)
	Box(title, text string)
	// Question stops the live part (spinner, timers) while a question
	// waits; answered starts it again.
	Question() (answered func())
}

// Options are what a conversation needs besides the app.
type Options struct {
	Streams   *ui.Streams
	ConfigDir string // keeps the prompt's history, per working directory
	Intr      Interrupts
	Screen    Screen
	Env       ui.Env // $PAGER for /last
	// Now is the clock (the double Ctrl+C); nil is time.Now.
	Now func() time.Time
}

// REPL is one interactive conversation.
type REPL struct {
	opts     Options
	streams  *ui.Streams
	input    lineReader
	app      App
	commands []Command // those of the app (see Run), then those added
	added    []Command

	mu     sync.Mutex
	cancel context.CancelFunc // of the request running, nil at the prompt

	lastCtrlC time.Time // at an empty prompt
}

// doubleCtrlC is how soon a second Ctrl+C at an empty prompt must follow
// the first to leave dev.
const doubleCtrlC = 2 * time.Second

// New prepares the conversation. Ask is ready at once (the app needs it to
// open); Run needs the app.
func New(o Options) *REPL {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Env == nil {
		o.Env = func(string) string { return "" }
	}
	r := &REPL{opts: o, streams: o.Streams}
	r.input = newLineReader(o.Streams, r.complete, r.nextApproval)
	return r
}

// Add makes a slash command available at the prompt, in /help and to Tab
// (e.g. /diff, /undo, /profile, or commands defined in files). A command
// of the same name is replaced.
func (r *REPL) Add(c Command) {
	r.added = append(r.added, c)
	r.put(c)
}

// put adds c to the commands, in place of one of the same name.
func (r *REPL) put(c Command) {
	for i, old := range r.commands {
		if old.Name == c.Name {
			r.commands[i] = c
			return
		}
	}
	r.commands = append(r.commands, c)
}

// Restore gives the terminal back as it was (the type-ahead mode off): for
// a dev that must exit now.
func (r *REPL) Restore() { r.input.restore() }

// Ask puts ASK_USER's question to the user; the answer is the tool's
// result, and is not kept in the prompt's history. Ctrl+C instead of an
// answer interrupts the request, like Ctrl+C anywhere else while dev works.
func (r *REPL) Ask(ctx context.Context, question string) (string, error) {
	answered := r.opts.Screen.Question()
	answer, err := r.question(question)
	switch {
	case errors.Is(err, errCtrlC):
		r.interrupt()
		return "", context.Canceled
	case err == io.EOF:
		return "", errors.New("no answer: the input ended")
	case err != nil:
		return "", err
	case ctx.Err() != nil:
		return "", ctx.Err()
	}
	// Only an answer lets the work go on: after an interruption the live
	// part stays stopped.
	answered()
	return answer, nil
}

// question shows a question and reads its answer at the answer› prompt,
// the same for every question dev asks.
func (r *REPL) question(question string) (string, error) {
	r.say("\n%s", strings.TrimSpace(question))
	return r.input.ask("answer" + r.promptMark())
}

// Run is the conversation with a: each message runs until it is done, then
// the prompt returns. It ends when the user leaves.
func (r *REPL) Run(a App) error {
	r.start(a)
	r.input.useHistory(historyPath(r.opts.ConfigDir, a.Session().WorkingDirectory))
	defer r.input.restore()
	if r.streams.InTTY {
		fmt.Fprintln(r.streams.Err, "Type /help for help.")
	}
	for !r.opts.Intr.Ending() {
		text, err := r.input.read(r.prompt)
		switch {
		case err == io.EOF:
			fmt.Fprintln(r.streams.Err)
			r.leave()
			return nil
		case errors.Is(err, errCtrlC):
			now := r.opts.Now()
			if !r.lastCtrlC.IsZero() && now.Sub(r.lastCtrlC) <= doubleCtrlC {
				fmt.Fprintln(r.streams.Err)
				r.leave()
				return nil
			}
			r.lastCtrlC = now
			fmt.Fprintln(r.streams.Err, "(press Ctrl+C again to exit, or Ctrl+D)")
			continue
		case err != nil:
			return fmt.Errorf("reading input: %w", err)
		}
		r.lastCtrlC = time.Time{}
		text = strings.TrimSpace(text)
		if text == "" {
			continue
		}
		if command, ok := strings.CutPrefix(text, "!"); ok {
			r.shell(command)
			continue
		}
		if strings.HasPrefix(text, "/") {
			request, err := r.command(text)
			if errors.Is(err, errExit) {
				r.leave()
				return nil
			}
			if err != nil {
				r.say("dev: %v", err)
			}
			if request == "" {
				continue
			}
			text = request
		}
		r.request(text)
	}
	return nil
}

// leave says, as the user leaves, the command that resumes the session.
func (r *REPL) leave() {
	if a, ok := r.app.(resumer); ok {
		if cmd := a.ResumeCommand(); cmd != "" {
			r.say("dev: resume this session with %s", cmd)
		}
	}
}

// start makes a the conversation's app, and the commands it provides for
// the prompt's, with those added and those defined by files.
func (r *REPL) start(a App) {
	r.app = a
	r.commands = commandsFor(r, a)
	for _, c := range r.added {
		r.put(c)
	}
	r.addFileCommands()
}

// request runs one message; Ctrl+C interrupts it and returns to the
// prompt. What is typed meanwhile is kept for the next prompt. A plan made
// in plan mode is offered to be carried out.
func (r *REPL) request(text string) {
	planning := r.approval() == config.ApprovalPlan
	var res app.Result
	r.work(func(ctx context.Context) { res = r.app.Run(ctx, text) })
	if planning && res.Stop == loop.Done && strings.TrimSpace(res.Summary) != "" {
		r.carryOut(res.Summary)
	}
}

// work runs f with a context Ctrl+C cancels, keeping what is typed meanwhile.
func (r *REPL) work(f func(ctx context.Context)) {
	ctx, done := r.opts.Intr.Work(context.Background())
	ctx, cancel := context.WithCancel(ctx)
	r.mu.Lock()
	r.cancel = cancel
	r.mu.Unlock()
	r.input.typeAhead(true)
	f(ctx)
	r.input.typeAhead(false)
	r.mu.Lock()
	r.cancel = nil
	r.mu.Unlock()
	cancel()
	done()
}

// prompt is the prompt of a message: the approval mode when it is not
// auto ("plan› "), then the mark.
func (r *REPL) prompt() string {
	if mode := r.approval(); mode != "" && mode != config.ApprovalAuto {
		return mode + r.promptMark()
	}
	return r.promptMark()
}

// promptMark ends the prompt: "› ", or "> " where the locale is not UTF-8.
func (r *REPL) promptMark() string {
	if r.streams.Unicode {
		return "› "
	}
	return "> "
}

// shell runs a command the user typed after "!", shows its output, and
// leaves it in the conversation for the next request.
func (r *REPL) shell(command string) {
	if strings.TrimSpace(command) == "" {
		r.say("!command runs the command here and adds its output to the conversation")
		return
	}
	var res tools.Result
	r.work(func(ctx context.Context) { res = r.app.Shell(ctx, command) })
	fmt.Fprintln(r.streams.Err, strings.TrimRight(res.Output, "\n")) // the command's own lines, as it wrote them
}

// addFileCommands makes the slash commands defined by files (SPEC §15)
// commands of the prompt: /help lists them, Tab completes them, and each
// sends its file's text as the request.
func (r *REPL) addFileCommands() {
	files, ok := r.app.(fileCommander)
	if !ok {
		return
	}
	cmds, warnings := files.Commands(r.names())
	for _, w := range warnings {
		r.say("dev: warning: %s", w)
	}
	for _, c := range cmds {
		r.put(Command{Name: "/" + c.Name, Args: "[ARGS]", Help: c.Description, Run: func(arg string) (string, error) {
			text, _, _ := slashcmd.Expand([]slashcmd.Command{c}, strings.TrimSpace("/"+c.Name+" "+arg))
			return text, nil
		}})
	}
}

// interrupt cancels the request running, as Ctrl+C does.
func (r *REPL) interrupt() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cancel != nil {
		r.cancel()
	}
}
