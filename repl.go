package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/devagent/dev/loop"
)

const replHelp = `Type a request and press Enter; dev works on it until it is done.
End a line with \ to continue on the next line.
  /tasks   show the task list
  /new     start a new session in this directory
  /exit    leave (or Ctrl+D)
Ctrl+C interrupts the current request; at the prompt it leaves.`

// lines reads the user's input line by line, for the REPL and ASK_USER alike.
type lines struct {
	scanner *bufio.Scanner
	out     io.Writer // where prompts are shown (stderr)
}

func (a *agent) prompter() *lines {
	if a.input == nil {
		sc := bufio.NewScanner(a.streams.In)
		sc.Buffer(make([]byte, 64<<10), 4<<20)
		a.input = &lines{scanner: sc, out: a.streams.Err}
	}
	return a.input
}

// read returns one logical line: physical lines ending in `\` are joined.
func (l *lines) read(prompt string) (string, error) {
	var parts []string
	for {
		fmt.Fprint(l.out, prompt)
		if !l.scanner.Scan() {
			if err := l.scanner.Err(); err != nil {
				return "", err
			}
			if len(parts) > 0 {
				return strings.Join(parts, "\n"), nil
			}
			return "", io.EOF
		}
		line := strings.TrimSuffix(l.scanner.Text(), "\r")
		if strings.HasSuffix(line, `\`) {
			parts = append(parts, strings.TrimSuffix(line, `\`))
			prompt = "  "
			continue
		}
		return strings.Join(append(parts, line), "\n"), nil
	}
}

func (l *lines) ask(_ context.Context, question string) (string, error) {
	fmt.Fprintln(l.out, "\n"+strings.TrimSpace(question))
	answer, err := l.read("answer› ")
	if err == io.EOF {
		return "", fmt.Errorf("no answer: the input ended")
	}
	return answer, err
}

// interactive is the conversation: each message runs the loop until DONE,
// then the prompt returns.
func (a *agent) interactive() error {
	turns := &turnInterrupts{}
	stop := a.watchTurnInterrupts(turns)
	defer stop()
	if a.streams.InTTY {
		fmt.Fprintln(a.streams.Err, "Type /help for help.")
	}
	in := a.prompter()
	for {
		text, err := in.read("› ")
		if err == io.EOF {
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
		turns.set(cancel)
		outcome := a.loop.Run(ctx, a.sess, text)
		turns.set(nil)
		cancel()
		a.report(outcome)
		if outcome.Stop == loop.Done {
			fmt.Fprintln(a.streams.Out, strings.TrimSpace(outcome.Summary))
		}
	}
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
func (a *agent) watchTurnInterrupts(turns *turnInterrupts) (stop func()) {
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		for {
			select {
			case <-done:
				return
			case <-a.interrupts:
				if !turns.interrupt() {
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
