// Package repl is dev's interactive mode: the prompt, its commands, and
// each message run as a request until it is done. It reads what the user
// types and prints the final answers; the run's progress is rendered from
// events by the renderers main chose.
package repl

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync"

	"github.com/devagent/dev/app"
	"github.com/devagent/dev/loop"
	"github.com/devagent/dev/parser"
	"github.com/devagent/dev/ui"
)

const help = `Type a request and press Enter; dev works on it until it is done.
End a line with \ to go on on the next line; pasted text is kept whole.
Up and down walk through earlier requests; Ctrl+R searches them.
  /tasks      show the task list
  /sessions   list recent sessions
  /new        start a new session in this directory
  /NAME args  a command of yours, from .dev/commands/NAME.md (see the README)
  !command    run a command here; its output is added to the conversation
  @path       in a request, attaches the file
  /exit       leave (or Ctrl+D, or Ctrl+C at an empty prompt)
Ctrl+C during a request interrupts it and returns here; the session is saved.`

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

// REPL is one interactive conversation.
type REPL struct {
	streams *ui.Streams
	intr    Interrupts
	input   lineReader
	app     *app.App

	mu     sync.Mutex
	cancel context.CancelFunc // of the request running, nil at the prompt
}

// historyFile keeps the requests typed at the prompt, in the config directory.
const historyFile = "history"

// New prepares the conversation; configDir keeps what is typed at the
// prompt. Ask is ready at once (the app needs it to open); Run needs the app.
func New(streams *ui.Streams, configDir string, intr Interrupts) *REPL {
	return &REPL{streams: streams, intr: intr, input: newLineReader(streams, filepath.Join(configDir, historyFile))}
}

// Ask puts ASK_USER's question to the user; the answer is the tool's result.
// Ctrl+C instead of an answer interrupts the request, like Ctrl+C anywhere
// else while dev works.
func (r *REPL) Ask(ctx context.Context, question string) (string, error) {
	fmt.Fprintln(r.streams.Err, "\n"+strings.TrimSpace(question))
	answer, err := r.input.read("answer› ")
	switch {
	case errors.Is(err, errLeave):
		r.interrupt()
		return "", context.Canceled
	case err == io.EOF:
		return "", errors.New("no answer: the input ended")
	}
	return answer, err
}

// Run is the conversation with a: each message runs until it is done, then
// the prompt returns. It ends when the user leaves.
func (r *REPL) Run(a *app.App) error {
	r.app = a
	if r.streams.InTTY {
		fmt.Fprintln(r.streams.Err, "Type /help for help.")
	}
	for !r.intr.Ending() {
		text, err := r.input.read("› ")
		if err == io.EOF || errors.Is(err, errLeave) {
			fmt.Fprintln(r.streams.Err)
			return nil
		}
		if err != nil {
			return fmt.Errorf("reading input: %w", err)
		}
		text = strings.TrimSpace(text)
		switch text {
		case "":
			continue
		case "/exit", "/quit":
			return nil
		case "/help":
			fmt.Fprintln(r.streams.Err, help)
			continue
		case "/tasks":
			r.printTasks()
			continue
		case "/sessions":
			if err := r.printSessions(); err != nil {
				fmt.Fprintln(r.streams.Err, "dev: "+err.Error())
			}
			continue
		case "/new":
			if err := a.NewSession(); err != nil {
				return err
			}
			continue
		}
		if command, ok := strings.CutPrefix(text, "!"); ok {
			r.shell(command)
			continue
		}
		request, err := a.Request(text)
		if err != nil {
			fmt.Fprintf(r.streams.Err, "dev: %v; /help lists the built-in ones\n", err)
			continue
		}
		r.request(request)
	}
	return nil
}

// request runs one message; Ctrl+C interrupts it and returns to the prompt.
func (r *REPL) request(text string) {
	ctx, done := r.intr.Work(context.Background())
	ctx, cancel := context.WithCancel(ctx)
	r.mu.Lock()
	r.cancel = cancel
	r.mu.Unlock()
	res := r.app.Run(ctx, text)
	r.mu.Lock()
	r.cancel = nil
	r.mu.Unlock()
	cancel()
	done()
	if res.Stop == loop.Done {
		fmt.Fprintln(r.streams.Out, strings.TrimSpace(res.Summary))
	}
}

// shell runs a command the user typed after "!", shows its output, and
// leaves it in the conversation for the next request.
func (r *REPL) shell(command string) {
	if strings.TrimSpace(command) == "" {
		fmt.Fprintln(r.streams.Err, "!command runs the command here and adds its output to the conversation")
		return
	}
	ctx, done := r.intr.Work(context.Background())
	res := r.app.Shell(ctx, command)
	done()
	fmt.Fprintln(r.streams.Err, strings.TrimRight(res.Output, "\n"))
}

// interrupt cancels the request running, as Ctrl+C does.
func (r *REPL) interrupt() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cancel != nil {
		r.cancel()
	}
}

// printSessions lists the newest sessions, marking the current one.
func (r *REPL) printSessions() error {
	list, err := r.app.Store().List()
	if err != nil {
		return err
	}
	const shown = 10
	if len(list) > shown {
		list = list[:shown]
	}
	return ui.SessionTable(r.streams.Err, list, r.app.Session().ID)
}

func (r *REPL) printTasks() {
	tasks := r.app.Session().TaskList
	if len(tasks) == 0 {
		fmt.Fprintln(r.streams.Err, "no tasks yet")
		return
	}
	fmt.Fprintln(r.streams.Err, parser.TaskLines(tasks))
}
