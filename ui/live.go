package ui

import (
	"fmt"
	"strings"
	"time"

	"github.com/rivo/uniseg"

	"github.com/devagent/dev/textfmt"
)

// The live part of the terminal: what dev is waiting for, redrawn in place
// ten times a second under everything printed for good. While the model
// answers: the elapsed time, the tokens generated and the reply's Thoughts
// as they stream; while a command runs: its elapsed time and its last lines
// of output. It is erased before anything else is printed and once the
// wait is over, so that it never stays on the screen.
//
// With escape codes (a terminal, colour allowed) it is several lines,
// erased by moving the cursor up; without (NO_COLOR, TERM=dumb) one line,
// overwritten with a carriage return and spaces. When stderr is not a
// terminal there is none.

// activity is what the live part waits for.
type activity int

const (
	waitingModel activity = iota // the request is out, no byte came back yet
	thinking                     // the reply streams
	compressing
	auditing
	runningCommand
)

const (
	liveTick         = 100 * time.Millisecond
	liveThoughtLines = 4 // lines of streaming thoughts shown
	liveOutputLines  = 5 // lines of a running command's output shown
	// maxStreamed bounds the reply text kept to find its Thoughts in:
	// Thoughts come first, and a reply may be a megabyte of file content.
	maxStreamed = 64 << 10
)

var (
	unicodeSpinner = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}
	asciiSpinner   = []string{"|", "/", "-", "\\"}
)

// liveState is what the live part shows; guarded by Terminal.mu.
type liveState struct {
	on      bool
	stop    chan struct{} // ends the ticker
	frame   int
	what    activity
	started time.Time
	// drawn is the visible width of each line on the screen (one entry
	// in single-line mode), to erase them.
	drawn []int

	tokens    int
	estimated bool
	streamed  strings.Builder // the reply so far, up to maxStreamed
	// replyTail keeps the reply's last lines, however long it gets: what
	// a reply outside the template shows.
	replyTail tail
	reasoning strings.Builder // in verbose mode, the reasoning so far (its tail)
	auditTool string
	command   string
	output    tail
	// aliveAt is when the server last sent a keep-alive while no token
	// came yet (zero: none since the request went out).
	aliveAt time.Time
}

// tail keeps the last lines of a command's output.
type tail struct {
	lines   []string // complete lines, the last few
	partial string   // the line being printed
}

func (t *tail) write(s string) {
	// Only the last lines matter: skip what comes before them at once, so
	// that a command printing a gigabyte costs little here.
	if cut := lastLinesStart(s, liveOutputLines+1); cut > 0 {
		t.lines, t.partial = nil, ""
		s = s[cut:]
	}
	s = strings.ReplaceAll(s, "\r\n", "\n")
	for {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			t.partial += s
			// A progress bar redraws its line with \r: keep what follows.
			if j := strings.LastIndexByte(t.partial, '\r'); j >= 0 {
				t.partial = t.partial[j+1:]
			}
			if len(t.partial) > 4096 {
				t.partial = t.partial[len(t.partial)-4096:]
			}
			return
		}
		line := t.partial + s[:i]
		if j := strings.LastIndexByte(line, '\r'); j >= 0 {
			line = line[j+1:]
		}
		t.lines = append(t.lines, line)
		if len(t.lines) > liveOutputLines {
			t.lines = append(t.lines[:0], t.lines[len(t.lines)-liveOutputLines:]...)
		}
		t.partial = ""
		s = s[i+1:]
	}
}

// lastLinesStart is where the last n lines of s begin (after the n-th
// newline from the end), 0 when s has fewer.
func lastLinesStart(s string, n int) int {
	end := len(s)
	for range n {
		i := strings.LastIndexByte(s[:end], '\n')
		if i < 0 {
			return 0
		}
		end = i
	}
	return end + 1
}

func (t *tail) last(n int) []string {
	all := t.lines
	if t.partial != "" {
		all = append(append([]string(nil), all...), t.partial)
	}
	return all[max(0, len(all)-n):]
}

// startLive shows the live part for what, timed from now. Called with mu held.
func (t *Terminal) startLive(what activity) {
	t.live.what = what
	t.live.started = time.Now()
	t.live.tokens, t.live.estimated = 0, false
	t.live.streamed.Reset()
	t.live.replyTail = tail{}
	t.live.reasoning.Reset()
	t.live.output = tail{}
	t.live.aliveAt = time.Time{}
	if !t.tty || t.live.on {
		t.drawLive()
		return
	}
	t.live.on = true
	t.live.stop = make(chan struct{})
	go t.tick(t.live.stop)
	t.drawLive()
}

// stopLive erases the live part and stops its ticker. Called with mu held.
func (t *Terminal) stopLive() {
	if !t.live.on {
		return
	}
	t.eraseLive()
	t.live.on = false
	close(t.live.stop)
}

func (t *Terminal) tick(stop chan struct{}) {
	ticker := time.NewTicker(liveTick)
	defer ticker.Stop()
	for {
		select {
		case <-stop:
			return
		case <-ticker.C:
			t.mu.Lock()
			if t.live.on {
				t.width = t.widthOf()
				t.live.frame++
				t.drawLive()
			}
			t.mu.Unlock()
		}
	}
}

// eraseLive removes the live part from the screen, leaving the cursor
// where it began.
func (t *Terminal) eraseLive() {
	if len(t.live.drawn) == 0 {
		return
	}
	if !t.escapes {
		fmt.Fprint(t.w, "\r"+strings.Repeat(" ", t.live.drawn[0])+"\r")
		t.live.drawn = t.live.drawn[:0]
		return
	}
	// Lines drawn at a width the window no longer has may now take
	// several rows (terminals reflow them).
	width := t.width
	rows := 0
	for _, w := range t.live.drawn {
		rows += max(1, (w+width-1)/width)
	}
	up := ""
	if rows > 1 {
		up = fmt.Sprintf("\x1b[%dA", rows-1)
	}
	fmt.Fprint(t.w, "\r"+up+"\x1b[J")
	t.live.drawn = t.live.drawn[:0]
}

// drawLive draws the live part anew.
func (t *Terminal) drawLive() {
	if !t.live.on {
		return
	}
	t.eraseLive()
	width := t.width - 1 // never the last column: some terminals wrap there
	if !t.escapes {
		line := clipWidth(t.liveOneLine(), width)
		fmt.Fprint(t.w, line)
		t.live.drawn = append(t.live.drawn, uniseg.StringWidth(line))
		return
	}
	lines := t.liveLines(width)
	for i, l := range lines {
		if i > 0 {
			fmt.Fprint(t.w, "\n")
		}
		fmt.Fprint(t.w, l.styled)
		t.live.drawn = append(t.live.drawn, l.width)
	}
}

type liveLine struct {
	styled string
	width  int
}

// liveLines are the lines of the live part, each at most width columns:
// the streaming thoughts or the command's output, then the spinner line.
func (t *Terminal) liveLines(width int) []liveLine {
	var lines []liveLine
	add := func(s string, c func(string) string) {
		s = clipWidth(s, width)
		styled := s
		if c != nil {
			styled = c(s)
		}
		lines = append(lines, liveLine{styled, uniseg.StringWidth(s)})
	}
	dim := func(s string) string { return t.dim.Sprint(s) }
	switch t.live.what {
	case thinking:
		text := thoughtsSoFar(t.live.streamed.String())
		if text == "" {
			if line := t.outsideLine(); line != "" {
				add("  "+strings.TrimSpace(line), dim)
				break
			}
		}
		if text == "" && t.level >= Verbose {
			text = t.live.reasoning.String()
		}
		if text != "" {
			w := wrap(strings.TrimSpace(text), max(8, width-2))
			for _, l := range w[max(0, len(w)-liveThoughtLines):] {
				add("  "+l, dim)
			}
		}
	case runningCommand:
		var rows []string
		for _, l := range t.live.output.last(liveOutputLines) {
			rows = append(rows, wrap(l, max(8, width-4))...)
		}
		for _, l := range rows[max(0, len(rows)-liveOutputLines):] {
			add("  "+t.frame.vertical+" "+l, dim)
		}
	}
	add(t.spinnerLine(), nil)
	return lines
}

// liveOneLine is the live part in one line: the spinner line and the last
// line of thoughts or output.
func (t *Terminal) liveOneLine() string {
	s := t.spinnerLine()
	var last string
	switch t.live.what {
	case thinking:
		if text := strings.TrimSpace(thoughtsSoFar(t.live.streamed.String())); text != "" {
			lines := strings.Split(sanitize(text), "\n")
			last = lines[len(lines)-1]
		} else {
			last = sanitize(t.outsideLine())
		}
	case runningCommand:
		if l := t.live.output.last(1); len(l) > 0 {
			last = sanitize(l[0])
		}
	}
	if strings.TrimSpace(last) != "" {
		s += " " + t.frame.vertical + " " + strings.TrimSpace(last)
	}
	return s
}

// spinnerLine says what dev waits for, for how long, and how many tokens
// came.
func (t *Terminal) spinnerLine() string {
	frames := asciiSpinner
	if t.sym == unicodeSymbols {
		frames = unicodeSpinner
	}
	spin := frames[t.live.frame%len(frames)]
	elapsed := textfmt.Duration(time.Since(t.live.started))
	sep := " " + t.sym.dot + " "
	switch t.live.what {
	case thinking:
		n := textfmt.Count(t.live.tokens, "token")
		if t.live.estimated {
			n = "~" + n
		}
		return spin + " Thinking... " + elapsed + sep + n
	case compressing:
		return spin + " Compressing the conversation... " + elapsed
	case auditing:
		s := spin + " Auditing the work... " + elapsed
		if t.live.auditTool != "" {
			s += sep + t.live.auditTool
		}
		return s
	case runningCommand:
		return spin + " " + t.live.command + " " + elapsed
	}
	if !t.live.aliveAt.IsZero() {
		// A slow CPU may process a long prompt for minutes, sending only
		// keep-alives: say the server is there, so the user can decide.
		ago := textfmt.Duration(time.Since(t.live.aliveAt))
		return spin + " Server working on the prompt... " + elapsed + sep + "alive " + ago + " ago"
	}
	return spin + " Waiting for the model... " + elapsed
}

// outsideLine is the last line that is not blank of a reply streaming
// outside the template (no "# Agent Response" yet): what the model writes
// instead, shown so that a model going astray is seen at once. A leading
// <think> block still open is reasoning: shown only in verbose mode.
func (t *Terminal) outsideLine() string {
	const heading = "# Agent Response"
	s := t.live.streamed.String()
	if strings.Contains(s, heading) {
		return ""
	}
	lines := t.live.replyTail.last(liveOutputLines)
	for _, l := range lines {
		if strings.Contains(l, heading) {
			return ""
		}
	}
	if t.level < Verbose {
		if r := strings.TrimSpace(s); strings.HasPrefix(r, "<think>") && !strings.Contains(r, "</think>") {
			return ""
		}
	}
	for i := len(lines) - 1; i >= 0; i-- {
		if strings.TrimSpace(lines[i]) != "" {
			return lines[i]
		}
	}
	return ""
}

// thoughtsSoFar is the text of the reply's Thoughts section as far as it
// came: after its heading, up to the next heading.
func thoughtsSoFar(reply string) string {
	i := strings.Index(reply, "## Thoughts")
	if i < 0 {
		return ""
	}
	rest := reply[i+len("## Thoughts"):]
	if j := strings.Index(rest, "\n#"); j >= 0 {
		rest = rest[:j]
	}
	return strings.TrimSpace(rest)
}

// clipWidth cuts s (plain text) to at most width columns.
func clipWidth(s string, width int) string {
	s = sanitize(strings.ReplaceAll(s, "\n", " "))
	if uniseg.StringWidth(s) <= width {
		return s
	}
	if width <= 0 {
		return ""
	}
	return wrap(s, width)[0]
}
