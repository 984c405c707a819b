package repl

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/reeflective/readline"

	"github.com/devagent/dev/ui"
)

// errLeave: the user pressed Ctrl+C at an empty prompt, which leaves dev.
var errLeave = errors.New("Ctrl+C at the prompt")

// lineReader reads what the user types, one message at a time. read returns
// io.EOF when the input ends (Ctrl+D) and errLeave for Ctrl+C at an empty
// prompt.
type lineReader interface {
	read(prompt string) (string, error)
}

// newLineReader is a line editor when dev talks to a terminal, and plain
// lines otherwise (a pipe, a script).
func newLineReader(s *ui.Streams, historyFile string) lineReader {
	if s.InTTY && s.OutTTY {
		return newEditor(historyFile)
	}
	sc := bufio.NewScanner(s.In)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	return &plainReader{scanner: sc, out: s.Err}
}

// editor is the line editor: history kept in a file, Ctrl+R to search it,
// pasted text kept whole (bracketed paste), and a line ending in `\`
// continued on the next.
type editor struct {
	shell *readline.Shell
}

func newEditor(historyFile string) *editor {
	shell := readline.NewShell()
	// A missing file is reported as an error, yet the source works and
	// creates the file on the first line kept: history starts empty.
	hist, _ := readline.NewHistoryFromFile(historyFile)
	shell.History.Add("dev", hist)
	shell.AcceptMultiline = func(line []rune) bool {
		return !strings.HasSuffix(strings.TrimRight(string(line), " "), `\`)
	}
	shell.Prompt.Secondary(func() string { return "  " })
	return &editor{shell: shell}
}

func (e *editor) read(prompt string) (string, error) {
	e.shell.Prompt.Primary(func() string { return prompt })
	for {
		line, err := e.shell.Readline()
		switch {
		case errors.Is(err, readline.ErrInterrupt):
			if strings.TrimSpace(line) == "" {
				return "", errLeave
			}
			continue // Ctrl+C on a line being typed drops it, as shells do
		case err != nil:
			return "", err
		}
		return strings.ReplaceAll(line, "\\\n", "\n"), nil
	}
}

// plainReader reads lines from a pipe; a line ending in `\` continues on
// the next.
type plainReader struct {
	scanner *bufio.Scanner
	out     io.Writer // where prompts are shown
}

func (p *plainReader) read(prompt string) (string, error) {
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
