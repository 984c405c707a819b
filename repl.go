package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/devagent/dev/loop"
)

const replHelp = `Type a request and press Enter; dev works on it until it is done.
End a line with \ to go on on the next line; pasted text is kept whole.
Up and down walk through earlier requests; Ctrl+R searches them.
  /tasks      show the task list
  /sessions   list recent sessions
  /new        start a new session in this directory
  /exit       leave (or Ctrl+D, or Ctrl+C at an empty prompt)
Ctrl+C during a request interrupts it and returns here; the session is saved.`

// historyFile keeps the requests typed at the prompt, in the config directory.
const historyFile = "history"

// reader is the user's input, for the prompt and ASK_USER alike.
func (a *agent) reader() lineReader {
	if a.input == nil {
		a.input = newLineReader(a.streams, filepath.Join(a.dir, historyFile))
	}
	return a.input
}

// ask puts ASK_USER's question to the user; the answer is the tool's result.
// Ctrl+C instead of an answer interrupts the turn.
func (a *agent) ask(ctx context.Context, question string) (string, error) {
	fmt.Fprintln(a.streams.Err, "\n"+strings.TrimSpace(question))
	answer, err := a.reader().read("answer› ")
	switch {
	case errors.Is(err, errLeave):
		a.turns.interrupt()
		return "", context.Canceled
	case err == io.EOF:
		return "", errors.New("no answer: the input ended")
	}
	return answer, err
}

// interactive is the conversation: each message runs the loop until DONE,
// then the prompt returns.
func (a *agent) interactive() error {
	stop := a.watchTurnInterrupts()
	defer stop()
	if a.streams.InTTY {
		fmt.Fprintln(a.streams.Err, "Type /help for help.")
	}
	for {
		text, err := a.reader().read("› ")
		if err == io.EOF || errors.Is(err, errLeave) {
			fmt.Fprintln(a.streams.Err)
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
			fmt.Fprintln(a.streams.Err, replHelp)
			continue
		case "/tasks":
			a.printTasks()
			continue
		case "/sessions":
			if err := a.printSessions(); err != nil {
				fmt.Fprintln(a.streams.Err, "dev: "+err.Error())
			}
			continue
		case "/new":
			if err := a.newSession(); err != nil {
				return err
			}
			continue
		}
		if strings.HasPrefix(text, "/") && !strings.Contains(text, " ") {
			fmt.Fprintf(a.streams.Err, "unknown command %s; /help lists them\n", text)
			continue
		}
		ctx, cancel := context.WithCancel(context.Background())
		a.turns.set(cancel)
		outcome := a.loop.Run(ctx, a.sess, text)
		a.turns.set(nil)
		cancel()
		a.report(outcome)
		if outcome.Stop == loop.Done {
			fmt.Fprintln(a.streams.Out, strings.TrimSpace(outcome.Summary))
		}
	}
}

// printSessions lists the newest sessions, marking the current one.
func (a *agent) printSessions() error {
	list, err := a.store.List()
	if err != nil {
		return err
	}
	const shown = 10
	if len(list) > shown {
		list = list[:shown]
	}
	return writeSessionTable(a.streams.Err, list, a.sess.ID)
}

func (a *agent) printTasks() {
	if len(a.sess.TaskList) == 0 {
		fmt.Fprintln(a.streams.Err, "no tasks yet")
		return
	}
	marks := map[string]string{"complete": "[x]", "in-progress": "[~]", "pending": "[ ]"}
	for _, t := range a.sess.TaskList {
		fmt.Fprintf(a.streams.Err, "%s %s\n", marks[t.Status], t.Text)
	}
}

// newSession switches to a fresh session in the same directory.
func (a *agent) newSession() error {
	sess, err := a.store.New("", a.sess.WorkingDirectory, "", a.cfg.Model)
	if err != nil {
		return err
	}
	release, err := a.store.Lock(sess.ID)
	if err != nil {
		return err
	}
	a.releaseLock()
	a.releaseLock = release
	a.sess = sess
	a.loop.Env.OutputDir = a.store.Dir(sess.ID)
	if err := a.store.Remember(sess.WorkingDirectory, sess.ID); err != nil {
		fmt.Fprintln(a.streams.Err, "dev: warning: recording the session for --resume: "+err.Error())
	}
	a.sink.Emit(loop.SessionStarted{ID: sess.ID, Model: a.cfg.Model, Dir: sess.WorkingDirectory})
	return nil
}

// turnInterrupts holds the cancel function of the running turn, if any.
type turnInterrupts struct {
	mu     sync.Mutex
	cancel context.CancelFunc
}

func (t *turnInterrupts) set(c context.CancelFunc) {
	t.mu.Lock()
	t.cancel = c
	t.mu.Unlock()
}

// interrupt cancels the running turn; it reports false when none runs.
func (t *turnInterrupts) interrupt() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.cancel == nil {
		return false
	}
	t.cancel()
	t.cancel = nil
	return true
}

// watchTurnInterrupts: Ctrl+C interrupts the running turn and returns to the
// prompt; at the prompt it leaves dev.
func (a *agent) watchTurnInterrupts() (stop func()) {
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		for {
			select {
			case <-done:
				return
			case <-a.interrupts:
				if !a.turns.interrupt() {
					fmt.Fprintln(a.streams.Err)
					a.releaseLock()
					a.bg.stop()
					os.Exit(exitInterrupted)
				}
			}
		}
	}()
	return func() {
		close(done)
		<-finished
	}
}
