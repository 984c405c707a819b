package ui

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/briandowns/spinner"
	"github.com/fatih/color"

	"github.com/devagent/dev/audit"
	"github.com/devagent/dev/event"
	"github.com/devagent/dev/parser"
	"github.com/devagent/dev/textfmt"
	"github.com/devagent/dev/tools"
)

// Verbosity of the terminal renderer.
type Verbosity int

// Verbosity levels.
const (
	Quiet   Verbosity = -1 // one line per tool
	Normal  Verbosity = 0  // boxes: thoughts, task list, tool, a truncated result
	Verbose Verbosity = 1  // also reasoning, whole inputs and results
)

// symbols used by the renderer, with ASCII fallbacks.
type symbols struct {
	tool, ok, fail, warn, retry, arrow, ellipsis, compress, background string
}

var (
	unicodeSymbols = symbols{"▸", "✓", "✗", "!", "↻", "→", "…", "↓", "◇"}
	asciiSymbols   = symbols{">", "ok", "x", "!", "~", "->", "...", "v", "*"}
)

// Terminal renders events as concise progress on stderr. It is safe for
// concurrent use: background processes report from their own goroutines.
type Terminal struct {
	emitMu    sync.Mutex // one event at a time
	w         io.Writer
	level     Verbosity
	width     int
	sym       symbols
	frame     frame
	spin      *spinner.Spinner // nil when stderr is not a terminal
	dim       *color.Color
	bold      *color.Color
	toolC     *color.Color
	red       *color.Color
	green     *color.Color
	yellow    *color.Color
	cyan      *color.Color
	mu        sync.Mutex // guards the fields below against the spinner's goroutine
	started   time.Time
	chunks    atomic.Int64
	auditing  bool   // the spinner waits for the auditor
	auditTool string // what the auditor runs now, for the spinner
	label     string // what else the spinner waits for (compression), "" for a reply
	tasks     string // the last task list shown, to show only changes
}

// Lines of a tool's input and result shown in normal mode; --verbose shows all.
const (
	inputLines  = 4
	resultLines = 8
)

// NewTerminal returns a renderer writing to s.Err.
func NewTerminal(s *Streams, level Verbosity) *Terminal {
	t := &Terminal{w: s.Err, level: level, width: s.Width, sym: asciiSymbols, frame: asciiFrame}
	if s.Unicode {
		t.sym, t.frame = unicodeSymbols, unicodeFrame
	}
	if t.width <= 0 {
		t.width = 80
	}
	mk := func(attrs ...color.Attribute) *color.Color {
		c := color.New(attrs...)
		if s.Color {
			c.EnableColor()
		} else {
			c.DisableColor()
		}
		return c
	}
	t.dim, t.bold = mk(color.Faint), mk(color.Bold)
	t.toolC = mk(color.Bold, color.FgYellow)
	t.red, t.green, t.yellow, t.cyan = mk(color.FgRed), mk(color.FgGreen), mk(color.FgYellow), mk(color.FgCyan)
	if s.ErrTTY {
		charset := spinner.CharSets[14] // braille dots
		if !s.Unicode {
			charset = spinner.CharSets[9] // | / - \
		}
		t.spin = spinner.New(charset, 100*time.Millisecond, spinner.WithWriter(s.Err))
		t.spin.PreUpdate = func(sp *spinner.Spinner) { sp.Suffix = t.spinnerText() }
	}
	return t
}

// spinnerText shows elapsed time while the server works on the prompt, then
// a live token count once the reply streams.
func (t *Terminal) spinnerText() string {
	t.mu.Lock()
	started, auditing, label, auditTool := t.started, t.auditing, t.label, t.auditTool
	t.mu.Unlock()
	secs := int(time.Since(started).Seconds())
	n := t.chunks.Load()
	if auditing {
		if auditTool != "" {
			return fmt.Sprintf(" Auditing the work... %ds %s", secs, auditTool)
		}
		return fmt.Sprintf(" Auditing the work... %ds", secs)
	}
	if label != "" {
		return fmt.Sprintf(" %s %ds", label, secs)
	}
	if n == 0 {
		return fmt.Sprintf(" Waiting for the model... %ds", secs)
	}
	return fmt.Sprintf(" Thinking... [%s tokens] %ds", textfmt.Thousands(n), secs)
}

// Emit renders one event.
func (t *Terminal) Emit(e event.Event) {
	t.emitMu.Lock()
	defer t.emitMu.Unlock()
	if t.auditStep(e) {
		return
	}
	switch e := e.(type) {
	case event.SessionStarted:
		verb := "new session"
		if e.Resumed {
			verb = "resumed session"
		}
		if t.level >= Normal {
			t.line(t.dim.Sprintf("dev: %s %s %s model %s in %s", verb, e.ID, t.sym.arrow, e.Model, e.Dir))
			t.resumed(e)
		}
	case event.RequestStarted:
		t.setLabel("")
		t.startSpinner()
	case event.ContextWindow:
		t.contextWindow(e)
	case event.FileAttached:
		if t.level >= Normal {
			what := textfmt.Plural(e.Lines, "line")
			if e.Binary {
				what = "binary: named, not attached"
			}
			t.line(t.dim.Sprintf("dev: attached %s (%s)", e.Path, what))
		}
	case event.Compressing:
		if t.level >= Verbose {
			t.line(t.dim.Sprint(compressingText(e)))
		}
		t.setLabel("Compressing the conversation...")
		t.startSpinner()
	case event.Compressed:
		t.stopSpinner()
		t.setLabel("")
		t.compressed(e)
	case event.Streaming:
		t.chunks.Store(int64(e.Chunks))
		if t.level >= Verbose && e.Reasoning != "" && t.spin == nil {
			io.WriteString(t.w, t.dim.Sprint(e.Reasoning))
		}
	case event.ReplyParsed:
		t.stopSpinner()
		t.reply(e.Response)
	case event.ToolStarted:
		if t.level >= Normal {
			input := withoutFences(e.Input)
			if t.level < Verbose {
				input = head(input, inputLines)
			}
			t.box("Tool: "+e.Tool, t.toolC, input, nil)
		}
	case event.ToolFinished:
		t.toolResult(e.Result)
		t.fileChanges(e.Files)
	case event.FormatProblem:
		t.stopSpinner()
		t.line(t.yellow.Sprintf("%s reply not in the expected format (%d/%d): ", t.sym.warn, e.Attempt, e.Max) + t.clip(textfmt.FirstLine(e.Message), 40))
		if t.level >= Verbose {
			t.block(e.Message, t.dim)
		}
	case event.Retrying:
		t.stopSpinner()
		t.line(t.yellow.Sprintf("%s %s; retrying in %s (%d/%d)", t.sym.retry, textfmt.FirstLine(e.Message), e.Wait.Round(time.Second), e.Attempt, e.Max))
		t.startSpinner() // the request goes out again after the wait
	case event.AuditStarted:
		t.mu.Lock()
		t.auditing, t.auditTool = true, ""
		t.mu.Unlock()
		t.startSpinner()
	case event.AuditFinished:
		t.stopSpinner()
		t.mu.Lock()
		t.auditing, t.auditTool = false, ""
		t.mu.Unlock()
		t.audit(e)
	case event.Warning:
		t.stopSpinner()
		t.line(t.yellow.Sprintf("%s %s", t.sym.warn, e.Message))
	case event.Notice:
		t.stopSpinner()
		t.line("dev: " + e.Message)
	case event.Failure:
		t.stopSpinner()
		t.line(t.red.Sprintf("%s %s", t.sym.fail, e.Message))
	case event.Finished:
		t.stopSpinner()
		t.finished(e)
	case event.BackgroundStarted:
		if t.level >= Normal {
			head := fmt.Sprintf("%s %s runs in the background: ", t.sym.background, e.ID)
			t.aside(func() {
				t.line(t.cyan.Sprint(head) + t.clip(textfmt.FirstLine(e.Command), utf8.RuneCountInString(head)))
			})
		}
	case event.BackgroundExited:
		t.backgroundExited(e)
	}
}

// resumed shows where a resumed session stood.
func (t *Terminal) resumed(e event.SessionStarted) {
	if e.LastRequest != "" {
		t.box("Last request", t.cyan, head(e.LastRequest, resultLines), nil)
	}
	if e.LastAnswer != "" {
		t.box("Last answer", t.cyan, head(e.LastAnswer, resultLines), t.dim)
	}
	if len(e.Tasks) > 0 {
		t.tasks = taskLines(e.Tasks)
		t.taskBox(e.Tasks)
	}
}

func (t *Terminal) backgroundExited(e event.BackgroundExited) {
	if e.Status == event.StoppedOnExit {
		t.aside(func() { t.line(fmt.Sprintf("dev: stopped background process %s on exit: %s", e.ID, e.Command)) })
		return
	}
	runtime := e.Runtime.Round(time.Second)
	c, what := t.dim, fmt.Sprintf("exited with code %d after %s", e.ExitCode, runtime)
	switch {
	case e.Status == "killed":
		what = fmt.Sprintf("killed after %s", runtime)
	case e.ExitCode < 0:
		c, what = t.yellow, fmt.Sprintf("ended by a signal after %s", runtime)
	case e.ExitCode > 0:
		c = t.yellow
	}
	head := fmt.Sprintf("%s %s %s: ", t.sym.background, e.ID, what)
	t.aside(func() { t.line(c.Sprint(head) + t.clip(textfmt.FirstLine(e.Command), utf8.RuneCountInString(head))) })
}

// aside prints what comes while the spinner may run (a background
// process's news, the audit's steps), around the spinner.
func (t *Terminal) aside(print func()) {
	spinning := t.spin != nil && t.spin.Active()
	if spinning {
		t.spin.Stop()
	}
	print()
	if spinning {
		t.spin.Start()
	}
}

func (t *Terminal) setLabel(label string) {
	t.mu.Lock()
	t.label = label
	t.mu.Unlock()
}

// contextWindow says once which window the run works with: when the
// server's is smaller than maxContextTokens, and in verbose mode always,
// with where the figure came from.
func (t *Terminal) contextWindow(e event.ContextWindow) {
	server := e.Server
	if server == "" {
		server = "the server"
	}
	switch {
	case e.ServerWindow > 0 && e.ServerWindow < e.Configured:
		if t.level < Normal {
			return
		}
		s := fmt.Sprintf("dev: %s gives this model a context window of %s tokens; using it instead of maxContextTokens (%s)",
			server, textfmt.Thousands(int64(e.ServerWindow)), textfmt.Thousands(int64(e.Configured)))
		if t.level >= Verbose && e.Source != "" {
			s += " (from " + e.Source + ")"
		}
		t.line(t.dim.Sprint(s))
	case t.level >= Verbose && e.ServerWindow > 0:
		t.line(t.dim.Sprintf("dev: context window %s tokens (maxContextTokens); %s reports %s (from %s)",
			textfmt.Thousands(int64(e.Window)), server, textfmt.Thousands(int64(e.ServerWindow)), e.Source))
	case t.level >= Verbose:
		s := fmt.Sprintf("dev: context window %s tokens (maxContextTokens); %s did not report its own", textfmt.Thousands(int64(e.Window)), server)
		if e.Server != "" && e.Source != "" {
			s += " (identified by " + e.Source + ")"
		}
		t.line(t.dim.Sprint(s))
	}
}

func compressingText(e event.Compressing) string {
	if e.Reason == event.ReasonOverflow {
		return fmt.Sprintf("the server rejected a prompt of about %s tokens as too long; compressing the conversation", textfmt.Thousands(int64(e.Tokens)))
	}
	pct := 0
	if e.Window > 0 {
		pct = e.Tokens * 100 / e.Window
	}
	return fmt.Sprintf("the prompt reached about %s tokens, %d%% of the %s-token context window; compressing the conversation",
		textfmt.Thousands(int64(e.Tokens)), pct, textfmt.Thousands(int64(e.Window)))
}

func (t *Terminal) compressed(e event.Compressed) {
	s := fmt.Sprintf("%s compressed the conversation: %s %s %s tokens", t.sym.compress,
		textfmt.Thousands(int64(e.TokensBefore)), t.sym.arrow, textfmt.Thousands(int64(e.TokensAfter)))
	if e.Reason == event.ReasonOverflow {
		s += " (the server's context overflowed; retrying)"
	}
	if t.level >= Verbose {
		var facts []string
		if e.Window > 0 {
			facts = append(facts, "window "+textfmt.Thousands(int64(e.Window)))
		}
		if e.Cuts > 0 {
			what := "tool results or messages"
			if e.Cuts == 1 {
				what = "tool result or message"
			}
			facts = append(facts, fmt.Sprintf("%d %s shortened to fit the summary request", e.Cuts, what))
		}
		if len(facts) > 0 {
			s += "; " + strings.Join(facts, ", ")
		}
	}
	t.line(t.cyan.Sprint(s))
}

func (t *Terminal) reply(r parser.Response) {
	if t.level < Normal {
		return
	}
	if t.level >= Verbose && r.Reasoning != "" {
		t.box("Reasoning", t.dim, r.Reasoning, t.dim)
	}
	if r.Thoughts != "" {
		t.box("Thoughts", t.dim, r.Thoughts, t.dim)
	}
	if r.HasTaskList && len(r.Tasks) > 0 {
		if list := taskLines(r.Tasks); list != t.tasks {
			t.tasks = list
			t.taskBox(r.Tasks)
		}
	}
}

// taskLines is the task list as text, to tell when it changed.
func taskLines(tasks []parser.Task) string {
	var b strings.Builder
	for _, task := range tasks {
		b.WriteString(string(task.Status) + " " + task.Text + "\n")
	}
	return b.String()
}

// taskBox shows the task list, each task in the colour of its status.
func (t *Terminal) taskBox(tasks []parser.Task) {
	var lines []string
	var colours []*color.Color
	for _, task := range tasks {
		mark, c := "[ ]", (*color.Color)(nil)
		switch task.Status {
		case parser.Complete:
			mark, c = "[x]", t.green
		case parser.InProgress:
			mark, c = "[~]", t.yellow
		}
		for _, l := range wrap(mark+" "+task.Text, t.innerWidth()) {
			lines = append(lines, l)
			colours = append(colours, c)
		}
	}
	t.boxLines("Task List", t.cyan, lines, colours)
}

func (t *Terminal) toolResult(r tools.Result) {
	mark, c := t.sym.ok, t.green
	if !r.OK {
		mark, c = t.sym.fail, t.red
	}
	switch {
	case t.level == Quiet:
		t.line(fmt.Sprintf("%s %s %s", c.Sprint(mark), r.Tool, t.clip(r.Summary, len(r.Tool)+4)))
	case r.Done:
		// DONE's input, the summary, is in its Tool box already.
	case t.level >= Verbose:
		t.box(resultTitle(r), c, r.Output, nil)
	default:
		t.box(resultTitle(r), c, head(r.Output, resultLines), nil)
	}
}

func resultTitle(r tools.Result) string {
	if r.OK {
		return "Result"
	}
	return "Result: failed"
}

// head keeps the first n lines of text, saying how many were left out.
func head(text string, n int) string {
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	if len(lines) <= n {
		return strings.Join(lines, "\n")
	}
	return strings.Join(lines[:n], "\n") + fmt.Sprintf("\n… %d more lines (--verbose shows all)", len(lines)-n)
}

// auditStep renders an event of the audit's own conversation and reports
// whether e was one. The spinner names what the auditor runs; verbose mode
// also shows its thoughts, its tools and their results as they come.
func (t *Terminal) auditStep(e event.Event) bool {
	switch e := e.(type) {
	case event.RequestStarted:
		return e.Agent == event.Auditor // the audit's spinner runs on
	case event.Streaming:
		return e.Agent == event.Auditor
	case event.ReplyParsed:
		if e.Agent != event.Auditor {
			return false
		}
		if t.level >= Verbose && e.Response.Thoughts != "" {
			t.aside(func() { t.block(e.Response.Thoughts, t.dim) })
		}
	case event.ToolStarted:
		if e.Agent != event.Auditor {
			return false
		}
		summary := e.Tool + " " + inputSummary(e.Input)
		t.mu.Lock()
		t.auditTool = textfmt.Clip(summary, max(10, t.width/2))
		t.mu.Unlock()
		if t.level >= Verbose {
			t.aside(func() {
				t.line("  audit " + t.toolC.Sprint(t.sym.tool+" "+e.Tool) + " " + t.clip(inputSummary(e.Input), len(e.Tool)+10))
			})
		}
	case event.ToolFinished:
		if e.Agent != event.Auditor {
			return false
		}
		if t.level >= Verbose && !e.Result.Done {
			t.aside(func() { t.block(e.Result.Output, nil) })
		}
	default:
		return false
	}
	return true
}

// audit shows the verdict in one line; verbose adds the auditor's whole
// report.
func (t *Terminal) audit(r event.AuditFinished) {
	if r.Verdict == string(audit.Pass) {
		t.line(t.green.Sprintf("%s audit passed (%d steps)", t.sym.ok, r.Steps))
	} else {
		t.line(t.red.Sprintf("%s audit failed (%d steps): ", t.sym.fail, r.Steps) + t.clip(textfmt.FirstLine(feedbackLine(r.Feedback)), 30))
	}
	if t.level >= Verbose {
		t.block(r.Feedback, nil)
	}
}

// feedbackLine is the most telling line of a report: the first after the
// verdict line, where auditors say what to fix, else the verdict itself.
func feedbackLine(report string) string {
	lines := strings.Split(strings.TrimSpace(report), "\n")
	for i, l := range lines {
		if _, ok := audit.ParseVerdict(l); ok {
			for _, next := range lines[i+1:] {
				if strings.TrimSpace(next) != "" {
					return strings.TrimSpace(next)
				}
			}
			return strings.TrimSpace(l)
		}
	}
	return report
}

func (t *Terminal) finished(e event.Finished) {
	switch e.Status {
	case "complete":
		t.line(t.green.Sprintf("%s done in %d steps", t.sym.ok, e.Loops))
	case "interrupted":
		t.line(t.yellow.Sprintf("%s interrupted; the session is saved: dev --resume continues it", t.sym.warn))
	default:
		t.line(t.red.Sprintf("%s failed after %d steps (exit %d)", t.sym.fail, e.Loops, e.ExitCode))
	}
}

// startSpinner shows the wait for a reply, timed from now.
func (t *Terminal) startSpinner() {
	t.mu.Lock()
	t.started = time.Now()
	t.mu.Unlock()
	t.chunks.Store(0)
	if t.spin != nil {
		t.spin.Suffix = t.spinnerText()
		t.spin.Start()
	}
}

func (t *Terminal) stopSpinner() {
	if t.spin != nil {
		t.spin.Stop()
	}
}

func (t *Terminal) line(s string) {
	fmt.Fprintln(t.w, s)
}

// block prints multi-line text indented, optionally coloured.
func (t *Terminal) block(text string, c *color.Color) {
	text = strings.TrimRight(text, "\n")
	if text == "" {
		return
	}
	for _, l := range strings.Split(text, "\n") {
		if c != nil {
			l = c.Sprint(l)
		}
		fmt.Fprintln(t.w, "    "+l)
	}
}

// clip shortens s to the terminal width minus used columns.
func (t *Terminal) clip(s string, used int) string {
	max := t.width - used - 1
	if max < 10 {
		max = 10
	}
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	r := []rune(s)
	return string(r[:max-1]) + t.sym.ellipsis
}

// withoutFences drops the code-fence lines of a tool input: markup, not
// content, in a box.
func withoutFences(input string) string {
	var kept []string
	for _, l := range strings.Split(strings.TrimSpace(input), "\n") {
		if t := strings.TrimSpace(l); !strings.HasPrefix(t, "```") && !strings.HasPrefix(t, "~~~") {
			kept = append(kept, l)
		}
	}
	return strings.Join(kept, "\n")
}

// inputSummary is the first meaningful line of a tool input, skipping fences.
func inputSummary(input string) string {
	for _, l := range strings.Split(input, "\n") {
		l = strings.TrimSpace(l)
		if l != "" && !strings.HasPrefix(l, "```") && !strings.HasPrefix(l, "~~~") {
			return l
		}
	}
	return ""
}

// diffLines is how much of an edit's diff normal mode shows.
const diffLines = 12

// fileChanges shows what a tool changed in the working directory: the
// diff of each edit (removed lines red, added green, capped unless
// verbose), and one line naming the files a command changed.
func (t *Terminal) fileChanges(files []event.FileChange) {
	if t.level < Normal || len(files) == 0 {
		return
	}
	var others []string
	for _, f := range files {
		if f.Diff == "" {
			others = append(others, f.Change+" "+f.Path)
			continue
		}
		limit := diffLines
		if t.level >= Verbose {
			limit = 0
		}
		var lines []string
		var colours []*color.Color
		for _, l := range DiffLines(f.Diff, limit) {
			c := (*color.Color)(nil)
			switch l.Kind {
			case DiffAdded:
				c = t.green
			case DiffRemoved:
				c = t.red
			case DiffHunk:
				c = t.cyan
			case DiffHeader, DiffMore:
				c = t.dim
			}
			for _, w := range wrap(l.Text, t.innerWidth()) {
				lines, colours = append(lines, w), append(colours, c)
			}
		}
		t.boxLines("Diff: "+f.Path, t.cyan, lines, colours)
	}
	if len(others) > 0 {
		t.line(t.dim.Sprint("changed: " + strings.Join(others, ", ")))
	}
}
