package repl

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"unicode/utf8"

	"github.com/reeflective/readline"

	"github.com/devagent/dev/ui"
)

// errCtrlC: Ctrl+C at an empty prompt (the REPL asks for a second one to
// leave), or at a question (an interruption).
var errCtrlC = errors.New("Ctrl+C at the prompt")

// lineReader reads what the user types, one message at a time.
type lineReader interface {
	// read returns a message, io.EOF when the input ends (Ctrl+D), or
	// errCtrlC for Ctrl+C at an empty line. What was typed while dev
	// worked is on the line already. The prompt is drawn anew whenever
	// the line is (Shift+Tab changes it).
	read(prompt func() string) (string, error)
	// ask reads an answer: not kept in the history; any Ctrl+C is errCtrlC.
	ask(prompt string) (string, error)
	// useHistory keeps the messages in the file at path.
	useHistory(path string)
	// typeAhead on keeps what is typed while dev works, unseen, for the
	// next prompt; off ends that.
	typeAhead(on bool)
	// restore gives the terminal back as it was.
	restore()
}

// historyPath is the file keeping the prompt's history for a working
// directory: one file per directory, so that up-arrow brings back what was
// asked here, not in another project. (The directory is not "history":
// that was the one history file of earlier versions, left as it is.)
func historyPath(configDir, dir string) string {
	sum := sha256.Sum256([]byte(filepath.Clean(dir)))
	return filepath.Join(configDir, "histories", hex.EncodeToString(sum[:8]))
}

// newLineReader is a line editor when dev talks to a terminal, and plain
// lines otherwise (a pipe, a script). shiftTab is what Shift+Tab does at
// the prompt.
func newLineReader(s *ui.Streams, complete completer, shiftTab func()) lineReader {
	if s.InTTY && s.OutTTY {
		return newEditor(complete, shiftTab)
	}
	sc := bufio.NewScanner(s.In)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	return &plainReader{scanner: sc, out: s.Err}
}

// completer is what Tab offers at the end of before (the line up to the
// cursor): the word it completes there, and the words that may replace it.
type completer func(before string) (word string, candidates []string)

// editor is the line editor (reeflective/readline): history in a file,
// Ctrl+R to search it, Tab completion that lists its choices, pasted text
// kept whole (bracketed paste), a new line in the message with Alt+Enter or
// a line ending in `\`, Shift+Tab, and type-ahead.
type editor struct {
	shell   *readline.Shell
	history *pausable
	ahead   typeahead
	// candidates is how many candidates the completer gave last.
	candidates int
	// asking: an answer is read (ask), not a message: Shift+Tab does
	// nothing there, as the mode must not change in the middle of a
	// request.
	asking bool
}

// The editor commands dev adds, and the keys bound to them.
const (
	newlineCommand                = "dev-insert-newline"    // Alt+Enter
	completeCommand               = "dev-complete"          // Tab
	cancelCommand                 = "dev-cancel-completion" // Ctrl+C while Tab's list is shown
	shiftTabCommand               = "dev-shift-tab"         // Shift+Tab
	menuSelect                    = "menu-select"           // the library's keymap while Tab's list is shown
	tabKey, shiftTabKey, ctrlCKey = "\t", "\x1b[Z", "\x03"
)

// altEnter are the keys terminals send for Alt+Enter: Esc, then Enter as
// carriage return or line feed. The library's default keymap binds each
// also as one meta character (0x80 | key) to self-insert, which it matches
// against the same keys and prefers: both forms are bound.
var altEnter = []string{"\x1b\r", "\x1b\n", string(rune(0x80 | '\r')), string(rune(0x80 | '\n'))}

func newEditor(complete completer, shiftTab func()) *editor {
	shell := readline.NewShell()
	e := &editor{shell: shell, history: &pausable{}}
	// The terminal marks a paste, so that its newlines do not send it line
	// by line: the library supports it, off by default.
	_ = shell.Config.Set("enable-bracketed-paste", true)
	// On, the library's default, every character from U+0080 to U+00FF
	// (é, ü, ñ) is read as Alt and a key: typed é vanished. Terminals send
	// Alt as Esc before the key, which works without it (bash turns it
	// off for UTF-8 too).
	_ = shell.Config.Set("convert-meta", false)
	shell.AcceptMultiline = func(line []rune) bool {
		return !strings.HasSuffix(strings.TrimRight(string(line), " "), `\`)
	}
	shell.Prompt.Secondary(func() string { return "  " })
	// Tab on an ambiguous prefix puts in what the candidates share and
	// lists them under the prompt; Tab again goes through them (GNU
	// readline's menu-complete-display-prefix).
	_ = shell.Config.Set("menu-complete-display-prefix", true)
	shell.Keymap.Register(map[string]func(){
		newlineCommand:  func() { shell.Cursor().InsertAt('\n') },
		completeCommand: e.complete,
		cancelCommand:   e.cancelCompletion,
		shiftTabCommand: func() {
			if shiftTab != nil && !e.asking {
				shiftTab()
			}
		},
	})
	for _, keymap := range []string{"emacs", "vi-insert"} {
		for _, keys := range altEnter {
			_ = shell.Config.Bind(keymap, keys, newlineCommand, false)
		}
		_ = shell.Config.Bind(keymap, tabKey, completeCommand, false)
		_ = shell.Config.Bind(keymap, shiftTabKey, shiftTabCommand, false)
	}
	_ = shell.Config.Bind(menuSelect, ctrlCKey, cancelCommand, false)
	shell.Completer = func(line []rune, cursor int) readline.Completions {
		word, values := complete(string(line[:min(max(cursor, 0), len(line))]))
		// The library cuts the word it replaces by its length in bytes,
		// counted as characters: a word with a non-ASCII letter would take
		// characters before it along.
		if len(values) == 0 || !ascii(word) {
			return readline.Completions{}
		}
		// The candidates are whole words: nothing is added after them, so
		// no suffix is registered for the library to take back when the
		// next key is typed (it took back the word's last letter).
		c := readline.CompleteValues(values...)
		c.PREFIX = word
		e.candidates = len(values)
		return c
	}
	e.ahead = newTypeahead()
	return e
}

// complete is Tab: the first one completes a word that has one candidate,
// or puts in what the candidates share and lists them under the prompt;
// the next ones go through the list.
func (e *editor) complete() {
	menu := e.shell.Keymap.Commands()["menu-complete"]
	listing := string(e.shell.Keymap.Local()) == menuSelect
	e.candidates = 0
	menu()
	if !listing && e.candidates == 1 {
		menu() // the one candidate goes in, and no list is left
	}
}

// cancelCompletion is Ctrl+C while Tab's list is shown: the list goes, and
// the line stays as typed (a candidate Tab put in on trial goes too).
func (e *editor) cancelCompletion() {
	e.shell.Display.ResetHelpers()
}

func (e *editor) useHistory(path string) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return // no history then; typing still works
	}
	// A missing file is reported as an error, yet the source works and
	// creates the file on the first line kept: history starts empty.
	src, _ := readline.NewHistoryFromFile(path)
	e.history.src = src
	e.shell.History.Delete()
	e.shell.History.Add("dev", e.history)
}

func (e *editor) read(prompt func() string) (string, error) {
	e.shell.Prompt.Primary(prompt)
	if typed := e.ahead.take(); typed != "" {
		// As a paste: its newlines stay in the message, nothing is sent.
		e.shell.Keys.Feed(false, asKeys("\x1b[200~"+typed+"\x1b[201~")...)
	}
	for {
		line, err := e.shell.Readline()
		switch {
		case errors.Is(err, readline.ErrInterrupt):
			if strings.TrimSpace(line) == "" {
				return "", errCtrlC
			}
			continue // Ctrl+C on a line being typed drops it, as shells do
		case err != nil:
			return "", err
		}
		return strings.ReplaceAll(line, "\\\n", "\n"), nil
	}
}

func (e *editor) ask(prompt string) (string, error) {
	resume := e.ahead.pause()
	defer resume()
	e.history.paused.Store(true)
	defer e.history.paused.Store(false)
	e.asking = true
	defer func() { e.asking = false }()
	e.shell.Prompt.Primary(func() string { return prompt })
	line, err := e.shell.Readline()
	if errors.Is(err, readline.ErrInterrupt) {
		return "", errCtrlC
	}
	return line, err
}

func (e *editor) typeAhead(on bool) {
	if on {
		e.ahead.start()
	} else {
		e.ahead.stop()
	}
}

func (e *editor) restore() { e.ahead.stop() }

// asKeys are the bytes of s as the editor reads fed keys: one byte each
// (it cuts a fed character to its low byte, and é became U+FFFD).
func asKeys(s string) []rune {
	keys := make([]rune, len(s))
	for i := range len(s) {
		keys[i] = rune(s[i])
	}
	return keys
}

func ascii(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// pausable is a history source that records nothing while paused: answers
// to ASK_USER are not requests worth recalling.
type pausable struct {
	src    readline.History
	paused atomic.Bool
}

func (p *pausable) Write(line string) (int, error) {
	if p.paused.Load() || p.src == nil {
		return p.Len(), nil
	}
	return p.src.Write(line)
}

func (p *pausable) GetLine(i int) (string, error) {
	if p.src == nil {
		return "", errors.New("no history")
	}
	return p.src.GetLine(i)
}

func (p *pausable) Len() int {
	if p.src == nil {
		return 0
	}
	return p.src.Len()
}

func (p *pausable) Dump() any {
	if p.src == nil {
		return nil
	}
	return p.src.Dump()
}

// plainReader reads lines from a pipe; a line ending in `\` continues on
// the next.
type plainReader struct {
	scanner *bufio.Scanner
	out     io.Writer // where prompts are shown
}

func (p *plainReader) read(prompt func() string) (string, error) {
	return p.lines(prompt())
}

// lines reads a message: a line, and the next ones while a line ends in `\`.
func (p *plainReader) lines(prompt string) (string, error) {
	var parts []string
	for {
		fmt.Fprint(p.out, prompt)
		if !p.scanner.Scan() {
			if err := p.scanner.Err(); err != nil {
				return "", err
			}
			if len(parts) > 0 {
				return strings.Join(parts, "\n"), nil
			}
			return "", io.EOF
		}
		line := strings.TrimSuffix(p.scanner.Text(), "\r")
		if strings.HasSuffix(line, `\`) {
			parts = append(parts, strings.TrimSuffix(line, `\`))
			prompt = "  "
			continue
		}
		return strings.Join(append(parts, line), "\n"), nil
	}
}

func (p *plainReader) ask(prompt string) (string, error) { return p.lines(prompt) }
func (p *plainReader) useHistory(string)                 {}
func (p *plainReader) typeAhead(bool)                    {}
func (p *plainReader) restore()                          {}
